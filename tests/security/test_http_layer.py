"""The HTTP server layer: its own rejections, banners, security headers, /metrics.

Findings (issue 11, item 7): the HTTP server's own rejections were HTML pages,
``Server: gunicorn`` was sent, no answer carried ``nosniff`` or frame protection, and
``/metrics`` was public and unlimited.
"""

from __future__ import annotations

import threading

import pytest
from rawhttp import RawAnswer, connect, exchange, parse
from support.http_games import HttpApi, create_game, seat_everyone
from support.live_server import LiveServer

SECURITY_HEADERS = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}


def assert_hardened(headers: dict[str, str]) -> None:
    """Security headers present, no ``Server`` banner (``headers``: any case)."""
    lower = {name.lower(): value for name, value in headers.items()}
    for name, value in SECURITY_HEADERS.items():
        assert lower.get(name) == value, (name, lower)
    assert "frame-ancestors 'none'" in lower.get("content-security-policy", ""), lower
    assert "server" not in lower, lower


SERVER_LAYER_ATTACKS = [
    pytest.param(b"GARBAGE\r\n\r\n", 400, "invalid_request_line", id="bad-request-line"),
    pytest.param(b"GET /healthz HTTP/9.9\r\n\r\n", 400, "invalid_request_line", id="bad-version"),
    pytest.param(
        b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        414,
        "request_line_too_long",
        id="long-request-line",
    ),
    pytest.param(
        b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
        + b"".join(b"X-H%d: v\r\n" % i for i in range(120))
        + b"\r\n",
        431,
        "headers_too_large",
        id="too-many-headers",
    ),
    pytest.param(
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: v\r\n\r\n",
        400,
        "invalid_header",
        id="bad-header-name",
    ),
    pytest.param(
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
        b"Content-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
        400,
        "invalid_chunking",
        id="bad-chunk-size",
    ),
]


@pytest.mark.parametrize(("request_bytes", "status", "code"), SERVER_LAYER_ATTACKS)
def test_server_layer_rejections_are_problem_json(
    secure_server: LiveServer, request_bytes: bytes, status: int, code: str
) -> None:
    answer: RawAnswer = exchange(secure_server.url, request_bytes)
    assert answer.status == status, answer
    problem = answer.problem()
    assert problem["code"] == code
    assert problem["type"].endswith("/" + code)
    assert b"<html" not in answer.body.lower()
    assert_hardened(answer.headers)


UNREAD_REQUESTS = [
    pytest.param(b"GET /" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, id="long-request-line"),
    pytest.param(
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: " + b"a" * 1_000_000 + b"\r\n\r\n", 431, id="huge-header"
    ),
    pytest.param(
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
        b"Content-Length: 2000000\r\n\r\n" + b" " * 2_000_000,
        413,
        id="body-over-the-cap-then-close",
    ),
]


@pytest.mark.parametrize(("request_bytes", "status"), UNREAD_REQUESTS)
def test_an_answer_given_before_the_request_was_read_reaches_the_client(
    secure_server: LiveServer, request_bytes: bytes, status: int
) -> None:
    # Closing a socket with the client's bytes unread sends a reset, not a clean end: a
    # client still sending its request then reads "connection reset", not the answer.
    # The server lingers: the answer, then the end of the stream, however much is unread.
    with connect(secure_server.url) as sock:
        failures: list[OSError] = []

        def send() -> None:
            try:
                sock.sendall(request_bytes)
            except OSError as error:  # the server stopped reading: a reset on this side too
                failures.append(error)

        sender = threading.Thread(target=send)
        sender.start()
        chunks = []
        while chunk := sock.recv(65536):  # ConnectionResetError here fails the test
            chunks.append(chunk)
        sender.join()
    answer = parse(b"".join(chunks))
    assert answer.status == status and answer.problem()["status"] == status
    assert not failures, failures


def test_no_server_banner_and_security_headers_on_success(api: HttpApi) -> None:
    for path in ("/healthz", "/readyz", "/v1/games", "/openapi.yaml"):
        reply = api.call("GET", path)
        assert reply.status == 200, (path, reply.status)
        assert_hardened(reply.headers)


def test_security_headers_on_error_answers(api: HttpApi) -> None:
    answers = [
        api.call("GET", "/nowhere"),  # 404 of the router
        api.call("GET", "/v1/games/NoSuchGame01"),  # 404 of the application
        api.call("DELETE", "/healthz"),  # 405
        api.call("POST", "/v1/games", body={"game": 1}),  # 422
        api.call("GET", "/healthz", headers={"Authorization": "Basic x"}),  # 200 or 401
    ]
    for reply in answers:
        assert_hardened(reply.headers)
    assert {reply.status for reply in answers[:4]} == {404, 405, 422}


def test_docs_page_still_renders_under_its_policy(api: HttpApi) -> None:
    reply = api.call("GET", "/docs")
    assert reply.status == 200
    assert_hardened(reply.headers)
    csp = reply.headers["Content-Security-Policy"]
    # The page styles itself inline and loads nothing else.
    assert "style-src 'unsafe-inline'" in csp and "default-src 'none'" in csp
    assert "<style>" in reply.body


def test_metrics_need_the_admin_token(api: HttpApi, secure_server: LiveServer) -> None:
    admin_token = secure_server.env["TABLETOP_ADMIN_TOKEN"]
    game_id = create_game(api, "schlitzohr", 2)
    seat_token = seat_everyone(api, game_id, 2)[0]
    anonymous = api.call("GET", "/metrics")
    assert anonymous.status == 401 and anonymous.body["code"] == "unauthenticated"
    assert "tabletop_" not in str(anonymous.body)
    as_seat = api.call("GET", "/metrics", token=seat_token)
    assert as_seat.status == 403 and as_seat.body["code"] == "forbidden"
    as_admin = api.call("GET", "/metrics", token=admin_token)
    assert as_admin.status == 200 and "tabletop_http_requests_total" in as_admin.body
    assert_hardened(as_admin.headers)


def test_workers_patch_before_the_app_is_imported(secure_server: LiveServer) -> None:
    """gevent warns when it patches after modules took unpatched references (ssl, via
    redis-py): the master imports nothing of the app, so no worker may warn."""
    assert secure_server.process is not None and secure_server.process.poll() is None
    assert "MonkeyPatchWarning" not in secure_server.log_text()
