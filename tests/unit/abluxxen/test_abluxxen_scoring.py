"""Scoring, the tie-break and several rounds (rules: End and scoring)."""

from __future__ import annotations

from abluxxen_positions import position, step, types

from engine.abluxxen.game import GAME
from engine.abluxxen.scoring import deal_scores, winners
from engine.abluxxen.state import PLAY
from engine.playout import play
from engine.rng import SeededRandom

LAST = {"kind": "play", "number": 8, "count": 1, "jokers": 0}


def test_row_cards_score_plus_one_hand_cards_minus_one_values_ignored() -> None:
    s = position(
        hands={0: [1, 2], 1: [13, 13, 13], 2: []},
        rows={0: [(13, 2, 1), (None, 0, 2)], 1: [(1, 1, 0)], 2: []},
    )
    assert deal_scores(s) == (5 - 2, 1 - 3, 0)
    assert GAME.scores(s) == (3, -2, 0)


def test_scores_so_far_add_the_running_deal_to_finished_deals() -> None:
    s = position(hands={0: [1], 1: [2, 3]}, players=2, banked=[4, -1])
    assert GAME.scores(s) == (3, -3)


def test_tie_break_fewer_cards_in_hand_then_shared_win() -> None:
    assert winners([3, 3, 1], [2, 1, 0]) == (1,)
    assert winners([3, 3, 1], [1, 1, 0]) == (0, 1)
    assert winners([0, 5, 5, 5], [0, 4, 2, 2]) == (2, 3)


def test_shared_win_at_game_end() -> None:
    s = position(hands={0: [8], 1: [4]}, rows={1: [(3, 2, 0)], 2: [(2, 1, 0)]})
    s, events = step(s, 0, LAST)
    assert events[-1].data["scores"] == [1, 1, 1]
    assert events[-1].data["winners"] == [0, 2]  # seats 0 and 2 hold no card; seat 1 holds one


class RecordingRandom(SeededRandom):
    """A seeded source that remembers the purposes it was asked for."""

    def __init__(self) -> None:
        super().__init__(b"record", GAME.rules_version)
        self.purposes: list[str] = []

    def randbelow(self, n: int, purpose: str) -> int:
        self.purposes.append(purpose)
        return super().randbelow(n, purpose)


def test_next_round_reshuffles_all_cards_and_start_moves_clockwise() -> None:
    s = position(
        hands={0: [8], 1: [4, 4]}, rows={1: [(3, 2, 0)]}, rounds=2, start_seat=2, active=0, turn=9
    )
    recorder = RecordingRandom()
    events = GAME.decide(s, 0, LAST, recorder)
    assert types(events) == ["SetPlayed", "DealEnded", "DeckShuffled"] + ["HandDealt"] * 3 + [
        "DisplayDealt"
    ]
    assert events[1].data == {
        "round": 1,
        "reason": "last_card_played",
        "deal_scores": [1, 0, 0],
        "hand_sizes": [0, 2, 0],
        "scores": [1, 0, 0],
    }
    assert events[2].data == {"round": 2, "start_seat": 0, "size": 109}
    assert recorder.purposes and all(p.startswith("deal2/shuffle/") for p in recorder.purposes)
    for e in events:
        s = GAME.evolve(s, e)
    assert (s.round, s.start_seat, s.active, s.phase, s.turn) == (2, 0, 0, PLAY, 10)
    assert s.rows == ((), (), ()) and sum(s.discard) == 0
    assert [sum(h) for h in s.hands] == [13, 13, 13]
    assert s.banked == (1, 0, 0) and s.banked_hand_cards == (0, 2, 0)
    assert GAME.scores(s) == (1 - 13, -13, -13)
    assert GAME.is_material_conserved(s)


def test_last_round_adds_scores_and_tie_break_counts_hand_cards_of_all_deals() -> None:
    s = position(
        hands={0: [8], 1: [4, 4]},
        rows={1: [(3, 2, 0)], 2: [(2, 1, 0)]},
        rounds=2,
        round_no=2,
        banked=[0, 1, 0],
        banked_hand_cards=[3, 0, 1],
    )
    s, events = step(s, 0, LAST)
    assert types(events) == ["SetPlayed", "DealEnded", "GameEnded"]
    # deal 2: [1, 0, 1]; totals [1, 1, 1]; hand cards over both deals [3, 2, 1]
    assert events[-1].data == {
        "reason": "last_card_played",
        "scores": [1, 1, 1],
        "winners": [2],
        "turns": 1,
    }
    assert GAME.result(s).winners == (2,)


def test_playout_of_three_rounds_adds_deal_scores_and_rotates_the_start() -> None:
    done = play(GAME, 4, b"three-rounds", {"rounds": 3})
    deals = [e for e in done.events if e.type == "DealEnded"]
    shuffles = [e for e in done.events if e.type == "DeckShuffled"]
    assert [e.data["round"] for e in deals] == [1, 2, 3]
    assert [e.data["start_seat"] for e in shuffles] == [0, 1, 2]
    assert len({tuple(e.private["order"]) for e in shuffles}) == 3
    totals = [sum(e.data["deal_scores"][seat] for e in deals) for seat in range(4)]
    assert list(done.result.scores) == totals == deals[-1].data["scores"]
    assert done.events[-1].type == "GameEnded"
    assert done.result.turns == sum(1 for e in done.events if e.type == "SetPlayed")
