"""Every stable problem ``code`` the API answers with, and its HTTP status.

The codes of the HTTP layer are listed here by hand (``tests/unit/test_contract_generated.py``
finds every literal code in ``service/`` and requires it here); the rule-violation codes
of the engines and the table are collected from their modules (always 422).
"""

from __future__ import annotations

from types import ModuleType

from engine import errors as engine_errors
from engine import table, turnclock
from engine.abluxxen import codes as abluxxen_codes
from engine.schlitzohr import errors as schlitzohr_errors

HTTP_CODES: dict[str, tuple[tuple[int, ...], str]] = {
    "bad_request": ((400,), "the request cannot be read (e.g. a body on a request without one)"),
    "malformed_json": ((400,), "the body is not one JSON value"),
    "invalid_encoding": ((400,), "the body is not UTF-8 (or has a byte order mark)"),
    "duplicate_key": ((400,), "an object in the body names a key twice"),
    "invalid_parameter": ((400,), "a query parameter is unknown, repeated or invalid"),
    "invalid_header": ((400,), "If-Match, Idempotency-Key, Last-Event-ID or a header is invalid"),
    "version_mismatch": ((400,), "If-Match and expected_version name different versions"),
    "invalid_request_line": ((400,), "the request line is not valid HTTP (connection closed)"),
    "invalid_chunking": ((400,), "a chunked body is malformed (connection closed)"),
    "unauthenticated": ((401,), "no token where one is needed, or one that holds no seat"),
    "invalid_ticket": ((401,), "a stream ticket that is unknown, used, expired or another game's"),
    "forbidden": ((403,), "a valid caller who may not do this"),
    "not_found": ((404,), "no such endpoint"),
    "game_not_found": ((404,), "no game has this id"),
    "player_not_found": ((404,), "no such player"),
    "unknown_bot_level": ((404,), "no such bot level (ratings)"),
    "player_key_required": ((401,), "an endpoint of registered players called without a player key"),
    "not_seated": ((403,), "a player key used for a game where its account holds no seat"),
    "invite_required": ((403,), "a seat of an invite-only game taken without its invite code, or with a wrong one"),
    "name_registered": ((409,), "the name, or a look-alike of it, is registered"),
    "name_reserved": ((409,), "a guest asked for a registered name or a look-alike of one, or anyone for a bot seat's name (`<level>-bot-<digits>`) or a look-alike of one"),
    "already_seated": ((409,), "the account holds a seat of this game already"),
    "unknown_game": ((404, 422), "no such game type (catalogue: 404; create: 422)"),
    "method_not_allowed": ((405,), "the method is not allowed on this path"),
    "request_timeout": ((408,), "the body did not arrive in time"),
    "version_conflict": ((409,), "the game is not at the version the request acted on"),
    "game_not_finished": ((409,), "verification, or a rematch, of a game that has not finished"),
    "body_too_large": ((413,), "the body is larger than the server accepts"),
    "request_line_too_long": ((414,), "the request line is too long"),
    "unsupported_media_type": ((415,), "the body is not application/json"),
    "invalid_body": ((422,), "unknown, missing or mistyped fields (errors per field)"),
    "name_required": ((422,), "a guest took a seat without a name (a player key brings its own)"),
    "idempotency_key_reused": ((422,), "the same Idempotency-Key with another command"),
    "version_out_of_range": ((422,), "`at` names a version the game does not have, or a long poll waits or a stream resumes after one (`details.head`)"),
    "version_required": ((428,), "a command must name its version"),
    "rate_limited": ((429,), "too many requests per minute"),
    "create_rate_limited": ((429,), "too many game creations per minute"),
    "verify_rate_limited": ((429,), "too many verifications per minute"),
    "replay_rate_limited": ((429,), "too many replays (`at`, exports) per minute"),
    "ticket_rate_limited": ((429,), "too many stream tickets per minute"),
    "too_many_streams": ((429,), "too many open streams and long polls for this client"),
    "too_many_open_games": ((429,), "too many open games for this client"),
    "too_many_unfinished_games": ((429,), "too many unfinished games (open or running) created by this client"),
    "headers_too_large": ((431,), "too many or too large headers"),
    "internal_error": ((500,), "a bug on our side; logged, nothing disclosed"),
    "unsupported_transfer_coding": ((501,), "a transfer coding the server does not support"),
    "store_unavailable": ((503,), "the event store does not answer"),
    "store_full": ((503,), "the event store is full and refuses writes"),
    "store_unwritable": ((503,), "the event store cannot persist writes now (a full or failing disk, a replica); nothing was written"),
    "not_ready": ((503,), "readiness: Redis does not answer a PING within 2 s (down, hung, loading, or refusing it while it cannot persist)"),
    "server_busy": ((503,), "the server holds as many streams and long polls as it may, or registrations are busy"),
}
"""Codes of the HTTP and application layers: statuses and what they mean."""

RULE_MODULES: tuple[ModuleType, ...] = (
    engine_errors, table, turnclock, schlitzohr_errors, abluxxen_codes
)
"""Modules whose upper-case string constants ending in a code are rule-violation codes."""

_RULE_CONSTANT_NAMES = {
    engine_errors: None,  # every constant
    table: ("_CODE", "NO_FREE_SEAT", "GAME_ALREADY_STARTED", "GAME_NOT_STARTED",
            "BAD_PLAYER_NAME", "NAME_TAKEN"),
    turnclock: ("INVALID_CLOCK", "TIMED_OUT"),
    schlitzohr_errors: None,
    abluxxen_codes: None,
}


def rule_codes() -> dict[str, str]:
    """Rule-violation codes (422) of the engines and the table -> the module that defines it."""
    out: dict[str, str] = {}
    for module, names in _RULE_CONSTANT_NAMES.items():
        for name, value in vars(module).items():
            if not name.isupper() or not isinstance(value, str):
                continue
            if names is not None and not any(name == n or name.endswith(n) for n in names):
                continue
            out[value] = module.__name__
    out.setdefault("invalid_seat", table.__name__)
    return out


def all_codes() -> dict[str, tuple[tuple[int, ...], str]]:
    """Every code -> (its statuses, a short meaning), sorted by first status then code."""
    table_: dict[str, tuple[tuple[int, ...], str]] = dict(HTTP_CODES)
    for code, module in rule_codes().items():
        if code not in table_:
            table_[code] = ((422,), f"a rule violation ({module.replace('.', '/')}.py)")
    return dict(sorted(table_.items(), key=lambda item: (item[1][0][0], item[0])))
