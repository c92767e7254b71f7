"""``service.locks``: the OS's lock under gevent, where the play path takes one per request.

Each scenario runs in a fresh interpreter: gevent's monkey-patching cannot be undone in
the test process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={**os.environ, **env},
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_section_lock_is_the_os_lock_under_gevent_and_excludes_real_threads() -> None:
    out = _run(
        """
from gevent import monkey
monkey.patch_all()
import threading
from service.locks import section_lock

lock = section_lock()
native = type(monkey.get_original("_thread", "allocate_lock")())
print(type(lock) is native, type(threading.Lock()) is native)
start_new_thread = monkey.get_original("_thread", "start_new_thread")
held, tried = monkey.get_original("_thread", "allocate_lock")(), []
lock.acquire()
held.acquire()
start_new_thread(lambda: (tried.append(lock.acquire(blocking=False)), held.release()), ())
held.acquire()  # the OS thread has tried
lock.release()
print(tried)
"""
    )
    assert out.splitlines() == ["True False", "[False]"]


def test_without_gevent_a_section_lock_is_an_ordinary_lock() -> None:
    out = _run(
        """
import threading
from service.locks import section_lock
lock = section_lock()
print(type(lock) is type(threading.Lock()), lock.acquire(blocking=False), lock.acquire(blocking=False))
"""
    )
    assert out == "True True False"


def test_multiprocess_metrics_count_under_an_os_lock_and_leave_the_module_as_it_was() -> None:
    with tempfile.TemporaryDirectory() as metrics_dir:
        out = _run(
            """
from gevent import monkey
monkey.patch_all()
import threading
from prometheus_client import values
from service.http import metrics

native = type(monkey.get_original("_thread", "allocate_lock")())
cells = [c.cell_contents for c in values.ValueClass.inc.__closure__ or ()]
print(any(type(c) is native for c in cells), values.Lock is threading.Lock)
metrics.count_command("schlitzohr")
print(metrics.COMMANDS.labels("schlitzohr")._value.get())
""",
            PROMETHEUS_MULTIPROC_DIR=metrics_dir,
        )
    assert out.splitlines() == ["True True", "1.0"]
