"""Sealed states: unreadable, unforgeable, bound to their game, size-limited, rotatable."""

from __future__ import annotations

import base64
import zlib

import pytest
from cryptography.fernet import Fernet

from playbench.core import all_games, canonical_json, get_game
from playbench.server.sealing import Sealer, SealError, generate_key, load_or_create_key
from playbench.server.settings import MAX_BODY_BYTES

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


def test_a_sealed_payload_that_is_not_compressed_is_refused():
    key = generate_key()
    forged = Fernet(key).encrypt(b'{"v":1,"game":"tally","state":{}}').decode()
    with pytest.raises(SealError, match="does not decompress"):
        sealer(key).open("tally", forged)


def test_unknown_seal_version_is_refused():
    key = generate_key()
    payload = zlib.compress(canonical_json({"v": 99, "game": "tally", "state": {}}).encode())
    forged = Fernet(key).encrypt(payload).decode()
    with pytest.raises(SealError, match="unknown seal version"):
        sealer(key).open("tally", forged)


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

    with pytest.raises(PlaybenchError, match="not a Fernet key"):
        Sealer(["short"], LIMIT_CHARS, LIMIT_JSON)


def test_key_file_is_created_once_and_private(tmp_path):
    path = tmp_path / "keys" / "secret.key"
    key = load_or_create_key(path)
    assert load_or_create_key(path) == key
    assert path.stat().st_mode & 0o777 == 0o600
    Fernet(key)


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
