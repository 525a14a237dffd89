"""Sealed states for the stateless API.

A state leaves the server only sealed: the game's slug and the state's JSON, compressed
when the JSON is large enough for it to pay, encrypted and authenticated with AES-256-GCM
under a fresh random nonce, then written as padded url-safe base64. A client can neither
read the hidden parts (RNG, future refills, unseen map) nor forge or edit a state, and a
state sealed for one game does not open for another.

The sealed bytes: ``version (1) | nonce (12) | AES-GCM(codec (1) | slug | "\\n" | JSON)``
with the version byte as associated data. The codec's bit 0 says zlib; bit 1 says the
JSON was written by the standard ``json`` module (a text holding a lone surrogate, or an
integer beyond 64 bits, which orjson does not carry) and is read back by it too.

Keys rotate: a newest-first list of keys, each 32 url-safe base64-encoded bytes (the same
text as the Fernet keys of earlier versions, so existing key files keep working); the
newest seals, every listed key opens. The AES key is derived from each key with HKDF.

States sealed by earlier versions (Fernet tokens, version byte 0x80) still open, with the
same keys, and the answer carries the state sealed anew: an agent in the middle of a game
goes on across an upgrade, and from its next move on it holds the new format.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from cryptography.exceptions import InvalidTag
from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from playbench.core.errors import PlaybenchError

SEAL_VERSION = 2
VERSION_BYTE = bytes([SEAL_VERSION])
#: the first byte of a Fernet token: states sealed before version 2
LEGACY_VERSION = b"\x80"
LEGACY_SEAL_VERSION = 1
KEY_BYTES = 32
NONCE_BYTES = 12
TAG_BYTES = 16
HKDF_INFO = b"playbench state seal v2"
ZLIB, STANDARD_JSON = 1, 2
CODECS = frozenset({0, ZLIB, STANDARD_JSON, ZLIB | STANDARD_JSON})
#: JSON at least this long is compressed: measured, the small states (Delvewick, Gem Swap,
#: Chimestep: about 400 bytes) would save under 200 bytes for more CPU than the rest of
#: sealing, while a Cogcrawl state (3 KB on level 1, 11 KB five levels down) shrinks
#: 3.5 to 5 times, which an agent that carries the sealed text in its context feels
COMPRESS_FROM_BYTES = 1024
#: zlib level 1: within 10% of level 6's size on Cogcrawl states at 70% of its time
COMPRESSION_LEVEL = 1
KEY_FILE_MODE = 0o600
#: url-safe base64 read as the standard alphabet by the strict decoder, which refuses
#: whitespace, other characters and data after the padding (the lenient decoder skips
#: them, so an edited text could still open); a length check refuses added padding
URL_SAFE_TO_STANDARD = bytes.maketrans(b"-_", b"+/")
NOT_VERIFIED = "state does not verify: it was edited, truncated or not sealed by this server"


class SealError(PlaybenchError):
    """A sealed state does not open: forged, edited, truncated, foreign or too large."""


class Sealer:
    """Seals and opens game states with a newest-first list of keys."""

    __slots__ = ("_aeads", "_keys", "_legacy", "max_json_bytes", "max_sealed_chars")

    def __init__(self, keys: Sequence[str | bytes], max_sealed_chars: int, max_json_bytes: int):
        if not keys:
            raise ValueError("a sealer needs at least one key")
        self._keys = [_key_bytes(key) for key in keys]
        self._aeads = [AESGCM(_derive(key)) for key in self._keys]
        self._legacy: MultiFernet | None = None
        self.max_sealed_chars = max_sealed_chars
        self.max_json_bytes = max_json_bytes

    def seal(self, slug: str, state_json: Any) -> str:
        """The sealed text of a state's JSON (any text a game keeps seals intact)."""
        try:
            text, codec = orjson.dumps(state_json), 0
        except orjson.JSONEncodeError:
            text, codec = json.dumps(state_json, separators=(",", ":")).encode(), STANDARD_JSON
        body = slug.encode() + b"\n" + text
        if len(text) >= COMPRESS_FROM_BYTES:
            body, codec = zlib.compress(body, COMPRESSION_LEVEL), codec | ZLIB
        body = bytes([codec]) + body
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._aeads[0].encrypt(nonce, body, VERSION_BYTE)
        return base64.urlsafe_b64encode(VERSION_BYTE + nonce + sealed).decode("ascii")

    def open(self, slug: str, sealed: object) -> Any:
        """The state JSON inside ``sealed``; raises :class:`SealError` with the reason."""
        if not isinstance(sealed, str) or not sealed:
            raise SealError("state must be the non-empty string a previous response returned")
        if len(sealed) > self.max_sealed_chars:
            raise SealError(
                f"state is {len(sealed)} characters, over the limit of {self.max_sealed_chars}"
            )
        try:
            text = sealed.encode("ascii").translate(URL_SAFE_TO_STANDARD)
            data = binascii.a2b_base64(text, strict_mode=True)
        except (UnicodeEncodeError, binascii.Error):
            raise SealError(NOT_VERIFIED) from None
        if len(sealed) != -(-len(data) // 3) * 4:
            raise SealError(NOT_VERIFIED)  # padding added after a whole group
        if data[:1] != VERSION_BYTE:
            if data[:1] == LEGACY_VERSION:
                return self._open_legacy(slug, sealed)
            raise SealError(NOT_VERIFIED)
        body = self._decrypt(data)
        codec = body[0]
        if codec not in CODECS:
            raise SealError(f"state has an unknown codec {codec}")
        body = self._inflate(body[1:]) if codec & ZLIB else body[1:]
        game, newline, state = body.partition(b"\n")
        if not newline:
            raise SealError("state has no game inside")
        if game != slug.encode():
            raise SealError(
                f"state was sealed for game {game.decode(errors='replace')!r}, not {slug!r}"
            )
        if len(state) > self.max_json_bytes:
            raise SealError(f"state unpacks to more than {self.max_json_bytes} bytes")
        return json.loads(state) if codec & STANDARD_JSON else orjson.loads(state)

    def _decrypt(self, data: bytes) -> bytes:
        nonce = data[1 : 1 + NONCE_BYTES]
        sealed = data[1 + NONCE_BYTES :]
        if len(sealed) < TAG_BYTES + 1:
            raise SealError(NOT_VERIFIED)
        for aead in self._aeads:
            try:
                return aead.decrypt(nonce, sealed, VERSION_BYTE)
            except InvalidTag:
                continue
        raise SealError(NOT_VERIFIED)

    def _inflate(self, packed: bytes) -> bytes:
        """Decompress at most ``max_json_bytes`` (plus the game's name) of ``packed``."""
        inflater = zlib.decompressobj()
        limit = self.max_json_bytes + len(b"\n") + 256
        try:
            raw = inflater.decompress(packed, limit)
        except zlib.error:
            raise SealError("state does not decompress") from None
        if inflater.unconsumed_tail or not inflater.eof:
            raise SealError(f"state unpacks to more than {self.max_json_bytes} bytes")
        return raw

    def _open_legacy(self, slug: str, sealed: str) -> Any:
        """A Fernet token of seal version 1: zlib-compressed ``{"v", "game", "state"}``."""
        if self._legacy is None:
            self._legacy = MultiFernet(
                [Fernet(base64.urlsafe_b64encode(key)) for key in self._keys]
            )
        try:
            packed = self._legacy.decrypt(sealed.encode("ascii"))
        except InvalidToken:
            raise SealError(NOT_VERIFIED) from None
        inflater = zlib.decompressobj()
        try:
            raw = inflater.decompress(packed, self.max_json_bytes)
        except zlib.error:
            raise SealError("state does not decompress") from None
        if inflater.unconsumed_tail or not inflater.eof:
            raise SealError(f"state unpacks to more than {self.max_json_bytes} bytes")
        payload = json.loads(raw)
        if not isinstance(payload, dict) or payload.get("v") != LEGACY_SEAL_VERSION:
            raise SealError(f"state has an unknown seal version (this server reads {SEAL_VERSION})")
        if payload.get("game") != slug:
            raise SealError(f"state was sealed for game {payload.get('game')!r}, not {slug!r}")
        return payload["state"]


def _key_bytes(key: str | bytes) -> bytes:
    try:
        raw = base64.urlsafe_b64decode(key)
    except (binascii.Error, ValueError, TypeError):
        raw = b""
    if len(raw) != KEY_BYTES:
        raise PlaybenchError(
            f"a sealing key is not {KEY_BYTES} url-safe base64-encoded bytes "
            "(make one with playbench.server.sealing.generate_key)"
        )
    return raw


def _derive(key: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=KEY_BYTES, salt=None, info=HKDF_INFO).derive(key)


def generate_key() -> str:
    return base64.urlsafe_b64encode(os.urandom(KEY_BYTES)).decode("ascii")


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
