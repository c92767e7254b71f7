"""Errors of the application layer, each with a stable code. No HTTP here:
``service/http/problems.py`` maps them (and the engine's RuleViolation) to statuses."""

from __future__ import annotations

from typing import Any


class AppError(Exception):
    """Base class: ``code`` is stable and public, ``message`` for people, ``details`` JSON-safe."""

    code = "app_error"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class GameNotFound(AppError):
    code = "game_not_found"


class Unauthenticated(AppError):
    """No token, or a token that matches no seat of this game."""

    code = "unauthenticated"


class Forbidden(AppError):
    """A valid caller who may not do this (e.g. a spectator sending a command)."""

    code = "forbidden"


class StaleVersion(AppError):
    """The caller acted on another version than the game's current one."""

    code = "version_conflict"

    def __init__(self, message: str, current_version: int) -> None:
        super().__init__(message, current_version=current_version)
        self.current_version = current_version


class VersionRequired(AppError):
    """A command must say which version it acted on."""

    code = "version_required"


class IdempotencyMismatch(AppError):
    """An idempotency key reused for another command or caller."""

    code = "idempotency_key_reused"


class TooManyOpenGames(AppError):
    """The client already has as many open games as it may (``TABLETOP_MAX_OPEN_GAMES_PER_CLIENT``);
    ``retry_after_s``: until its oldest open game expires."""

    code = "too_many_open_games"

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class TooManyUnfinishedGames(AppError):
    """The client already has as many unfinished games as it may
    (``TABLETOP_MAX_UNFINISHED_GAMES_PER_CLIENT``); ``retry_after_s``: until its oldest
    running game could expire as idle at the earliest."""

    code = "too_many_unfinished_games"

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class InviteRequired(AppError):
    """Joining an invite-only game without its invite code, or with a wrong one (403;
    the same answer for both: ``service.app.invites``)."""

    code = "invite_required"


class NotFinished(AppError):
    """Something only a finished game has (a complete export, the seed)."""

    code = "game_not_finished"


# -- accounts (issue 15) -------------------------------------------------------------


class NameRegistered(AppError):
    """Registering a name that, or a confusable spelling of which, is registered (409)."""

    code = "name_registered"


class ServerBusy(AppError):
    """Work that must wait its turn could not get it in time (503, ``Retry-After``):
    e.g. registrations, which take turns (``service.accounts.store``)."""

    code = "server_busy"
    retry_after_s = 1


class NameReserved(AppError):
    """A guest asking for a seat under a registered name or a look-alike of one (409)."""

    code = "name_reserved"


class NameRequired(AppError):
    """A guest taking a seat without a name (422): only a player key brings its own
    name. A state of the caller, not of the body: the same body is valid with a key."""

    code = "name_required"


class AlreadySeated(AppError):
    """A registered player already holds a seat of this game: one seat per account
    and game, so a player key always names exactly one seat (409)."""

    code = "already_seated"


class NotSeated(AppError):
    """A player key used for a game where its account holds no seat (403)."""

    code = "not_seated"


class NotAPlayer(AppError):
    """An endpoint for registered players called without a player key (401)."""

    code = "player_key_required"
