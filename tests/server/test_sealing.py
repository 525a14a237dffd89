"""Sealed states: unreadable, unforgeable, bound to their game, size-limited, rotatable."""

from __future__ import annotations

import base64
import os
import zlib

import pytest
from cryptography.fernet import Fernet
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from playbench.core import all_games, canonical_json, get_game
from playbench.server.sealing import (
    VERSION_BYTE as SEAL_VERSION_BYTE,
)
from playbench.server.sealing import (
    Sealer,
    SealError,
    _derive,
    _key_bytes,
    generate_key,
    load_or_create_key,
)
from playbench.server.settings import KEY_FILE, MAX_BODY_BYTES

LIMIT_CHARS = 4096
LIMIT_JSON = 2048


def sealer(*keys: str) -> Sealer:
    return Sealer(keys or (generate_key(),), LIMIT_CHARS, LIMIT_JSON)


def test_round_trip():
    box = sealer()
    data = {"pos": 3, "rng": [1, 2]}
    assert box.open("tally", box.seal("tally", data)) == data


def test_sealed_text_hides_the_state():
    box = sealer()
    data = {"secretCell": 123456789, "rng": [987654321, 192837465]}
    sealed = box.seal("tally", data)
    raw = base64.urlsafe_b64decode(sealed)
    for word in (b"123456789", b"987654321", b"secretCell", b"tally"):
        assert word not in raw


@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_edited_state_is_refused(where):
    box = sealer()
    sealed = box.seal("tally", {"pos": 1})
    index = {"start": 10, "middle": len(sealed) // 2, "end": len(sealed) - 10}[where]
    flipped = "A" if sealed[index] != "A" else "B"
    with pytest.raises(SealError, match="does not verify"):
        box.open("tally", sealed[:index] + flipped + sealed[index + 1 :])


def test_truncated_state_is_refused():
    box = sealer()
    sealed = box.seal("tally", {"pos": 1})
    for cut in (1, 4, len(sealed) // 2):
        with pytest.raises(SealError, match="does not verify"):
            box.open("tally", sealed[:-cut])


def test_state_with_characters_added_is_refused():
    box = sealer()
    sealed = box.seal("tally", {"pos": 1})
    for edited in (
        sealed + "A",
        sealed + "=",
        sealed + "\n",
        " " + sealed,
        sealed[:20] + "\n" + sealed[20:],
    ):
        with pytest.raises(SealError, match="does not verify"):
            box.open("tally", edited)


def test_state_sealed_for_another_game_is_refused():
    box = sealer()
    sealed = box.seal("gem-swap", {"pos": 1})
    with pytest.raises(SealError, match="sealed for game 'gem-swap', not 'tally'"):
        box.open("tally", sealed)


def test_state_from_another_key_is_refused():
    sealed = sealer().seal("tally", {"pos": 1})
    with pytest.raises(SealError, match="does not verify"):
        sealer().open("tally", sealed)


def test_oversized_state_is_refused_before_decrypting():
    with pytest.raises(SealError, match=f"over the limit of {LIMIT_CHARS}"):
        sealer().open("tally", "g" * (LIMIT_CHARS + 1))


def test_state_that_unpacks_too_large_is_refused():
    box = sealer()
    sealed = box.seal("tally", {"fill": "x" * (LIMIT_JSON * 4)})
    assert len(sealed) < LIMIT_CHARS, "compressed it fits the sealed limit"
    with pytest.raises(SealError, match=f"more than {LIMIT_JSON} bytes"):
        box.open("tally", sealed)


def forge(key: str, body: bytes, version: bytes = SEAL_VERSION_BYTE) -> str:
    """A token sealed with ``key`` around any body (what only the server can make)."""
    nonce = os.urandom(12)
    sealed = AESGCM(_derive(_key_bytes(key))).encrypt(nonce, body, version)
    return base64.urlsafe_b64encode(version + nonce + sealed).decode()


def legacy(key: str, payload: dict) -> str:
    """A state as servers before seal version 2 sealed it (zlib in Fernet)."""
    return Fernet(key).encrypt(zlib.compress(canonical_json(payload).encode())).decode()


def test_a_payload_marked_compressed_that_is_not_is_refused():
    key = generate_key()
    with pytest.raises(SealError, match="does not decompress"):
        sealer(key).open("tally", forge(key, b'\x01tally\n{"pos":1}'))


def test_an_unknown_codec_is_refused():
    key = generate_key()
    with pytest.raises(SealError, match="unknown codec 9"):
        sealer(key).open("tally", forge(key, b'\x09tally\n{"pos":1}'))


def test_a_payload_without_its_game_is_refused():
    key = generate_key()
    with pytest.raises(SealError, match="no game inside"):
        sealer(key).open("tally", forge(key, b'\x00{"pos":1}'))


def test_a_token_of_another_version_does_not_verify():
    key = generate_key()
    with pytest.raises(SealError, match="does not verify"):
        sealer(key).open("tally", forge(key, b'\x00tally\n{"pos":1}', version=b"\x03"))


def test_small_states_are_sealed_raw_and_large_ones_compressed():
    box = sealer()
    small = {"cells": "ab" * 100}
    large = {"cells": "ab" * 600}
    raw_small = base64.urlsafe_b64decode(box.seal("tally", small))
    raw_large = base64.urlsafe_b64decode(box.seal("tally", large))
    overhead = 1 + 12 + 16 + 1 + len(b"tally\n")
    assert len(raw_small) == overhead + len(canonical_json(small))
    assert len(raw_large) < overhead + 100
    assert box.open("tally", box.seal("tally", large)) == large


def test_text_and_numbers_orjson_cannot_carry_open_intact():
    box = sealer()
    data = {"name": "\ud800 lone", "big": 2**70, "neg": -(2**70), "emoji": "\U0001f600"}
    opened = box.open("tally", box.seal("tally", data))
    assert opened == data and type(opened["big"]) is int


def test_a_state_sealed_by_an_earlier_version_still_opens():
    key = generate_key()
    old = legacy(key, {"v": 1, "game": "tally", "state": {"pos": 3}})
    assert sealer(key).open("tally", old) == {"pos": 3}
    with pytest.raises(SealError, match="sealed for game 'tally', not 'gem-swap'"):
        sealer(key).open("gem-swap", old)
    with pytest.raises(SealError, match="does not verify"):
        sealer().open("tally", old)


def test_an_earlier_seal_that_is_not_compressed_is_refused():
    key = generate_key()
    forged = Fernet(key).encrypt(b'{"v":1,"game":"tally","state":{}}').decode()
    with pytest.raises(SealError, match="does not decompress"):
        sealer(key).open("tally", forged)


def test_unknown_seal_version_is_refused():
    key = generate_key()
    with pytest.raises(SealError, match="unknown seal version"):
        sealer(key).open("tally", legacy(key, {"v": 99, "game": "tally", "state": {}}))


@pytest.mark.parametrize("bad", [None, 5, "", ["x"], "ünïcode"])
def test_non_token_values_are_refused(bad):
    with pytest.raises(SealError):
        sealer().open("tally", bad)


def test_key_rotation_newest_seals_all_open():
    old, new = generate_key(), generate_key()
    before = sealer(old).seal("tally", {"pos": 1})
    rotated = sealer(new, old)
    assert rotated.open("tally", before) == {"pos": 1}
    after = rotated.seal("tally", {"pos": 2})
    assert sealer(new).open("tally", after) == {"pos": 2}
    with pytest.raises(SealError):
        sealer(old).open("tally", after)


def test_bad_key_is_a_clear_error():
    from playbench.core import PlaybenchError

    for bad in ("short", "!" * 44, base64.urlsafe_b64encode(b"x" * 16).decode()):
        with pytest.raises(PlaybenchError, match="not 32 url-safe base64-encoded bytes"):
            Sealer([bad], LIMIT_CHARS, LIMIT_JSON)


def test_key_file_is_created_once_and_private(tmp_path):
    path = tmp_path / "keys" / "secret.key"
    key = load_or_create_key(path)
    assert load_or_create_key(path) == key
    assert path.stat().st_mode & 0o777 == 0o600
    assert len(base64.urlsafe_b64decode(key)) == 32


# -- over HTTP, for every game ----------------------------------------------------------
def _init(client, slug):
    return client.get(f"/api/games/{slug}/init?seed=7").json()["state"]


def _act(client, slug, state):
    action = get_game(slug).legal_actions(get_game(slug).new(7))[0]
    return client.post(f"/api/games/{slug}/action", json={"state": state, "action": action})


def test_tampered_and_truncated_states_are_400(client, slug):
    sealed = _init(client, slug)
    middle = len(sealed) // 2
    tampered = sealed[:middle] + ("A" if sealed[middle] != "A" else "B") + sealed[middle + 1 :]
    for bad in (tampered, sealed[:-3], sealed[: len(sealed) // 3], "not a state"):
        reply = _act(client, slug, bad)
        assert reply.status_code == 400
        assert "does not verify" in reply.json()["error"]


def test_a_state_sealed_by_an_earlier_version_is_played_and_sealed_anew(client):
    secret = load_or_create_key(client.app.state.services.settings.data_dir / KEY_FILE)
    tally = get_game("tally")
    start = tally.new(1)
    old = legacy(secret, {"v": 1, "game": "tally", "state": tally.to_json(start)})
    reply = client.post(
        "/api/games/tally/action", json={"state": old, "action": {"type": "step", "by": 1}}
    )
    assert reply.status_code == 200 and reply.json()["observation"]["pos"] == start.pos + 1
    assert base64.urlsafe_b64decode(reply.json()["state"])[:1] == SEAL_VERSION_BYTE


def test_foreign_state_is_400(client, slug):
    other = "elsewhere" if slug == "tally" else "tally"
    sealed = client.app.state.services.sealer.seal(other, {"pos": 0})
    reply = _act(client, slug, sealed)
    assert reply.status_code == 400
    assert reply.json()["error"] == f"state was sealed for game {other!r}, not {slug!r}"


def test_state_from_another_game_init_is_400(client):
    foreign = _init(client, "tally")
    for game in all_games():
        if game.slug != "tally":
            reply = _act(client, game.slug, foreign)
            assert reply.status_code == 400 and "sealed for game 'tally'" in reply.json()["error"]


def test_oversized_state_is_400(client, slug):
    limit = client.app.state.services.settings.max_sealed_state_chars
    reply = _act(client, slug, "g" * (limit + 1))
    assert reply.status_code == 400 and "over the limit" in reply.json()["error"]


def test_sealed_state_that_is_not_a_valid_game_state_is_400(client, slug):
    sealed = client.app.state.services.sealer.seal(slug, {"unexpected": True})
    reply = _act(client, slug, sealed)
    assert reply.status_code == 400 and reply.json()["error"]


def test_body_over_256_kib_is_413(client):
    big = b'{"state": "' + b"g" * MAX_BODY_BYTES + b'", "action": {}}'
    reply = client.post(
        "/api/games/tally/action", content=big, headers={"Content-Type": "application/json"}
    )
    assert reply.status_code == 413
    assert reply.json() == {"error": f"request body is over the limit of {MAX_BODY_BYTES} bytes"}


def test_streamed_body_over_the_limit_is_413(client):
    def chunks():
        yield b'{"state": "'
        for _ in range(MAX_BODY_BYTES // 1024 + 1):
            yield b"g" * 1024
        yield b'", "action": {}}'

    reply = client.post(
        "/api/games/tally/action", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert reply.status_code == 413


def test_streamed_body_under_the_limit_is_served(client):
    sealed = _init(client, "tally")
    body = f'{{"state": "{sealed}", "action": {{"type": "step", "by": 1}}}}'.encode()

    def chunks():
        yield body[:10]
        yield body[10:]

    reply = client.post(
        "/api/games/tally/action", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert reply.status_code == 200 and reply.json()["ok"] is True


def test_body_over_the_limit_on_act_and_finish_still_carries_a_puzzle(client):
    big = b'{"command": "' + b"g" * MAX_BODY_BYTES + b'"}'
    for route in ("act", "finish"):
        reply = client.post(
            f"/games/tally/api/{route}", content=big, headers={"Content-Type": "application/json"}
        )
        assert reply.status_code == 413
        assert reply.json()["error"] == f"request body is over the limit of {MAX_BODY_BYTES} bytes"
        assert reply.json()["agentCheck"]["question"].startswith("What is ")


@pytest.mark.parametrize("size", [30, 31, 32])
def test_padding_added_after_a_whole_group_is_refused(size):
    box = sealer()
    sealed = box.seal("tally", {"pad": "x" * size})
    assert box.open("tally", sealed) == {"pad": "x" * size}
    for extra in ("=", "==", "===", "===="):
        with pytest.raises(SealError, match="does not verify"):
            box.open("tally", sealed + extra)
