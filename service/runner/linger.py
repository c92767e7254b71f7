"""Closing a connection without losing the answer: a lingering close (RFC 9112, 9.6).

When the server answers before it has read the whole request -- a request line or
headers too large (414, 431), a body over the cap (413) on a connection that closes --
and then closes the socket with the client's bytes still unread, the kernel sends a
reset (RST) instead of a clean end (FIN). A client still sending, or one whose kernel
receives the reset before it has read the answer, then sees "connection reset" instead
of the clear 4xx problem the server wrote; on a lossy network the answer's segments
cannot even be sent again, the socket being gone.

:func:`linger` half-closes the socket (the client reads the answer, then the end) and
reads and drops what the client still sends, until it closes its side -- a well-behaved
client does at once -- or :data:`LINGER_S` pass or :data:`LINGER_BYTES` arrive; the
caller closes the socket after it. Under gevent the wait parks the connection's
greenlet (no thread); the bounds keep a client from holding the connection longer.

Imports nothing of the app: the gunicorn master loads ``service.runner.server``.
"""

from __future__ import annotations

import socket
import time

LINGER_S = 2.0
"""Longest wait for the client to close its side after the answer."""

LINGER_BYTES = 4 << 20
"""Most request bytes read and dropped after the answer (then the socket closes anyway)."""

_READ = 65536


def linger(sock: socket.socket) -> None:
    """Half-close ``sock`` after its last answer and drain its input within the bounds
    above. Never raises: a socket already closed or reset ends it at once."""
    try:
        sock.shutdown(socket.SHUT_WR)
        deadline = time.monotonic() + LINGER_S
        drained = 0
        while drained < LINGER_BYTES:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            sock.settimeout(remaining)
            data = sock.recv(_READ)
            if not data:
                return
            drained += len(data)
    except OSError:  # includes the timeout
        return
