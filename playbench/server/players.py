"""Players: names that belong to someone.

``POST /api/players`` registers a name and answers its key once; only the key's hash is
stored. A session or ``finish`` under a name needs that key (``X-Player-Key``); a ranked
game without a name is anonymous. Names are unique after NFKC normalisation and case
folding (``Ⅰ`` is ``I``, ``ＡＤＡ`` is ``ada``) and by their look, their UTS #39
confusable skeleton (:mod:`playbench.server.names`: ``ɑda`` is taken once ``Ada`` is,
``B0B`` once ``BOB`` is, ``Adarn`` once ``Adam`` is); a name that mixes scripts
(``prоbe`` with a Cyrillic ``о``) or is written wholly in letters that look like Latin
ones (Cyrillic ``аое``) is refused with the reason: the confusables come from Unicode's
tables through ``confusable-homoglyphs``.
"""

from __future__ import annotations

import secrets
import unicodedata
from dataclasses import dataclass

from confusable_homoglyphs import categories, confusables

from playbench.server.names import has_visible
from playbench.server.store import PlayerRow, Storage, token_hash

KEY_BYTES = 32
KEY_HEADER = "X-Player-Key"
LATIN = "LATIN"
COMMON = "COMMON"
#: scripts whose letters may share a name with Latin ones without confusing anyone
#: (digits, spaces and punctuation are COMMON; accents are INHERITED)
NEUTRAL = {COMMON, "INHERITED"}


class NameRefused(ValueError):
    """A name that cannot be registered; the message says why."""


class KeyRefused(Exception):
    """A name used without its key, with a wrong key, or not registered; ``status`` is
    the HTTP answer (401 no key, 403 wrong key, 404 unknown name)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def display_form(name: str) -> str:
    """The name as shown: NFKC-normalised, outer spaces dropped."""
    return unicodedata.normalize("NFKC", name).strip()


def name_key(name: str) -> str:
    """The form two names are compared in: NFKC, case-folded, NFKC again."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold()).strip()


def check_name(name: str) -> str:
    """The display form of ``name``; :class:`NameRefused` when it mixes scripts or is
    written in look-alikes of Latin letters."""
    shown = display_form(name)
    if not shown or not has_visible(shown):
        raise NameRefused("a player name needs at least one visible character")
    if confusables.is_mixed_script(shown):
        scripts = sorted({categories.alias(char) for char in shown} - NEUTRAL)
        raise NameRefused(
            f"{shown!r} mixes scripts ({', '.join(scripts)}): a name is written in one "
            "script, so that no look-alike can pass for it"
        )
    scripts = {categories.alias(char) for char in shown} - NEUTRAL
    if scripts and scripts != {LATIN}:
        letters = [char for char in shown if categories.alias(char) not in NEUTRAL]
        found = confusables.is_confusable(shown, greedy=True, preferred_aliases=[LATIN.lower()])
        alike = {entry["character"] for entry in found or []}
        if all(char in alike for char in letters):
            raise NameRefused(
                f"{shown!r} is written only in letters that look like Latin ones, so it "
                "would pass for a Latin name: choose a name with letters of its own"
            )
    return shown


@dataclass(frozen=True, slots=True)
class Registered:
    """A new player: the name as stored and the key, shown this once."""

    name: str
    key: str


class NameTaken(Exception):
    """The name (after normalisation and case folding), or one that looks like it,
    belongs to another player."""


def register(storage: Storage, name: str) -> Registered:
    """Register ``name``: :class:`NameRefused` or :class:`NameTaken` when it cannot be."""
    shown = check_name(name)
    key = secrets.token_urlsafe(KEY_BYTES)
    if not storage.create_player(shown, name_key(shown), token_hash(key)):
        raise NameTaken(shown)
    return Registered(shown, key)


def authenticate(storage: Storage, name: str, key: str | None) -> PlayerRow:
    """The registered player ``name`` if ``key`` is its key; :class:`KeyRefused` if not."""
    player = storage.player(name_key(name))
    if player is None:
        raise KeyRefused(
            404,
            f"no player is registered as {display_form(name)!r}: register the name with "
            "POST /api/players (it answers the key), or leave player out to play anonymously",
        )
    if not key:
        raise KeyRefused(
            401,
            f"playing as {player.name!r} needs its key in the {KEY_HEADER} header "
            "(or leave player out to play anonymously)",
        )
    if not secrets.compare_digest(token_hash(key), player.key_hash):
        raise KeyRefused(403, f"the {KEY_HEADER} sent is not {player.name!r}'s key")
    return player
