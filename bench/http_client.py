"""A minimal asyncio HTTP/1.1 client for the protocol bench: one keep-alive connection.

Why not a library: the load generator shares two cores with the servers it
measures, so it must spend as little CPU per request as possible and the same for
every endpoint; this one writes a request in one ``write`` and reads the answer by
``Content-Length`` (or chunks), nothing else. It speaks only to our own servers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


class Connection:
    """One keep-alive HTTP/1.1 connection; requests go strictly one after the other."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def _open(self) -> None:
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)

    async def request(
        self, method: str, path: str, headers: Mapping[str, str] | None = None, body: bytes = b""
    ) -> Answer:
        """Send one request and read its whole answer (reconnects once if the server
        closed the idle connection)."""
        if self._writer is None:
            await self._open()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        if body or method in ("POST", "PUT"):
            lines.append(f"Content-Length: {len(body)}")
        data = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        try:
            return await self._exchange(data)
        except (ConnectionError, asyncio.IncompleteReadError):
            await self.close()
            await self._open()
            return await self._exchange(data)

    async def _exchange(self, data: bytes) -> Answer:
        assert self._reader is not None and self._writer is not None
        self._writer.write(data)
        head = await self._reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        headers: dict[str, str] = {}
        for line in header_lines:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            body = await self._reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding") == "chunked":
            body = await self._chunks()
        else:
            body = b""
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return Answer(status, headers, body)

    async def _chunks(self) -> bytes:
        assert self._reader is not None
        parts: list[bytes] = []
        while True:
            size = int((await self._reader.readline()).split(b";")[0], 16)
            if size == 0:
                await self._reader.readline()
                return b"".join(parts)
            parts.append(await self._reader.readexactly(size))
            await self._reader.readline()

    async def stream(self, path: str, headers: Mapping[str, str]) -> int:
        """Open an event stream and read it until cancelled or closed; returns bytes read."""
        await self._open()
        assert self._reader is not None and self._writer is not None
        lines = [f"GET {path} HTTP/1.1", f"Host: {self.host}", "Accept: text/event-stream"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        self._writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        read = 0
        try:
            while chunk := await self._reader.read(65536):
                read += len(chunk)
        finally:
            await self.close()
        return read

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
            self._reader = None
