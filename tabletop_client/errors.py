"""Typed exceptions for the API's problem answers (``application/problem+json``).

Every refusal of the server carries a stable ``code``; :func:`error_for` turns an
answer into the most specific exception class, so callers can ``except`` what they
handle and let the rest rise. The classes are keyed by status first, then by code
(a 422 rule violation is :class:`RuleRefused` whatever its rule code).
"""

from __future__ import annotations

from typing import Any

import requests


class TabletopError(Exception):
    """The server refused a request. ``status`` is the HTTP status, ``code`` the
    stable problem code (e.g. ``not_your_turn``), ``detail`` the human sentence,
    ``problem`` the whole problem document (``errors``/``details`` may add context)."""

    def __init__(self, status: int, code: str, detail: str, problem: dict[str, Any]) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.problem = problem


class BadRequest(TabletopError):
    """400: the request could not be read as meant (a client bug)."""


class Unauthorized(TabletopError):
    """401 ``unauthenticated``: no token where one is needed, or not a token of this game."""


class Forbidden(TabletopError):
    """403 ``forbidden``: a valid caller who may not do this."""


class NotFound(TabletopError):
    """404: no such game (``game_not_found``), game type, player or endpoint."""


class Conflict(TabletopError):
    """409: the request clashes with the game's state (e.g. ``game_not_finished``)."""


class StaleVersion(Conflict):
    """409 ``version_conflict``: the command named an old version; nothing was written.
    ``current_version`` is where the game is now."""

    def __init__(self, status: int, code: str, detail: str, problem: dict[str, Any]) -> None:
        super().__init__(status, code, detail, problem)
        self.current_version = int(problem.get("current_version", 0))


class RuleRefused(TabletopError):
    """422: well-formed but not allowed now -- a rule violation with the engine's or
    the table's code (``not_your_turn``, ``seat_taken``, ...) or ``invalid_body``."""


class RateLimited(TabletopError):
    """429: too many requests (``rate_limited``, ``create_rate_limited``,
    ``too_many_streams``, ...). ``retry_after`` is the seconds to wait."""

    def __init__(
        self, status: int, code: str, detail: str, problem: dict[str, Any], retry_after: float
    ) -> None:
        super().__init__(status, code, detail, problem)
        self.retry_after = retry_after


class Unavailable(TabletopError):
    """503: the store or the server is busy or down; try again after ``retry_after``."""

    def __init__(
        self, status: int, code: str, detail: str, problem: dict[str, Any], retry_after: float
    ) -> None:
        super().__init__(status, code, detail, problem)
        self.retry_after = retry_after


_BY_STATUS: dict[int, type[TabletopError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    422: RuleRefused,
}


def _retry_after(response: requests.Response) -> float:
    try:
        return max(0.0, float(response.headers.get("Retry-After", "1")))
    except ValueError:
        return 1.0


def error_for(response: requests.Response) -> TabletopError:
    """The exception for an error answer. A body that is not a problem document
    (a proxy's HTML page, say) still gives a :class:`TabletopError` with code ``http_<status>``."""
    status = response.status_code
    try:
        problem = response.json()
    except ValueError:
        problem = None
    if not isinstance(problem, dict):
        problem = {"status": status, "code": f"http_{status}", "detail": response.text[:200]}
    code = str(problem.get("code") or f"http_{status}")
    detail = str(problem.get("detail") or response.reason or "")
    if status in (409, 412) and code == "version_conflict":  # 412: If-Match failed, if ever
        return StaleVersion(status, code, detail, problem)
    if status == 429:
        return RateLimited(status, code, detail, problem, _retry_after(response))
    if status == 503:
        return Unavailable(status, code, detail, problem, _retry_after(response))
    return _BY_STATUS.get(status, TabletopError)(status, code, detail, problem)
