"""Seeded randomness, option validation and the event JSON form."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter

import pytest

from engine.errors import RuleViolation
from engine.model import Event, OptionSpec
from engine.options import validate_options
from engine.rng import SeededRandom, choice, roll_die, shuffled


def test_a_draw_is_hmac_sha256_of_namespace_and_purpose() -> None:
    rng = SeededRandom(b"secret", "game/1")
    digest = hmac.new(b"secret", b"game/1|t3/roll", hashlib.sha256).digest()
    assert rng.randbelow(6, "t3/roll") == int.from_bytes(digest, "big") % 6


def test_draws_depend_on_seed_namespace_and_purpose_only() -> None:
    a = SeededRandom(b"s1", "g/1")
    assert [a.randbelow(1000, f"p{i}") for i in range(20)] == [
        SeededRandom(b"s1", "g/1").randbelow(1000, f"p{i}") for i in range(20)
    ]
    assert [a.randbelow(1000, f"p{i}") for i in range(20)] != [
        SeededRandom(b"s2", "g/1").randbelow(1000, f"p{i}") for i in range(20)
    ]
    assert [a.randbelow(1000, f"p{i}") for i in range(20)] != [
        SeededRandom(b"s1", "g/2").randbelow(1000, f"p{i}") for i in range(20)
    ]


def test_die_rolls_cover_one_to_six_evenly() -> None:
    rng = SeededRandom(b"dice", "test")
    counts = Counter(roll_die(rng, f"r{i}") for i in range(6000))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert all(850 < n < 1150 for n in counts.values()), counts


def test_shuffle_is_a_permutation_and_seed_dependent() -> None:
    items = list(range(109))
    one = shuffled(SeededRandom(b"a", "t"), items, "deal")
    assert sorted(one) == items and one != items
    assert one == shuffled(SeededRandom(b"a", "t"), items, "deal")
    assert one != shuffled(SeededRandom(b"b", "t"), items, "deal")
    assert choice(SeededRandom(b"a", "t"), "xyz", "c") in "xyz"


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        SeededRandom(b"", "t")
    with pytest.raises(ValueError):
        SeededRandom(b"a", "t").randbelow(0, "p")
    with pytest.raises(ValueError):
        choice(SeededRandom(b"a", "t"), [], "p")


SPECS = (
    OptionSpec("rounds", "int", 1, "deals", minimum=1, maximum=5),
    OptionSpec("fast", "bool", False, "flag"),
    OptionSpec("edition", "choice", "amigo", "rules", choices=("amigo", "classic")),
)


def test_defaults_are_filled_in() -> None:
    assert validate_options(SPECS, None) == {"rounds": 1, "fast": False, "edition": "amigo"}
    assert validate_options(SPECS, {"rounds": 5, "edition": "classic"})["rounds"] == 5


@pytest.mark.parametrize(
    "raw",
    [{"rounds": 0}, {"rounds": 6}, {"rounds": True}, {"rounds": "2"}, {"fast": 1},
     {"edition": "deluxe"}, {"colour": "red"}],
)
def test_bad_options_name_the_option(raw: dict[str, object]) -> None:
    with pytest.raises(RuleViolation) as err:
        validate_options(SPECS, raw)
    assert err.value.code == "invalid_option"
    assert err.value.details["option"] == next(iter(raw))


def test_event_redaction_keeps_the_public_part() -> None:
    event = Event("HandDealt", {"seat": 1, "count": 13}, {"cards": [1, 2]}, (1,))
    assert event.redacted_for(1) is event
    hidden = event.redacted_for(0)
    assert hidden.private is None and hidden.data == event.data
    assert event.redacted_for(None).private is None
    assert Event.from_json(event.to_json()) == event
    public = Event("DieRolled", {"value": 6})
    assert public.redacted_for(None) is public and "private" not in public.to_json()
