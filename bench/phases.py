"""Where a gevent worker's CPU goes, per request kind and phase: a bench-only instrument.

    TABLETOP_BENCH_PHASES_DIR=/tmp/phases tabletop serve --app bench.phases:api
    TABLETOP_BENCH_PHASES_DIR=/tmp/phases tabletop serve --app bench.phases:bare

(``bench.protocol_bench --phases`` does both and prints :func:`report`.)

Why: the protocol bench's server CPU per request is one figure for a mix of commands,
``/legal``, views and event streams, and moves by ±15 % between identical runs on a
shared VM. Charging each stretch of CPU to the request it was spent on, under the real
server and load, tells which kind of request costs what -- and which part of it is
gunicorn's (parsing, writing) rather than the app's.

How: every greenlet switch charges the thread's CPU time (``time.thread_time_ns``) since the
previous charge to the phase the outgoing greenlet was in; so does every change of
phase. A connection's greenlet moves through ``parse`` (gunicorn reading and parsing
the request line and headers, including the wait's wake-up), ``pre-app`` (the WSGI
environ, the worker's body deadline), ``app`` (the Flask app, until it hands back its
answer), ``write`` (gunicorn sending it), ``close`` (closing the answer: Flask's
teardown) and ``after`` (gunicorn's bookkeeping until it reads the next request).
Other greenlets are charged under what they run: ``Hub.run`` (gevent's loop),
``LiveHub._run`` (the live hub's reader), ``Multiplexer._read`` (the store's reply
reader), accept loops. Every 200 requests a worker writes its totals to
``<dir>/phases-<pid>.json``.

Cost: a ``thread_time_ns`` system call per switch and phase change, and the Python around
it: measured CPU per request is some 10-20 % higher than without, for both servers --
compare phases within one run, never with an uninstrumented run's figures. Never
installed by the service itself: only these factories install it.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

DIR_ENV = "TABLETOP_BENCH_PHASES_DIR"
DUMP_EVERY = 200
"""Requests between two dumps of a worker's totals (the last few of a run are lost)."""


def request_kind(environ: dict[str, Any]) -> str:
    """The bench's request kinds, from the path (``bench.protocol_bench``'s requests)."""
    path = environ.get("PATH_INFO", "")
    for suffix, kind in (("/legal", "legal"), ("/commands", "command"),
                         ("/events/stream", "stream"), ("/bare", "bare")):
        if path.endswith(suffix):
            return kind
    if environ.get("REQUEST_METHOD") == "GET" and path.startswith("/v1/games/") and path.count("/") == 3:
        return "view"
    return "other"


class Meter:
    """CPU nanoseconds per ``phase:kind`` label and requests per kind, for one worker."""

    def __init__(self, directory: Path) -> None:
        import greenlet

        self._current = greenlet.getcurrent
        self.path = directory / f"phases-{os.getpid()}.json"
        self.cpu: Counter[str] = Counter()
        self.requests: Counter[str] = Counter()
        self._phase: dict[Any, str] = {}
        self._kind: dict[Any, str] = {}
        self._names: dict[Any, str] = {}  # greenlets serving no request, by what they run
        self._last = time.thread_time_ns()

    def charge(self, greenlet: Any) -> None:
        """Charge the CPU since the last charge to ``greenlet``'s current phase."""
        now = time.thread_time_ns()
        label = self._phase.get(greenlet) or self._names.get(greenlet) or self._name(greenlet)
        self.cpu[label] += now - self._last
        self._last = now

    def _name(self, greenlet: Any) -> str:
        """``greenlet``'s label while it serves no request: the function it runs (a
        thread's target under gevent's patched ``threading``), else its class."""
        run = getattr(greenlet, "_run", None) or getattr(greenlet, "run", None)
        target = getattr(getattr(run, "__self__", None), "_target", None)  # a Thread's
        name = getattr(target or run, "__qualname__", None) or type(greenlet).__name__
        self._names[greenlet] = name
        return name

    def enter(self, phase: str) -> None:
        """The running greenlet starts ``phase`` (of the request kind it serves)."""
        greenlet = self._current()
        self.charge(greenlet)
        self._phase[greenlet] = f"{phase}:{self._kind.get(greenlet, '-')}"

    def start_request(self, kind: str) -> None:
        greenlet = self._current()
        self.charge(greenlet)
        self._kind[greenlet] = kind
        self.requests[kind] += 1
        self._phase[greenlet] = f"app:{kind}"
        if sum(self.requests.values()) % DUMP_EVERY == 0:
            self.dump()

    def on_switch(self, event: str, args: tuple[Any, Any]) -> None:
        """``greenlet.settrace`` callback: a switch ends the outgoing greenlet's stretch."""
        if event in ("switch", "throw"):
            self.charge(args[0])

    def dump(self) -> None:
        self.path.write_text(json.dumps({"cpu": self.cpu, "requests": self.requests}))


class _Answer:
    """The app's answer, iterated and closed by gunicorn, with the phases marked."""

    def __init__(self, meter: Meter, inner: Iterable[bytes]) -> None:
        self._meter, self._inner, self._items = meter, inner, iter(inner)

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        self._meter.enter("app")  # a streamed answer's generator runs in the app
        try:
            return next(self._items)
        finally:
            self._meter.enter("write")

    def close(self) -> None:
        self._meter.enter("close")
        try:
            close = getattr(self._inner, "close", None)
            if close is not None:
                close()
        finally:
            self._meter.enter("after")


def _metered(app: Callable[..., Iterable[bytes]], meter: Meter) -> Callable[..., Iterable[bytes]]:
    def metered(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        meter.start_request(request_kind(environ))
        answer = _Answer(meter, app(environ, start_response))
        meter.enter("write")
        return answer

    return metered


def _mark_gunicorn(meter: Meter) -> None:
    """Mark gunicorn's parse of each request (``parse``, then ``pre-app``)."""
    from gunicorn.http import parser

    parse = parser.Parser.__next__

    def marked(self: Any) -> Any:
        meter.enter("parse")
        try:
            return parse(self)
        finally:
            meter.enter("pre-app")

    parser.Parser.__next__ = marked  # type: ignore[method-assign]


def install(app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
    """``app``, metered into ``$TABLETOP_BENCH_PHASES_DIR`` (KeyError when unset)."""
    import greenlet

    meter = Meter(Path(os.environ[DIR_ENV]))
    greenlet.settrace(meter.on_switch)
    _mark_gunicorn(meter)
    return _metered(app, meter)


def api() -> Callable[..., Iterable[bytes]]:
    """The API (``service.http.create_app``), metered."""
    from service.http import create_app

    return install(create_app())


def bare() -> Callable[..., Iterable[bytes]]:
    """The bench's bare endpoint (``bench.bare_app``), metered."""
    from bench.bare_app import create_app

    return install(create_app())


def totals(directory: Path) -> dict[str, tuple[Counter[str], Counter[str]]]:
    """(CPU nanoseconds per label, requests per kind) summed over the workers that dumped
    into ``directory``, per server: "bare" for workers that served ``/bare``, else "api"."""
    out: dict[str, tuple[Counter[str], Counter[str]]] = {}
    for path in sorted(directory.glob("phases-*.json")):
        data = json.loads(path.read_text())
        server = "bare" if data["requests"].get("bare") else "api"
        cpu, requests = out.setdefault(server, (Counter(), Counter()))
        cpu.update(data["cpu"])
        requests.update(data["requests"])
    return out


PHASES = ("parse", "pre-app", "app", "write", "close", "after")


def report(directory: Path) -> None:
    """Print µs of worker CPU per request, by kind and phase, and per request of the mix
    (streams are not requests of the mix: their CPU is spread over the others)."""
    for server, (cpu, requests) in totals(directory).items():
        served = sum(n for kind, n in requests.items() if kind != "stream")
        print(f"\n{server}: µs of worker CPU per request, by phase (instrumented: compare within this table)")
        print(f"  {'kind':<8}{'requests':>9}" + "".join(f"{p:>9}" for p in PHASES) + f"{'all':>9}{'per mix request':>17}")
        for kind, n in requests.most_common():
            spent = [cpu.get(f"{phase}:{kind}", 0) for phase in PHASES]
            cells = "".join(f"{s / 1e3 / n:9.0f}" for s in spent)
            print(f"  {kind:<8}{n:9d}{cells}{sum(spent) / 1e3 / n:9.0f}{sum(spent) / 1e3 / served:17.0f}")
        for label, ns in cpu.most_common():
            if ":" not in label:
                print(f"  {label:<17} (no request){'':>40}{ns / 1e3 / served:17.0f}")
        print(f"  {'total':<8}{served:9d}{'':>54}{sum(cpu.values()) / 1e3 / served:9.0f}")
