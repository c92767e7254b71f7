"""What happens after an append: the projection feed and the bot queue.

Placeholder until the projections' feed and the bot workers land: it notifies
nobody. ``default_notifier`` is what ``service.bootstrap`` wires in.
"""

from __future__ import annotations

from typing import Any

from service.app.application import NoNotifier, Notifier
from service.settings import Settings


def default_notifier(settings: Settings, client: Any) -> Notifier:
    """The notifier of a real deployment."""
    return NoNotifier()
