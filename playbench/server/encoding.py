"""JSON written fast by orjson, with the standard module for what orjson does not write.

What orjson does not write (text that is not valid Unicode, such as a lone surrogate a
client sent and a reason echoes; an integer beyond 64 bits; a key that is not text) the
standard module writes. For everything else the text is the standard module's compact
form, byte for byte (floats aside: orjson writes ``1e16`` where it writes ``1e+16``, the
same number; no game's state or event holds one).
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from playbench.core.game import canonical_json


def json_bytes(body: Any) -> bytes:
    """Compact UTF-8 JSON (an answer's body). Embedded fragments (the cached specs) hold
    nothing orjson cannot write, and only orjson writes them."""
    try:
        return orjson.dumps(body)
    except orjson.JSONEncodeError:
        return json.dumps(body, separators=(",", ":")).encode()


def json_text(data: Any) -> str:
    """Compact JSON text (a stored action or event list); what orjson cannot write is
    written with JSON escapes, so a lone surrogate stores as text."""
    try:
        return orjson.dumps(data).decode()
    except orjson.JSONEncodeError:
        return json.dumps(data, separators=(",", ":"))


def canonical_text(data: Any) -> str:
    """The text of :func:`canonical_json` (sorted keys), written by orjson where it can."""
    try:
        return orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode()
    except orjson.JSONEncodeError:
        return canonical_json(data)
