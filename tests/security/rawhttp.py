"""Raw HTTP/1.1 over a socket, for attacks no HTTP client library would send."""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

READ_TIMEOUT_S = 30.0
"""A generous bound on one read (never an assertion about speed)."""


@dataclass
class RawAnswer:
    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes

    def problem(self) -> dict[str, Any]:
        assert self.headers.get("content-type", "").startswith("application/problem+json"), self
        document: dict[str, Any] = json.loads(self.body)
        assert document["status"] == self.status
        return document


def address(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or 80


def connect(url: str, source: str | None = None) -> socket.socket:
    """A TCP connection to the server of ``url`` (from ``source``, a loopback address)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if source is not None:
        sock.bind((source, 0))
    sock.settimeout(READ_TIMEOUT_S)
    sock.connect(address(url))
    return sock


def read_all(sock: socket.socket) -> bytes:
    """Everything until the server closes the connection -- cleanly: a reset
    (``ConnectionResetError``) fails the caller, as the server lingers after an answer
    it gave before reading the whole request (``service.runner.linger``)."""
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def parse(raw: bytes) -> RawAnswer:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return RawAnswer(status, headers, body)


def exchange(url: str, request: bytes) -> RawAnswer:
    """Send ``request`` as it is, read the answer up to the close."""
    with connect(url) as sock:
        sock.sendall(request)
        return parse(read_all(sock))
