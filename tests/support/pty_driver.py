"""Drive a terminal program through a pseudo-terminal, as a person at a keyboard would.

``PtyProcess`` starts a command with its stdin, stdout and stderr on the slave side
of a new pty (120 x 50, so rich draws colour and does not wrap), reads everything it
prints, and ``expect`` waits for a regex in the text seen since the last match, ANSI
escapes removed. ``raw`` keeps the bytes as printed (colour codes included).
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Mapping, Sequence

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\r")


class PtyProcess:
    def __init__(self, argv: Sequence[str], env: Mapping[str, str], cwd: str | None = None) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
        self.process = subprocess.Popen(
            list(argv),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)
        self.master = master
        self.raw = b""
        self.text = ""
        self._seen = 0

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: the program exited and the pty closed
            data = b""
        if not data:
            raise EOFError(f"the program ended; its last output:\n{self.text[-3000:]}")
        self.raw += data
        self.text = ANSI.sub("", self.raw.decode(errors="replace"))
        return True

    def expect(self, patterns: Sequence[str], timeout: float = 60.0) -> tuple[int, re.Match[str]]:
        """The index of the first of ``patterns`` that shows up after the last match,
        and its match. AssertionError if none does within ``timeout`` (a hang guard)."""
        compiled = [re.compile(p) for p in patterns]
        deadline = time.monotonic() + timeout
        while True:
            found = [
                (m.start(), i, m)
                for i, c in enumerate(compiled)
                if (m := c.search(self.text, self._seen))
            ]
            if found:
                _, index, match = min(found, key=lambda f: f[0])
                self._seen = match.end()
                return index, match
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"none of {patterns} within {timeout} s; last output:\n{self.text[-3000:]}"
                )
            self._read(min(left, 1.0))

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def wait(self, timeout: float = 30.0) -> int:
        """The exit code, reading the rest of the output meanwhile."""
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            try:
                self._read(0.2)
            except EOFError:
                break
        return self.process.wait(max(0.1, deadline - time.monotonic()))

    def kill(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()

    def close(self) -> None:
        if self.process.poll() is None:
            self.kill()
        os.close(self.master)
