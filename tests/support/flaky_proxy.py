"""A TCP proxy that cuts connections, as a flaky network would.

``FlakyProxy(target_port, budget)`` listens on a free local port and forwards every
connection to ``127.0.0.1:target_port``. ``budget(n)`` says how many bytes of the
server's answer the n-th connection (0-based) may pass to the client before the proxy
hangs up both sides (None: no limit). With a budget of 0 the request still reaches
the server and is answered, but the answer is lost: exactly the case a client must
retry with the same ``Idempotency-Key``.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from typing import Self


class FlakyProxy:
    def __init__(self, target_port: int, budget: Callable[[int], int | None]) -> None:
        self.target_port = target_port
        self.budget = budget
        self.connections = 0
        self.cut = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._closed = True
        self._listener.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            budget = self.budget(self.connections)
            self.connections += 1
            server = socket.create_connection(("127.0.0.1", self.target_port))
            threading.Thread(target=self._pipe, args=(client, server, None), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client, budget), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, budget: int | None) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if budget is not None and len(data) >= budget:
                    if budget:
                        sink.sendall(data[:budget])
                    self.cut += 1
                    break
                if budget is not None:
                    budget -= len(data)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
