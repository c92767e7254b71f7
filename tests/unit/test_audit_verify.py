"""Verification of whole histories (pure: sealed lists of stored envelopes, no Redis).

Every kind of tampering must be caught at the right version with the right kind:
an edit without re-sealing by the chain; an edit whose author re-hashed the whole
chain by the seed commitment or the re-run of the rules and the random outcomes.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable
from typing import Any

import pytest
from support.audit import LiveGame, live_game, rehash, seal_batches, seed_of

from events.audit.history import to_lines
from events.audit.report import Report
from events.audit.verify import verify_history, verify_lines
from events.model.records import commitment

CONFIGS = [("schlitzohr", n) for n in (2, 3, 4)] + [("abluxxen", n) for n in (2, 3, 4, 5)]
GAMES = ["schlitzohr", "abluxxen"]
History = list[dict[str, Any]]


@functools.cache
def _played(game: str, players: int, persons: int, seed: str) -> tuple[LiveGame, tuple[str, ...]]:
    live = live_game(game, players, seed_of(seed), persons=persons)
    return live, tuple(to_lines(seal_batches(f"{game}-{players}", live)))


def history(game: str, players: int = 3, persons: int = 1, seed: str = "audit") -> History:
    """A fresh (mutable) sealed history of a finished game."""
    return [json.loads(line) for line in _played(game, players, persons, seed)[1]]


def index_of(
    items: History, kind: str, where: Callable[[dict[str, Any]], bool] = lambda e: True
) -> int:
    return next(i for i, e in enumerate(items) if e["type"] == kind and where(e))


def edited(items: History, index: int, change: Callable[[dict[str, Any]], None]) -> History:
    out = copy.deepcopy(items)
    change(out[index])
    return out


def failure(report: Report) -> tuple[int, str]:
    assert report.discrepancy is not None, "expected a discrepancy"
    return report.discrepancy.version, report.discrepancy.kind


# -- honest histories ------------------------------------------------------------------


@pytest.mark.parametrize("game,players", CONFIGS)
@pytest.mark.parametrize("persons,seed", [(0, "a"), (1, "b"), (2, "c")])
def test_export_then_verify_passes_for_every_game_and_player_count(
    game: str, players: int, persons: int, seed: str
) -> None:
    live, lines = _played(game, players, min(persons, players), seed)
    report = verify_lines(list(lines))
    assert report.ok, report.discrepancy
    assert report.events == len(lines) == len(live.tables)
    assert report.commands == sum(1 for b in live.batches if b.command is not None)
    assert report.result == live.tables[-1].state.result.to_json()
    assert report.to_json()["ok"] is True and report.to_json()["discrepancy"] is None


def test_lines_may_come_as_bytes_with_blank_lines_and_served_markers() -> None:
    items = history("abluxxen")
    served = [json.dumps({**e, "redacted": False}).encode() for e in items]
    assert verify_lines([b"", *served, b"  "]).ok


# -- tampering caught by the chain -----------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_an_edited_event_breaks_the_chain_at_its_version(game: str) -> None:
    items = history(game)
    at = index_of(items, "PlayStarted") + 3
    tampered = edited(items, at, lambda e: e.update(time="2030-01-01T00:00:00.000000Z"))
    assert failure(verify_history(tampered)) == (at + 1, "chain")


@pytest.mark.parametrize("game", GAMES)
def test_a_dropped_event_breaks_the_chain_at_its_version(game: str) -> None:
    items = history(game)
    del items[40]
    assert failure(verify_history(items)) == (41, "chain")


@pytest.mark.parametrize("game", GAMES)
def test_reordered_events_break_the_chain_at_the_first_moved_one(game: str) -> None:
    items = history(game)
    items[50], items[51] = items[51], items[50]
    assert failure(verify_history(items)) == (51, "chain")


@pytest.mark.parametrize("game", GAMES)
def test_an_edited_score_without_resealing_breaks_the_chain(game: str) -> None:
    items = history(game)
    at = index_of(items, "GameEnded")
    tampered = edited(items, at, lambda e: e["data"]["scores"].__setitem__(0, 99))
    assert failure(verify_history(tampered)) == (at + 1, "chain")


# -- the seed ----------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("reseal", [False, True])
def test_a_swapped_seed_is_caught(game: str, reseal: bool) -> None:
    items = history(game)
    tampered = edited(items, -1, lambda e: e["data"].update(seed=seed_of("another")))
    expected = "commitment" if reseal else "chain"
    assert failure(verify_history(rehash(tampered) if reseal else tampered)) == (
        len(items),
        expected,
    )


@pytest.mark.parametrize("game,first_random", [("schlitzohr", 2), ("abluxxen", 3)])
def test_a_consistent_fake_seed_is_caught_by_the_first_random_outcome(
    game: str, first_random: int
) -> None:
    fake = seed_of("forged")
    items = edited(history(game), 0, lambda e: e["data"].update(commitment=commitment(fake)))
    items[-1]["data"]["seed"] = fake
    report = verify_history(rehash(items))
    assert failure(report) == (first_random, "random_outcome")
    assert "the revealed seed gives" in report.discrepancy.message  # type: ignore[union-attr]


# -- random outcomes, re-sealed ---------------------------------------------------------


@pytest.mark.parametrize("reseal", [False, True])
def test_a_changed_die_value_is_caught(reseal: bool) -> None:
    items = history("schlitzohr")
    at = index_of(items, "DieRolled", lambda e: e["data"]["purpose"] == "turn")
    value = items[at]["data"]["value"]
    tampered = edited(items, at, lambda e: e["data"].update(value=value % 6 + 1))
    report = verify_history(rehash(tampered) if reseal else tampered)
    assert failure(report) == (at + 1, "random_outcome" if reseal else "chain")
    if reseal:
        message = report.discrepancy.message  # type: ignore[union-attr]
        assert message.startswith(f"DieRolled: data.value is {value % 6 + 1} in the history")
        assert message.endswith(f"the revealed seed gives {value}")


@pytest.mark.parametrize("reseal", [False, True])
def test_a_changed_deck_order_is_caught(reseal: bool) -> None:
    items = history("abluxxen")
    at = index_of(items, "DeckShuffled")
    order = items[at]["private"]["order"]
    j = next(j for j in range(1, len(order)) if order[j] != order[0])

    def swap(e: dict[str, Any]) -> None:
        o = e["private"]["order"]
        o[0], o[j] = o[j], o[0]

    report = verify_history(rehash(edited(items, at, swap)) if reseal else edited(items, at, swap))
    assert failure(report) == (at + 1, "random_outcome" if reseal else "chain")


def test_changed_ear_colours_are_a_random_outcome() -> None:
    items = history("schlitzohr")
    colours = items[1]["private"]["colours"]
    j = next(j for j in range(1, 16) if colours[j] != colours[0])
    tampered = edited(items, 1, lambda e: e["private"]["colours"].__setitem__(j, colours[0]))
    assert failure(verify_history(rehash(tampered))) == (2, "random_outcome")


def test_a_changed_pile_card_is_a_random_outcome() -> None:
    items = history("abluxxen", seed="pile")
    at = index_of(items, "CardDrawn", lambda e: e["data"]["from"] == "pile")
    card = items[at]["private"]["card"]
    other = 1 if card != 1 else 2
    tampered = edited(items, at, lambda e: e["private"].update(card=other))
    assert failure(verify_history(rehash(tampered))) == (at + 1, "random_outcome")


# -- rules and scores, re-sealed --------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_a_changed_score_is_caught_as_a_score(game: str) -> None:
    items = history(game)
    at = index_of(items, "GameEnded")
    tampered = edited(items, at, lambda e: e["data"]["scores"].__setitem__(0, 99))
    report = verify_history(rehash(tampered))
    assert failure(report) == (at + 1, "score")
    assert "data.scores[0] is 99" in report.discrepancy.message  # type: ignore[union-attr]


def test_a_changed_winner_is_caught_as_a_score() -> None:
    items = history("abluxxen")
    at = index_of(items, "GameEnded")
    players = len(items[at]["data"]["scores"])
    winners = [s for s in range(players) if s not in items[at]["data"]["winners"]][:1]
    tampered = edited(items, at, lambda e: e["data"].update(winners=winners))
    assert failure(verify_history(rehash(tampered))) == (at + 1, "score")


def test_a_move_to_another_field_is_a_rules_discrepancy() -> None:
    items = history("schlitzohr")
    at = index_of(items, "EarMoved")
    target = "a1" if items[at]["data"]["to"] != "a1" else "b1"
    tampered = edited(items, at, lambda e: e["data"].update(to=target))
    report = verify_history(rehash(tampered))
    assert failure(report) == (at + 1, "rules")
    assert "data.to" in report.discrepancy.message  # type: ignore[union-attr]


@pytest.mark.parametrize("game", GAMES)
def test_an_illegal_command_is_refused_by_the_rules(game: str) -> None:
    items = history(game)
    at = index_of(items, "PlayStarted") + 1
    tampered = edited(items, at, lambda e: e.update(command={"kind": "fly"}))
    report = verify_history(rehash(tampered))
    assert failure(report) == (at + 1, "rules")
    assert "refuse" in report.discrepancy.message  # type: ignore[union-attr]


@pytest.mark.parametrize("game", GAMES)
def test_a_dropped_event_in_a_resealed_history_is_caught_by_the_rules(game: str) -> None:
    items = history(game)
    at = index_of(items, "PlayStarted") + 30
    del items[at]
    version, kind = failure(verify_history(rehash(items)))
    assert version == at + 1 and kind in ("rules", "random_outcome")


@pytest.mark.parametrize("game", GAMES)
def test_an_event_nobody_commanded_is_a_rules_discrepancy(game: str) -> None:
    items = history(game)
    at = index_of(items, "PlayStarted") + 1
    tampered = edited(items, at, lambda e: e.update(command=None))
    assert failure(verify_history(rehash(tampered))) == (at + 1, "rules")


def test_a_command_by_the_system_is_a_rules_discrepancy() -> None:
    items = history("abluxxen")
    at = index_of(items, "PlayStarted") + 1
    tampered = edited(items, at, lambda e: e.update(actor={"kind": "system"}))
    assert failure(verify_history(rehash(tampered))) == (at + 1, "rules")


def test_a_command_for_another_seat_is_a_rules_discrepancy() -> None:
    items = history("schlitzohr", players=2, persons=0)
    at = index_of(items, "PlayStarted") + 1
    seat = items[at]["actor"]["seat"]
    tampered = edited(items, at, lambda e: e["actor"].update(seat=1 - seat))
    assert failure(verify_history(rehash(tampered))) == (at + 1, "rules")


# -- table events ----------------------------------------------------------------------


def test_play_started_before_every_seat_is_taken_is_a_rules_discrepancy() -> None:
    items = history("abluxxen", players=3, persons=2)
    at = index_of(items, "SeatTaken", lambda e: e["actor"]["kind"] == "seat")
    early = copy.deepcopy(items[at])
    early.update(type="PlayStarted", data={}, private=None, visible_to=[])
    tampered = [*items[:at], early, *items[at:]]
    assert failure(verify_history(rehash(tampered))) == (at + 1, "rules")


def test_taking_a_taken_seat_is_a_rules_discrepancy() -> None:
    items = history("schlitzohr", players=3, persons=1)
    at = index_of(items, "SeatLeft")
    tampered = edited(
        items, at, lambda e: e.update(type="SeatTaken", data={"seat": 2, "name": "x", "bot": None})
    )
    tampered[at]["actor"] = {"kind": "seat", "seat": 2}
    assert failure(verify_history(rehash(tampered))) == (at + 1, "rules")


def test_a_seat_taken_for_someone_else_is_a_rules_discrepancy() -> None:
    items = history("schlitzohr", players=2, persons=2)
    at = index_of(items, "SeatTaken", lambda e: e["actor"]["kind"] == "seat")
    tampered = edited(items, at, lambda e: e["actor"].update(seat=1))
    assert failure(verify_history(rehash(tampered))) == (at + 1, "rules")


def test_events_after_the_seed_reveal_are_a_discrepancy() -> None:
    items = history("schlitzohr")
    extra = copy.deepcopy(items[-1])
    version, kind = failure(verify_history(rehash([*items[:-1], extra, items[-1]])))
    assert (version, kind) == (len(items) + 1, "rules")


def test_other_rules_or_options_are_refused() -> None:
    items = history("schlitzohr")
    old = edited(items, 0, lambda e: e["data"].update(rules_version="schlitzohr/0"))
    assert failure(verify_history(rehash(old))) == (1, "rules")
    partial = edited(items, 0, lambda e: e["data"]["options"].pop("turn_cap"))
    assert failure(verify_history(rehash(partial))) == (1, "rules")


# -- unfinished and malformed input ------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_an_unfinished_history_cannot_be_verified(game: str) -> None:
    items = history(game)[:-1]  # a truncated file: the chain of what is left holds
    report = verify_history(items)
    assert failure(report) == (len(items) + 1, "structure")
    assert "without SeedRevealed" in report.discrepancy.message  # type: ignore[union-attr]


GARBAGE = [
    ([], 1, "holds no events"),
    (["not json"], 1, "not JSON"),
    (["[1, 2]"], 1, "not a JSON object"),
    (['{"version": 1}'], 1, "not a stored event"),
    ([b"\xff\xfe"], 1, "not UTF-8"),
    (['{"a": NaN}'], 1, "not JSON"),
]


@pytest.mark.parametrize("lines,version,words", GARBAGE)
def test_garbage_gets_a_structure_report_not_a_traceback(
    lines: list[Any], version: int, words: str
) -> None:
    report = verify_lines(lines)
    assert failure(report) == (version, "structure")
    assert words in report.discrepancy.message  # type: ignore[union-attr]


def test_a_broken_line_is_named_by_its_version() -> None:
    lines = list(to_lines(history("abluxxen")))
    lines[7] = lines[7][:-5]
    assert failure(verify_lines(lines)) == (8, "structure")


def test_a_redacted_export_is_refused_with_a_clear_message() -> None:
    items = history("schlitzohr")
    lines = [json.dumps({**e, "private": None, "redacted": True}) for e in items]
    report = verify_lines(lines)
    assert failure(report)[1] == "structure"
    assert "redacted" in report.discrepancy.message  # type: ignore[union-attr]


def test_an_unknown_game_or_event_type_is_a_structure_discrepancy() -> None:
    items = history("schlitzohr")
    chess = edited(items, 0, lambda e: e["data"].update(game="chess"))
    assert failure(verify_history(rehash(chess))) == (1, "structure")
    odd = edited(items, 5, lambda e: e.update(type="Teleported"))
    assert failure(verify_history(rehash(odd))) == (6, "structure")
