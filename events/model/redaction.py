"""Redaction: an event as one viewer may see it. Every read path goes through here.

Viewers: a seat (``int``), :data:`SPECTATOR`, :data:`AUDITOR` or :data:`ADMIN`.

Exact semantics:

- **Finished game** (a ``GameEnded`` event is stored): every viewer sees every
  event in full -- after the end the whole history is public.
- **Running game**, per event:

  ============  ===========================================  =========================
  viewer        ``private`` (the hidden facts)               ``command``
  ============  ===========================================  =========================
  seat ``s``    kept iff ``s`` is in ``visible_to``          kept iff ``s`` sent it
  spectator     removed                                      removed
  auditor       removed (an auditor is a spectator until     removed
                the end: audits need the revealed seed)
  admin         kept (operators, and the server itself       kept
                loading state for the engine)
  ============  ===========================================  =========================

  The ``command`` is withheld from everyone but its sender while the game runs
  (house rule, conservative): its public consequences are already in the events'
  ``data``, and this way no game needs to prove that its commands reveal nothing.

A redacted event keeps its version, type, actor, ``visible_to`` (who saw
something is public), ``prev_hash``, ``hash`` and -- seal 2 -- ``private_digest``
and ``command_digest``, so a viewer's sequence stays gap-free. Removed parts become
``None`` and ``redacted`` is set. Under seal 2 the redacted form still verifies
link by link (the hash does not cover the hidden parts, only their digests, which
are keyed by the secret seed: nothing kept lets a viewer test a guess); the removed
parts are checked against their digests after the end. A seal-1 event's hash covers
its hidden parts: it verifies only on the full export (and exposes them to guessing,
see ``docs/audit.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from events.model.envelope import ENVELOPE_FIELDS, SEAL2_FIELDS, Envelope


@dataclass(frozen=True, slots=True)
class Spectator:
    """Someone watching without a seat."""


@dataclass(frozen=True, slots=True)
class Auditor:
    """Someone checking a history; ``admin`` ones see everything at any time."""

    admin: bool = False


Viewer = int | Spectator | Auditor

SPECTATOR = Spectator()
AUDITOR = Auditor()
ADMIN = Auditor(admin=True)


def sees_everything(viewer: Viewer, game_finished: bool) -> bool:
    """Whether ``viewer`` sees every event in full, without looking at the events."""
    return game_finished or (isinstance(viewer, Auditor) and viewer.admin)


def redact(envelope: Envelope, viewer: Viewer, game_finished: bool) -> Envelope:
    """``envelope`` as ``viewer`` may see it (the same object when nothing is hidden).

    Raises TypeError for a viewer that is none of the kinds above (a bool is not a seat).
    """
    if sees_everything(viewer, game_finished):
        return envelope
    keep_private, keep_command = _kept(
        viewer, envelope.visible_to, envelope.actor, envelope.private, envelope.command
    )
    if keep_private and keep_command:
        return envelope
    return replace(
        envelope,
        private=envelope.private if keep_private else None,
        command=envelope.command if keep_command else None,
        redacted=True,
    )


def served_form(stored: Mapping[str, Any], viewer: Viewer, game_finished: bool) -> dict[str, Any]:
    """A stored (and upcast) event as ``viewer`` is served it: exactly
    ``redact(Envelope.from_stored(stored), viewer, game_finished).to_json()`` -- the same
    keys, values and key order -- by the same rule (:func:`_kept`), without building
    the two envelopes.

    Why: a live stream serves every event it is handed this way, and the envelopes
    (construction, ``dataclasses.replace``, ``to_json``) were most of its per-event
    CPU (``docs/bench-rounds.md``, *Fourteenth round*); ``tests/unit/test_redaction.py``
    checks both paths agree. Raises TypeError for a viewer of no known kind."""
    names = ENVELOPE_FIELDS if stored.get("seal", 1) == 1 else SEAL2_FIELDS
    out = {name: stored.get(name) for name in names}
    redacted = False
    if not sees_everything(viewer, game_finished):
        keep_private, keep_command = _kept(
            viewer, out["visible_to"] or (), out["actor"] or {}, out["private"], out["command"]
        )
        if not keep_private:
            out["private"], redacted = None, True
        if not keep_command:
            out["command"], redacted = None, True
    out["redacted"] = redacted
    return out


def _kept(
    viewer: Viewer, visible_to: Sequence[int], actor: Mapping[str, Any], private: Any, command: Any
) -> tuple[bool, bool]:
    """Whether ``viewer`` keeps an event's ``private`` and ``command`` while the game runs
    (the table in the module docstring; an absent part is trivially kept)."""
    seat = _seat_of(viewer)
    keep_private = private is None or (seat is not None and seat in visible_to)
    keep_command = command is None or (seat is not None and actor.get("seat") == seat)
    return keep_private, keep_command


def _seat_of(viewer: Viewer) -> int | None:
    if type(viewer) is int:
        return viewer
    if isinstance(viewer, (Spectator, Auditor)):
        return None
    raise TypeError(f"not a viewer: {viewer!r}")
