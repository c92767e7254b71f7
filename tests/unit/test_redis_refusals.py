"""Which Redis errors are refused writes (``events.redis_adapter.refusals``)."""

from __future__ import annotations

import pytest
from redis.exceptions import ConnectionError, OutOfMemoryError, ReadOnlyError, ResponseError

from events.redis_adapter.refusals import Refusal, write_refusal

MISCONF = "MISCONF Errors writing to the AOF file: No space left on device"


@pytest.mark.parametrize(
    ("error", "refusal"),
    [
        (OutOfMemoryError("command not allowed when used memory > 'maxmemory'."), Refusal.FULL),
        (ResponseError("Error running script (call to f_1): @user_script:89: -OOM command not allowed when used memory > 'maxmemory'."), Refusal.FULL),
        (ResponseError(MISCONF), Refusal.UNWRITABLE),
        (ResponseError(f"Error running script (call to f_1): @user_script:89: @user_script: 89: -{MISCONF}"), Refusal.UNWRITABLE),
        (ResponseError(f"Command # 1 (INCRBY k 1) of pipeline caused error: {MISCONF}"), Refusal.UNWRITABLE),
        (ReadOnlyError("You can't write against a read only replica."), Refusal.UNWRITABLE),
        (ResponseError("Error running script: -READONLY You can't write against a read only replica."), Refusal.UNWRITABLE),
        (ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value"), None),
        (ResponseError("ERR unknown command 'MISCONFIGURE'"), None),
        (ResponseError("ERR a value named MISCONFIGURED"), None),
        (ConnectionError("Connection refused"), None),
        (ValueError(MISCONF), None),  # not a Redis error at all
    ],
)
def test_refused_writes_are_told_from_other_errors(error: BaseException, refusal: Refusal | None) -> None:
    assert write_refusal(error) is refusal
