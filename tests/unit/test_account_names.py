"""The name key of accounts: confusable spellings collide, different names do not."""

from __future__ import annotations

import pytest

from events.accounts.names import lookalike_keys, name_key


@pytest.mark.parametrize(
    "spoof",
    [
        "ALICE",  # case
        "Ａｌｉｃｅ",  # fullwidth (NFKC)
        "\u0430lice",  # Cyrillic а
        "a1ice",  # digit one for l
        "alic\u0435",  # Cyrillic е
        "ali\u0441e",  # Cyrillic с
    ],
)
def test_confusable_spellings_share_the_key(spoof: str) -> None:
    assert name_key(spoof) == name_key("alice")


def test_rn_and_m_and_capital_i_for_l() -> None:
    assert name_key("rnallory") == name_key("mallory")
    assert name_key("paypal") in lookalike_keys("PayPaI")  # capital I, caught before the fold


@pytest.mark.parametrize("other", ["alicia", "bob", "alice2", "al ice"])
def test_different_names_differ(other: str) -> None:
    assert name_key(other) != name_key("alice")


def test_keys_are_hex_digests_whatever_the_name() -> None:
    for name in ["{lobby}", "a:b*c", "ß", "日本"]:
        key = name_key(name)
        assert len(key) == 64 and set(key) <= set("0123456789abcdef")
