"""Sealed states for the stateless API.

A state leaves the server only sealed: its JSON (with a format version and the game's
slug inside) is compressed, then encrypted and authenticated with Fernet (AES-128-CBC and
HMAC-SHA256). A client can neither read the hidden parts (RNG, future refills, unseen map)
nor forge or edit a state. Keys rotate through :class:`MultiFernet`: the newest key seals,
every listed key opens.
"""

from __future__ import annotations

import json
import os
import re
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from playbench.core.errors import PlaybenchError

SEAL_VERSION = 1
COMPRESSION_LEVEL = 6
KEY_FILE_MODE = 0o600
#: a Fernet token exactly as sealed: padded url-safe base64 (the decoder alone would skip
#: added whitespace or characters after the padding, so an edited text could still open)
TOKEN_TEXT = re.compile(r"(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}==|[A-Za-z0-9_-]{3}=)?")


class SealError(PlaybenchError):
    """A sealed state does not open: forged, edited, truncated, foreign or too large."""


class Sealer:
    """Seals and opens game states with a newest-first list of keys."""

    __slots__ = ("_fernet", "max_json_bytes", "max_sealed_chars")

    def __init__(self, keys: Sequence[str | bytes], max_sealed_chars: int, max_json_bytes: int):
        if not keys:
            raise ValueError("a sealer needs at least one key")
        try:
            self._fernet = MultiFernet([Fernet(key) for key in keys])
        except (ValueError, TypeError) as error:
            raise PlaybenchError(
                f"a sealing key is not a Fernet key (32 url-safe base64-encoded bytes): {error}"
            ) from None
        self.max_sealed_chars = max_sealed_chars
        self.max_json_bytes = max_json_bytes

    def seal(self, slug: str, state_json: Any) -> str:
        # ASCII JSON: any text a game keeps (even a lone surrogate) seals and opens intact
        payload = json.dumps(
            {"v": SEAL_VERSION, "game": slug, "state": state_json}, separators=(",", ":")
        )
        packed = zlib.compress(payload.encode("ascii"), COMPRESSION_LEVEL)
        return self._fernet.encrypt(packed).decode("ascii")

    def open(self, slug: str, sealed: object) -> Any:
        """The state JSON inside ``sealed``; raises :class:`SealError` with the reason."""
        if not isinstance(sealed, str) or not sealed:
            raise SealError("state must be the non-empty string a previous response returned")
        if len(sealed) > self.max_sealed_chars:
            raise SealError(
                f"state is {len(sealed)} characters, over the limit of {self.max_sealed_chars}"
            )
        try:
            if TOKEN_TEXT.fullmatch(sealed) is None:
                raise InvalidToken
            packed = self._fernet.decrypt(sealed.encode("ascii"))
        except (InvalidToken, UnicodeEncodeError):
            raise SealError(
                "state does not verify: it was edited, truncated or not sealed by this server"
            ) from None
        inflater = zlib.decompressobj()
        try:
            raw = inflater.decompress(packed, self.max_json_bytes)
        except zlib.error:
            raise SealError("state does not decompress") from None
        if inflater.unconsumed_tail or not inflater.eof:
            raise SealError(f"state unpacks to more than {self.max_json_bytes} bytes")
        payload = json.loads(raw)
        if not isinstance(payload, dict) or payload.get("v") != SEAL_VERSION:
            raise SealError(f"state has an unknown seal version (this server reads {SEAL_VERSION})")
        if payload.get("game") != slug:
            raise SealError(f"state was sealed for game {payload.get('game')!r}, not {slug!r}")
        return payload["state"]


def generate_key() -> str:
    return Fernet.generate_key().decode("ascii")


def load_or_create_key(path: Path) -> str:
    """The key kept in ``path``; created once (owner-only) when the file is missing."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = generate_key()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, KEY_FILE_MODE)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    return key
