"""Redis refusing a write: which error replies mean "the store is up, wrote nothing, and
takes no writes now".

Redis answers a write it will not do with an error reply and does nothing else:

- ``OOM command not allowed when used memory > 'maxmemory'``: full memory under
  ``noeviction`` (the store's policy: it refuses writes rather than evict history);
- ``MISCONF ...``: it cannot persist -- the AOF cannot be written (a full or failing
  disk) or a configured RDB snapshot failed; writes resume by themselves once a write
  to disk succeeds again (and ``PING`` is refused meanwhile too);
- ``READONLY ...``: it is a replica (say, right after a failover).

A script gets the reply at its first write, quoted in its own error (``Error running
script ... -MISCONF ...``): the store's append script writes only after all its checks,
so a refused append wrote nothing. A pipeline quotes it too (``Command # 1 (...) of
pipeline caused error: MISCONF ...``).
"""

from __future__ import annotations

import re
from enum import Enum

from redis.exceptions import OutOfMemoryError, ReadOnlyError, RedisError


class Refusal(Enum):
    """Why Redis refused a write."""

    FULL = "full"
    """Out of memory (``noeviction``)."""
    UNWRITABLE = "unwritable"
    """It cannot persist (``MISCONF``) or is a read-only replica (``READONLY``)."""


_REPLY = re.compile(r"(?:^|[\s:(-])(OOM command not allowed|MISCONF|READONLY)\b")
"""The error codes above, at the start of the reply or quoted inside a script's or a
pipeline's error."""


def write_refusal(error: BaseException) -> Refusal | None:
    """The refusal ``error`` reports, or None for any other error (or a non-Redis one)."""
    if isinstance(error, OutOfMemoryError):
        return Refusal.FULL
    if isinstance(error, ReadOnlyError):
        return Refusal.UNWRITABLE
    if not isinstance(error, RedisError):
        return None
    found = _REPLY.search(str(error))
    if found is None:
        return None
    return Refusal.FULL if found.group(1).startswith("OOM") else Refusal.UNWRITABLE
