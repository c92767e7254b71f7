"""The server's bot seats: their levels, and the names the server gives them.

A bot seat is named ``<level>-bot-<seat>`` (``greedy-bot-1``) when its game is created.
That form is the server's own name space: no guest may take a seat under a name of
that form and no one may register one -- for any level and any number of digits, and
for look-alikes too (compared as registered names are: case, compatibility forms and
confusable spellings, ``events.accounts.names``) -- so a person can never pass for one
of the server's bots in a lobby, a view or a history. A seat's ``bot`` field says what
sits there; its name is what people read.

Accounts registered under such a name before the form was reserved keep working: only
new registrations and new guest seats are refused.
"""

from __future__ import annotations

import re
from functools import cache

from events.accounts.names import lookalike_skeletons, skeleton
from service.app.errors import NameReserved

BOT_LEVELS = ("random", "greedy", "strong")
"""The bot levels a seat may be given (``engine.ai`` plays them), cheapest first."""


def bot_seat_name(level: str, seat: int) -> str:
    """The name the server gives the bot of ``level`` at ``seat`` (``greedy-bot-1``)."""
    return f"{level}-bot-{seat}"


@cache  # a few ICU skeletons, once per process
def _form() -> re.Pattern[str]:
    # A skeleton maps character by character, so the skeleton of "<level>-bot-<digits>" is
    # the skeleton of its prefix followed by the skeletons of its digits ("1" reads as "l").
    prefixes = "|".join(re.escape(skeleton(bot_seat_name(level, 0)[:-1])) for level in BOT_LEVELS)
    digits = "|".join(sorted({re.escape(skeleton(d)) for d in "0123456789"}, key=len, reverse=True))
    return re.compile(f"(?:{prefixes})(?:{digits})+")


def is_bot_seat_name(name: str) -> bool:
    """Whether ``name`` (as ``engine.table.player_name`` gives it) has, or looks like it
    has, the form of a bot seat's name: a bot level, ``-bot-``, then digits."""
    form = _form()
    return any(form.fullmatch(s) for s in lookalike_skeletons(name))


def refuse_bot_seat_name(name: str) -> None:
    """NameReserved (409 ``name_reserved``) if :func:`is_bot_seat_name`: the one refusal
    for guests taking a seat and for registrations."""
    if is_bot_seat_name(name):
        raise NameReserved("names like <level>-bot-<seat>, and look-alikes, belong to the server's bots")
