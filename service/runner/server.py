"""The API's gunicorn workers: gevent (default) or gthread, hardened at the HTTP layer.

Why gevent (see docs/operations.md, "Serving model"): an SSE stream or a long poll
mostly waits. Under ``gthread`` each one held a worker thread (2 x 16 per server), so a
few dozen idle clients stopped commands and health probes. Under gevent each
connection is a greenlet; a waiting one is parked on the process's stream hub
(``service.http.waits``) and costs a socket and a few KB, no thread and no Redis
connection. The command path stays the same synchronous Flask code: gevent's monkey
patching (done by gunicorn's gevent worker in each worker process, after the fork and
before the app is loaded) makes redis-py's socket I/O cooperative, and hiredis parses
replies as before.

What these workers add to gunicorn's:

- **Header timeout** (``TABLETOP_HEADER_TIMEOUT_S``): the request line and headers --
  and, on a kept-alive connection, the idle time before them -- must arrive within that
  many seconds, else the connection is closed (gevent workers; gthread has its own
  keep-alive handling and no such bound).
- **Body timeout** (``TABLETOP_BODY_TIMEOUT_S``): reading the request body (any number
  of reads) must finish within that many seconds of the first read, else the read
  fails with 408 ``request_timeout`` (problem+json) and the connection is closed
  (gevent workers; under gthread only each socket read is bounded, so a client that
  trickles bytes can stretch it).
- **problem+json for what the server itself refuses** (bad request line, header too
  large, bad chunking, ...): gunicorn writes HTML there; here the same status with a
  problem body and a stable ``code`` (``http_<status>``-style codes listed in
  :data:`CODES`), plus the security headers.
- **A lingering close** (``service.runner.linger``) after an answer that ends the
  connection -- the server layer's refusals under both worker classes, any closing
  answer under gevent -- so a client still sending its request reads the answer
  instead of a connection reset.
- **No ``Server`` header** (gunicorn would send ``Server: gunicorn``).
- **Open-file limit** raised to the hard limit at start (:func:`raise_open_file_limit`),
  since every idle stream is a file descriptor.

Patching early: this module (loaded by the master to find the worker class), the
config module and ``service.runner.pid`` import nothing of the app; ``tabletop
serve`` starts the master in a fresh interpreter (``service.runner.gunicorn``) for the
same reason. A gevent worker's first act after the fork is ``gevent.monkey.patch_all``;
the app (Flask, redis-py, prometheus_client) is imported after it.
"""

from __future__ import annotations

import json
import logging
import resource
import socket
import time
from collections.abc import Callable, Iterable
from typing import Any

from gunicorn.http import wsgi as gunicorn_wsgi
from gunicorn.http.errors import (
    ChunkMissingTerminator,
    InvalidChunkExtension,
    InvalidChunkSize,
    InvalidHeader,
    InvalidHeaderName,
    InvalidHTTPVersion,
    InvalidRequestLine,
    InvalidRequestMethod,
    LimitRequestHeaders,
    LimitRequestLine,
    NoMoreData,
    ObsoleteFolding,
    UnsupportedTransferCoding,
)
from gunicorn.workers.gthread import ThreadWorker as _ThreadWorker

from service.runner.linger import linger

log = logging.getLogger(__name__)

PROBLEM_BASE = "https://tabletop.dev/problems/"
"""As ``service.http.problems.PROBLEM_BASE`` (not imported: this module loads in the
gunicorn master, before the workers patch anything)."""

API_CSP = "default-src 'none'; frame-ancestors 'none'"
DOCS_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"

SECURITY_HEADERS: dict[str, str] = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": API_CSP,
    "Referrer-Policy": "no-referrer",
}
"""The headers every answer carries, the app's (``service.http.security``) and this
server's own; see ``service.http.security`` for why each."""

CODES: tuple[tuple[type[BaseException], int, str, str], ...] = (
    (LimitRequestLine, 414, "request_line_too_long", "the request line is too long"),
    (LimitRequestHeaders, 431, "headers_too_large", "too many or too large request headers"),
    (InvalidRequestLine, 400, "invalid_request_line", "the request line is not valid HTTP"),
    (InvalidRequestMethod, 400, "invalid_request_line", "the request method is not valid"),
    (InvalidHTTPVersion, 400, "invalid_request_line", "the HTTP version is not supported"),
    (InvalidHeaderName, 400, "invalid_header", "a request header name is not valid"),
    (InvalidHeader, 400, "invalid_header", "a request header is not valid"),
    (ObsoleteFolding, 400, "invalid_header", "folded request headers are not accepted"),
    (InvalidChunkSize, 400, "invalid_chunking", "the chunked request body is malformed"),
    (ChunkMissingTerminator, 400, "invalid_chunking", "the chunked request body is malformed"),
    (InvalidChunkExtension, 400, "invalid_chunking", "the chunked request body is malformed"),
    (UnsupportedTransferCoding, 501, "unsupported_transfer_coding", "transfer coding not supported"),
)
"""Server-layer rejections: exception -> (status, stable code, detail). The detail is
fixed text: never an echo of what the client sent."""

REASONS = {400: "Bad Request", 408: "Request Timeout", 414: "URI Too Long",
           431: "Request Header Fields Too Large", 500: "Internal Server Error",
           501: "Not Implemented"}

BODY_TIMEOUT_KEY = "tabletop.body_timeout_s"


def problem_bytes(status: int, code: str, detail: str) -> bytes:
    """A complete HTTP/1.1 answer with a problem+json body; the connection closes."""
    body = json.dumps(
        {
            "type": PROBLEM_BASE + code,
            "title": code.replace("_", " ").capitalize(),
            "status": status,
            "detail": detail,
            "code": code,
        },
        separators=(",", ":"),
    ).encode()
    head = [
        f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}",
        "Connection: close",
        "Content-Type: application/problem+json",
        f"Content-Length: {len(body)}",
        "Cache-Control: no-store",
        *(f"{name}: {value}" for name, value in SECURITY_HEADERS.items()),
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


def classify(exc: BaseException) -> tuple[int, str, str]:
    """Status, code and detail of a server-layer error (500 ``internal_error`` if unknown)."""
    for kind, status, code, detail in CODES:
        if isinstance(exc, kind):
            return status, code, detail
    return 500, "internal_error", "an unexpected error occurred; it has been logged"


def _without_server_header(default_headers: Callable[[Any], list[str]]) -> Callable[[Any], list[str]]:
    def headers(self: Any) -> list[str]:
        return [line for line in default_headers(self) if not line.startswith("Server:")]

    headers.__wrapped__ = default_headers  # type: ignore[attr-defined]
    return headers


def drop_server_header() -> None:
    """Make gunicorn's responses leave out ``Server: gunicorn`` (no banner). Idempotent."""
    response = gunicorn_wsgi.Response
    if not hasattr(response.default_headers, "__wrapped__"):
        response.default_headers = _without_server_header(response.default_headers)  # type: ignore[method-assign]


def raise_open_file_limit() -> tuple[int, int]:
    """Raise this process's soft open-file limit to its hard limit (every idle stream is
    a descriptor); returns (soft, hard) afterwards. Never fails: logs instead."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as error:
            log.warning("could not raise the open-file limit to %s: %s", target, error)
    return soft, hard


class _Hardened:
    """What both worker classes share (a mixin over gunicorn's ``Worker``)."""

    cfg: Any
    log: Any
    wsgi: Any

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        status, code, detail = classify(exc)
        if status >= 500:
            self.log.exception("error handling request")
        else:
            self.log.debug("refused at the HTTP layer: %s (%s)", code, type(exc).__name__)
        try:
            client.sendall(problem_bytes(status, code, detail))
        except OSError:
            return
        linger(client)  # the request is unread: let the client read the answer first

    def _harden(self) -> None:
        drop_server_header()
        from service.settings import Settings

        settings = Settings.from_env()
        self.header_timeout_s = settings.header_timeout_s
        self.wsgi = BodyDeadline(self.wsgi, settings.body_timeout_s)


class BodyDeadline:
    """WSGI middleware: the request body must be read within ``timeout_s`` of the first
    read. The deadline covers all reads together (a client trickling a byte at a time
    cannot stretch it); past it the read raises werkzeug's ``RequestTimeout`` (408,
    which the API answers as problem+json) and the connection closes after that answer
    (``_DeadlineInput._give_up``)."""

    def __init__(self, app: Callable[..., Iterable[bytes]], timeout_s: float) -> None:
        self.app = app
        self.timeout_s = timeout_s

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if self.timeout_s > 0 and environ.get("wsgi.input") is not None:
            environ["wsgi.input"] = _DeadlineInput(
                environ["wsgi.input"], self.timeout_s, environ.get("gunicorn.socket")
            )
        return self.app(environ, start_response)


class _DeadlineInput:
    def __init__(self, body: Any, timeout_s: float, sock: socket.socket | None) -> None:
        self._body = body
        self._timeout_s = timeout_s
        self._sock = sock
        self._deadline: float | None = None

    def _call(self, method: str, *args: Any) -> Any:
        now = time.monotonic()
        if self._deadline is None:
            self._deadline = now + self._timeout_s
        remaining = self._deadline - now
        if remaining <= 0:
            self._expire()
        try:
            return _bounded(remaining, getattr(self._body, method), *args, sock=self._sock)
        except _Expired:
            self._expire()
        except _BAD_BODY as error:
            # gunicorn parses chunked bodies lazily, inside the app's read: a malformed
            # one is the client's fault, not a 500.
            from service.http.problems import Problem

            self._give_up()
            status, code, detail = classify(error)
            raise Problem(status, code, detail) from None
        except NoMoreData:
            from werkzeug.exceptions import ClientDisconnected

            raise ClientDisconnected() from None

    def _give_up(self) -> None:
        """The rest of the body is never read: the connection ends after the answer.
        Under gevent the worker closes it then, lingering (``GeventWorker.handle_request``);
        under gthread reading is shut down, which ends gunicorn's keep-alive loop."""
        if self._sock is None:
            return
        if _gevent_module():
            GIVEN_UP.add(id(self._sock))
            return
        try:
            self._sock.shutdown(socket.SHUT_RD)
        except OSError:
            pass

    def _expire(self) -> Any:
        from werkzeug.exceptions import RequestTimeout

        self._give_up()
        raise RequestTimeout(f"the request body did not arrive within {self._timeout_s:g} s")

    def read(self, size: int | None = None) -> bytes:
        return self._call("read", size) if size is not None else self._call("read")  # type: ignore[no-any-return]

    def readline(self, size: int | None = None) -> bytes:
        return self._call("readline", size) if size is not None else self._call("readline")  # type: ignore[no-any-return]

    def readlines(self, hint: int | None = None) -> list[bytes]:
        return self._call("readlines", hint) if hint is not None else self._call("readlines")  # type: ignore[no-any-return]

    def __iter__(self) -> _DeadlineInput:
        return self

    def __next__(self) -> bytes:
        line = self.readline()
        if not line:
            raise StopIteration
        return line


_BAD_BODY = (InvalidChunkSize, ChunkMissingTerminator, InvalidChunkExtension)


class _Expired(Exception):
    pass


GIVEN_UP: set[int] = set()
"""``id`` of each gevent connection whose request body was given up on (past its deadline,
malformed chunks): its worker closes it after the answer, lingering. Why not shut reading
down, as under gthread: a socket shut for reading cannot wait for the client's end, and
bytes the client sends meanwhile would turn the close into a reset."""

_gevent: Any = None
"""The gevent module if this process's sockets are gevent's, else False (set on first use,
i.e. during a request, after a gevent worker has patched)."""


def _gevent_module() -> Any:
    """The gevent module if this process's sockets are gevent's, else False."""
    global _gevent
    if _gevent is None:
        from gevent import monkey

        _gevent = __import__("gevent") if monkey.is_module_patched("socket") else False
    return _gevent


def _bounded(seconds: float, call: Callable[..., Any], *args: Any, sock: Any = None) -> Any:
    """``call(*args)``, cut off after ``seconds`` (:class:`_Expired`). Under gevent a
    Timeout covers every socket read inside ``call``; otherwise (gthread) each read of
    ``sock`` is bounded by ``seconds`` instead, and the caller checks the total."""
    gevent = _gevent_module()
    if gevent:
        timer = gevent.Timeout(seconds, _Expired)
        timer.start()
        try:
            return call(*args)
        finally:
            timer.close()
    if sock is None:
        return call(*args)
    previous = sock.gettimeout()
    sock.settimeout(seconds)
    try:
        return call(*args)
    except TimeoutError:
        raise _Expired() from None
    finally:
        sock.settimeout(previous)


class ThreadWorker(_Hardened, _ThreadWorker):  # type: ignore[misc]
    """gunicorn's ``gthread`` worker, hardened (the old model; a thread per open request)."""

    def init_process(self) -> None:
        raise_open_file_limit()
        super().init_process()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        self._harden()


ACCEPT_PAUSE_S = 0.0005
"""Seconds a gevent worker of several stops accepting after each connection it accepted."""


def _taking_turns_server() -> type:
    """gevent's ``StreamServer`` that pauses accepting for :data:`ACCEPT_PAUSE_S` after
    each connection, for servers with several worker processes.

    Why: the workers share one listening socket and race for every connection, and a
    kept-alive connection stays with the worker that won it. Without a pause a burst
    of connections (clients starting together) often went *all* to one worker while
    the other idled (measured: 32 of 32 client connections on one worker in several
    runs of ``bench.protocol_bench``), so one core did the work of two. With it, a
    worker that just accepted leaves the next connection to the others; if none takes
    it within the pause, it accepts it itself (a new connection waits at most that long).
    """
    from gevent.server import StreamServer

    class TakingTurnsServer(StreamServer):  # type: ignore[misc]
        def do_handle(self, *args: Any) -> None:
            super().do_handle(*args)
            if self.started:
                self.stop_accepting()
                self._timer = self.loop.timer(ACCEPT_PAUSE_S)
                self._timer.start(self._start_accepting_if_started)

    return TakingTurnsServer


def _gevent_worker() -> type:
    from gunicorn.workers import ggevent
    from gunicorn.workers.ggevent import GeventWorker as _GeventWorker

    class GeventWorker(_Hardened, _GeventWorker):  # type: ignore[misc, valid-type]
        """gunicorn's gevent worker, hardened: the default."""

        header_timeout_s = 5.0

        def init_process(self) -> None:
            raise_open_file_limit()
            super().init_process()  # patches (gevent.monkey.patch_all), then loads the app

        def load_wsgi(self) -> None:
            super().load_wsgi()
            self._harden()

        def run(self) -> None:
            if self.cfg.workers > 1:
                # gunicorn's run() builds its StreamServer from this module global (it sets
                # max_accept = 1 there too): take turns with the other workers.
                ggevent.StreamServer = _taking_turns_server()
            super().run()

        def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> Any:
            # After an answer that ends the connection (``Connection: close``, HTTP/1.0, a
            # body given up on: GIVEN_UP) the body may be unread, as after a 413 or a 408:
            # a lingering close keeps the answer readable.
            closing = False
            try:
                kept = super().handle_request(listener_name, req, sock, addr)
            except StopIteration:
                closing = True
            finally:
                if GIVEN_UP:  # empty but after a body given up on: one check per request
                    closing = closing or id(sock) in GIVEN_UP
                    GIVEN_UP.discard(id(sock))
            if not closing:
                return kept
            linger(sock)
            raise StopIteration()

        def timeout_ctx(self) -> Any:
            # gunicorn uses this around reading each request's line and headers (and the
            # idle wait before a kept-alive connection's next request): a silent expiry
            # ends the keep-alive loop and closes the connection.
            import gevent

            return gevent.Timeout(self.header_timeout_s, False)

    GeventWorker.__qualname__ = "GeventWorker"
    GeventWorker.__module__ = __name__
    return GeventWorker


def __getattr__(name: str) -> Any:
    # Built on first use, so that importing this module does not import gevent's worker
    # (gunicorn loads the class by name in the master: "service.runner.server.GeventWorker").
    if name == "GeventWorker":
        cls = _gevent_worker()
        globals()["GeventWorker"] = cls
        return cls
    raise AttributeError(name)
