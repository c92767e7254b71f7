"""``service.runner.pid``: the process id from memory, right in a forked child too."""

from __future__ import annotations

import os

from service.runner import pid


def test_current_is_the_process_id_here_and_in_a_forked_child() -> None:
    assert pid.current() == os.getpid()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child reports whether its id from memory is its own
        os.write(write, b"1" if pid.current() == os.getpid() != pid.os.getppid() else b"0")
        os._exit(0)
    os.close(write)
    answer = os.read(read, 1)
    os.waitpid(child, 0)
    os.close(read)
    assert answer == b"1"
