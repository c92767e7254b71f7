"""Idle and slow connections cannot stop the API (issue 11, item 3).

Findings: every SSE stream and long poll held one of the 2 x 16 gthread threads, so 32
idle streams stopped commands and 200 streams or 50 long polls stopped ``/healthz``;
64 clients trickling their headers did the same. Here hundreds of idle streams and long
polls are held open (the bench, bench/idle_bench.py, holds thousands) while commands
and probes must still be answered; slow clients must be cut off; one client must not
hold more than its share of streams.

Connections come from many loopback source addresses (127.1.x.y), as distinct clients
would: the per-client cap keys anonymous clients by address.
"""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Iterator

import requests
from rawhttp import READ_TIMEOUT_S, RawAnswer, connect, parse, read_all
from support.http_games import HttpApi, create_game, move, seat_everyone

STREAMS = 300
LONG_POLLS = 100
PER_ADDRESS = 4
"""Connections per source address: under the shipped per-client cap."""

HOLD = {"sse_max_s": 120.0, "sse_heartbeat_s": 30.0, "long_poll_max_s": 60.0}
"""Streams and long polls that stay open for the whole test."""


def source(i: int) -> str:
    """The ``i``-th client address (127.1.x.y: loopback, distinct per client)."""
    n = i // PER_ADDRESS
    return f"127.1.{n // 250}.{n % 250 + 1}"


def request_bytes(path: str, headers: dict[str, str] | None = None) -> bytes:
    lines = [f"GET {path} HTTP/1.1", "Host: test"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def read_head(sock: socket.socket) -> tuple[RawAnswer, bytes]:
    """The status and headers of an answer (and the body bytes read with them)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed before an answer: {data!r}"
        data += chunk
    answer = parse(data)
    return answer, answer.body


def open_stream(url: str, game_id: str, i: int) -> tuple[socket.socket, bytes]:
    sock = connect(url, source(i))
    sock.sendall(request_bytes(f"/v1/games/{game_id}/events/stream"))
    answer, body = read_head(sock)
    assert answer.status == 200, answer
    return sock, body


@contextlib.contextmanager
def closing_all(socks: list[socket.socket]) -> Iterator[list[socket.socket]]:
    try:
        yield socks
    finally:
        for sock in socks:
            sock.close()


def test_idle_streams_and_long_polls_leave_commands_and_probes_alone(start_server) -> None:  # type: ignore[no-untyped-def]
    with start_server(**HOLD) as server, requests.Session() as session:
        api = HttpApi(session, server.url)
        played = create_game(api, "schlitzohr", 2)
        tokens = seat_everyone(api, played, 2)
        polled = create_game(api, "schlitzohr", 2)
        poll_tokens = seat_everyone(api, polled, 2)
        poll_version = api.call("GET", f"/v1/games/{polled}").body["version"]
        streams: list[socket.socket] = []
        polls: list[socket.socket] = []
        with closing_all(streams), closing_all(polls):
            for i in range(STREAMS):
                streams.append(open_stream(server.url, played, i)[0])
            for i in range(LONG_POLLS):
                sock = connect(server.url, source(STREAMS + i))
                sock.sendall(
                    request_bytes(f"/v1/games/{polled}?wait=60&after={poll_version}")
                )
                polls.append(sock)
            # Everything is held open now: commands and probes must still be answered.
            for _ in range(5):
                assert api.call("GET", "/healthz").status == 200
                assert api.call("GET", "/readyz").status == 200
                last = move(api, played, tokens)
            # Every stream saw those events...
            for sock in streams:
                seen = b""
                while f"id: {last}\n".encode() not in seen:
                    chunk = sock.recv(65536)
                    assert chunk, "a held stream was closed"
                    seen += chunk
            # ... and one command wakes every long poll with the new version.
            woken = move(api, polled, poll_tokens)
            for sock in polls:
                answer, body = read_head(sock)
                assert answer.status == 200, answer
                length = int(answer.headers["content-length"])
                while len(body) < length:
                    body += sock.recv(65536)
                assert f'"version":{woken}'.encode() in body


def trickle(sock: socket.socket, data: bytes, pause_s: float, steps: int) -> bytes | None:
    """Send ``data`` a byte at a time; stop when the server answers or closes. Returns
    what it sent back (b"" for a bare close), None if it never reacted within ``steps``."""
    for i in range(steps):
        readable, _, _ = select.select([sock], [], [], pause_s)
        if readable:
            return read_all(sock)
        try:
            sock.sendall(data[i % len(data) : i % len(data) + 1])
        except (BrokenPipeError, ConnectionResetError):
            return b""
    return None


def test_slow_header_clients_are_cut_off_and_probes_still_answer(start_server) -> None:  # type: ignore[no-untyped-def]
    with start_server(header_timeout_s=1.0) as server, requests.Session() as session:
        slow = []
        with closing_all(slow):
            for i in range(64):  # as many as stopped /healthz before
                sock = connect(server.url, source(i))
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
                slow.append(sock)
            assert session.get(server.url + "/healthz", timeout=READ_TIMEOUT_S).status_code == 200
            # Each keeps trickling header bytes; the server must hang up on all of them
            # long before they would finish (60 steps of 0.25 s, never a complete header).
            for sock in slow:
                reacted = trickle(sock, b"X-Slow: aaaa\r\n", 0.25, 60)
                assert reacted is not None, "the server kept a header-trickling client"
                assert b"200 OK" not in reacted


def test_slow_body_client_is_cut_off_with_408(start_server) -> None:  # type: ignore[no-untyped-def]
    with start_server(body_timeout_s=1.0) as server:
        with connect(server.url) as sock:
            sock.sendall(
                b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 200\r\n\r\n{\"game\": "
            )
            reacted = trickle(sock, b" ", 0.25, 60)
        assert reacted is not None, "the server kept a body-trickling client"
        answer = parse(reacted)
        assert answer.status == 408
        assert answer.problem()["code"] == "request_timeout"


def test_a_408_reaches_a_client_that_keeps_sending(start_server) -> None:  # type: ignore[no-untyped-def]
    # A client streaming its body does not watch for an early answer: it goes on sending
    # after the 408. Had the server closed at once, those bytes would meet a closed socket
    # and the kernel would reset the connection (read_all fails on a reset), losing the
    # answer. It lingers instead: it drops them, then the client reads the answer and the end.
    with start_server(body_timeout_s=0.5) as server, connect(server.url) as sock:
        sock.sendall(
            b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 10000\r\n\r\n{"
        )
        answered = False
        for _ in range(300):  # a byte every 10 ms until the answer is there (0.5 s expected)
            answered = bool(select.select([sock], [], [], 0.01)[0])
            if answered:
                break
            sock.sendall(b" ")
        assert answered, "the server kept a body-trickling client"
        for _ in range(10):  # ... and a little longer, not having looked
            time.sleep(0.02)
            sock.sendall(b" ")
        answer = parse(read_all(sock))
    assert answer.status == 408 and answer.problem()["code"] == "request_timeout"


def test_per_client_stream_cap_answers_429(start_server) -> None:  # type: ignore[no-untyped-def]
    cap = 3
    with start_server(
        streams_per_client=cap, **{**HOLD, "sse_heartbeat_s": 0.5}
    ) as server, requests.Session() as session:
        api = HttpApi(session, server.url)
        game_id = create_game(api, "schlitzohr", 2)
        tokens = seat_everyone(api, game_id, 2)
        held: list[socket.socket] = []
        with closing_all(held):
            refused: RawAnswer | None = None
            # The cap is per server process (two here): one address is refused at the
            # latest once it holds two processes' worth.
            for _ in range(2 * cap + 1):
                sock = connect(server.url, "127.2.0.1")
                held.append(sock)
                sock.sendall(
                    request_bytes(
                        f"/v1/games/{game_id}/events/stream",
                        # Unverified header text changes nothing: the address counts.
                        {"X-Forwarded-For": f"10.0.0.{len(held)}"},
                    )
                )
                answer, body = read_head(sock)
                if answer.status != 200:
                    length = int(answer.headers["content-length"])
                    while len(body) < length:
                        body += sock.recv(65536)
                    refused = RawAnswer(answer.status, answer.headers, body)
                    break
            assert refused is not None, "one address held more streams than the cap allows"
            assert refused.status == 429
            assert refused.problem()["code"] == "too_many_streams"
            assert int(refused.headers["retry-after"]) > 0
            # A long poll counts against the same budget.
            poll = session.get(
                f"{server.url}/v1/games/{game_id}?wait=1",
                headers={"X-Forwarded-For": "10.9.9.9"},
                timeout=READ_TIMEOUT_S,
            )
            # (requests connects from 127.0.0.1, another client: it is not refused.)
            assert poll.status_code == 200
            # A verified seat has a budget of its own; a bad token gets none.
            bad = connect(server.url, "127.2.0.1")
            held.append(bad)
            bad.sendall(
                request_bytes(
                    f"/v1/games/{game_id}/events/stream", {"Authorization": "Bearer nope"}
                )
            )
            assert read_head(bad)[0].status == 401
            seat = connect(server.url, "127.2.0.1")
            held.append(seat)
            seat.sendall(
                request_bytes(
                    f"/v1/games/{game_id}/events/stream",
                    {"Authorization": f"Bearer {tokens[0]}"},
                )
            )
            assert read_head(seat)[0].status == 200
        # Closed streams give their slots back (the server notices on its next write).
        deadline = time.monotonic() + 60
        while True:
            sock = connect(server.url, "127.2.0.1")
            with sock:
                sock.sendall(request_bytes(f"/v1/games/{game_id}/events/stream"))
                if read_head(sock)[0].status == 200:
                    break
            assert time.monotonic() < deadline, "slots of closed streams were never freed"
            time.sleep(0.5)


def test_the_server_raises_its_open_file_limit_to_the_hard_limit(start_server) -> None:  # type: ignore[no-untyped-def]
    """Every idle stream is a descriptor: a server started under a low soft limit (as
    many systems set 1024) raises it to the hard limit for itself and its workers."""
    import resource

    import psutil

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    low = min(1024, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))
    try:
        with start_server() as server:  # inherits the low soft limit
            assert server.process is not None
            master = psutil.Process(server.process.pid)
            processes = [master, *master.children(recursive=True)]
            assert len(processes) >= 3  # the master and its two workers
            for process in processes:
                assert process.rlimit(psutil.RLIMIT_NOFILE) == (hard, hard)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
