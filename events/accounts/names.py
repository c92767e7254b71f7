"""The key a player name is reserved under: one key for every spelling that looks alike.

``name_key(name)`` = SHA-256 of the UTS #39 confusable *skeleton* of the name's
NFKC case fold (``NFKC(casefold(NFKC(name)))``), as ICU computes it (PyICU's
``SpoofChecker.getSkeleton``, from the ``pyicu-wheels`` build); ICU ships the Unicode
consortium's ``confusables.txt`` and keeps it current with each Unicode release -- we
do not maintain a table).
So these collide with ``alice``: ``ALICE`` (case), ``Ａｌｉｃｅ`` (fullwidth, by NFKC),
``аlice`` (Cyrillic а), ``alıce``-like and ``a1ice`` (digit one vs l), and ``rn`` with
``m`` (``rnallory`` vs ``mallory``): the skeleton maps each to the same prototype.

Why a hash in the key: a client writes the name, and a name must never be able to
form another key of the server (``{``, ``}``, ``:``, ``*`` ...); a hex digest
cannot. The skeleton is a *comparison* key only -- the stored, shown name is the
registrant's spelling (NFC, checked by ``engine.table.player_name``).

Failure modes: none for a valid name (``player_name`` has refused control and bidi
characters before this runs).
"""

from __future__ import annotations

import hashlib
import threading
import unicodedata

import icu

_local = threading.local()
"""One ICU SpoofChecker per thread: ICU objects are not documented as thread-safe."""


def _checker() -> icu.SpoofChecker:
    checker = getattr(_local, "checker", None)
    if checker is None:
        checker = _local.checker = icu.SpoofChecker()
    return checker


def folded(name: str) -> str:
    """``name`` case-folded under NFKC (``NFKC(casefold(NFKC(name)))``): fullwidth and
    compatibility forms and case no longer matter."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def skeleton(name: str) -> str:
    """The UTS #39 skeleton of :func:`folded` ``name``: equal for confusable spellings."""
    # The skeleton of a folded name is folded again: the skeleton may map to upper-case
    # prototypes (e.g. 'I' -> 'l' but some Latin capitals stay), so fold both sides.
    return folded(_checker().getSkeleton(0, folded(name)))


def name_key(name: str) -> str:
    """Hex SHA-256 of :func:`skeleton` ``name``: the account id, safe in any Redis key."""
    return hashlib.sha256(skeleton(name).encode()).hexdigest()


def lookalike_skeletons(name: str) -> tuple[str, ...]:
    """The skeletons a name is compared by: :func:`skeleton`, and the skeleton of the
    name's skeleton taken *before* the case fold -- folding first loses capital-I-for-l
    (``PayPaI`` folds to ``paypai``), the skeleton first maps it to ``l``."""
    first = skeleton(name)
    other = skeleton(_checker().getSkeleton(0, unicodedata.normalize("NFKC", name)))
    return (first,) if other == first else (first, other)


def lookalike_keys(name: str) -> tuple[str, ...]:
    """The keys a name must not find taken: the hashes of :func:`lookalike_skeletons`
    (the first is :func:`name_key`)."""
    return tuple(hashlib.sha256(s.encode()).hexdigest() for s in lookalike_skeletons(name))
