"""The OpenEnv door: every game served by openenv-core's own server pieces, mounted in the
arena at /openenv/<slug>, driven by the package's client over the WebSocket and by plain
HTTP, each episode's rewards held to its replayed progress."""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from playbench.core import all_games, get_game
from playbench.core.match import Match
from playbench.runner.replay import dump_lines, verify_replay
from playbench.server import Settings, create_app
from playbench.train.client import GameEnv
from playbench.train.openenv import EpisodeTable, GameAction, openenv_app
from tests.mcp.helpers import serving
from tests.train.helpers import drawn_seeds, legal_reply
from tests.web.serving import free_port

SLUGS = [game.slug for game in all_games()]
TURNS = 6


@pytest.fixture(scope="module")
def arena() -> Iterator[str]:
    """One arena server (every game mounted) on 127.0.0.1 for the module."""
    with (
        tempfile.TemporaryDirectory() as folder,
        serving(create_app(Settings(data_dir=Path(folder) / "data"))) as url,
    ):
        yield url


def test_the_arena_mounts_every_game_with_openenv_routes(arena: str) -> None:
    for slug in SLUGS:
        base = f"{arena}/openenv/{slug}"
        assert httpx.get(f"{base}/health").json() == {"status": "healthy"}
        assert httpx.get(f"{base}/metadata").json()["name"] == f"playbench-{slug}"
        schema = httpx.get(f"{base}/schema").json()
        assert {"reply", "commands"} <= set(schema["action"]["properties"])
        assert {"prompt", "view", "info"} <= set(schema["observation"]["properties"])


@pytest.mark.parametrize("slug", SLUGS)
def test_an_episode_over_the_websocket_rewards_its_replayed_progress(arena: str, slug: str):
    game = get_game(slug)
    (seed,) = drawn_seeds(1)
    pick = random.Random(seed)
    with GameEnv(base_url=f"{arena}/openenv/{slug}").sync() as env:
        first = env.reset(seed=seed, max_turns=TURNS)
        assert first.observation.info["seed"] == seed
        assert first.observation.system and "Turn 1" in first.observation.prompt
        rewards = []
        result = first
        while not result.done:
            reply = legal_reply(game, result.observation.view, pick)
            result = env.step(GameAction(reply=reply))
            rewards.append(result.reward)
        state = env.state()
    info = result.observation.info
    start = game.progress(Match.start(game, seed).state)
    replayed = Match.replay(game, seed, None, [line["action"] for line in state.replay[1:-1]])
    assert info["replayedProgress"] == game.progress(replayed.state)
    assert sum(rewards) == pytest.approx(info["replayedProgress"] - start, abs=1e-12)
    assert info["fingerprint"] == state.fingerprint == replayed.fingerprint()
    assert state.step_count == len(state.replay) - 2 == len(replayed.log)
    assert len(rewards) == TURNS or info["outcome"] != "truncated"


@pytest.mark.parametrize("slug", SLUGS)
def test_a_rollout_is_a_replay_that_verify_accepts(arena: str, slug: str, tmp_path: Path):
    game = get_game(slug)
    (seed,) = drawn_seeds(1)
    pick = random.Random(seed)
    with GameEnv(base_url=f"{arena}/openenv/{slug}").sync() as env:
        result = env.reset(seed=seed, max_turns=3)
        while not result.done:
            result = env.step(GameAction(reply=legal_reply(game, result.observation.view, pick)))
        state = env.state()
    path = tmp_path / f"{slug}-{seed}.jsonl"
    path.write_bytes(dump_lines(state.replay))
    verdict = verify_replay(path)
    assert verdict.ok, verdict.problem
    done = subprocess.run(
        [sys.executable, "-m", "playbench.cli", "verify", str(path)], capture_output=True
    )
    assert done.returncode == 0, done.stderr


def test_one_seed_gives_one_first_episode_and_two_seeds_two(arena: str) -> None:
    for slug in SLUGS:
        one, other = drawn_seeds(2)
        base = f"{arena}/openenv/{slug}"
        with GameEnv(base_url=base).sync() as a, GameEnv(base_url=base).sync() as b:
            first, again = a.reset(seed=one), b.reset(seed=one)
            assert first.observation.prompt == again.observation.prompt
            assert first.observation.view == again.observation.view
            assert a.state().fingerprint == b.state().fingerprint
            b.reset(seed=other)
            # the seed reaches the game: each episode is the one its seed starts (a game
            # whose start does not hang on its seed, Delvewick's levels, gives one state)
            for env, seed in ((a, one), (b, other)):
                assert env.state().fingerprint == Match.start(slug, seed).fingerprint()
            if Match.start(slug, one).fingerprint() != Match.start(slug, other).fingerprint():
                assert a.state().fingerprint != b.state().fingerprint


def test_a_reset_without_a_seed_draws_one_and_says_which(arena: str) -> None:
    answer = httpx.post(f"{arena}/openenv/gem-swap/reset", json={}).json()
    seed = answer["observation"]["info"]["seed"]
    assert isinstance(seed, int)
    again = httpx.post(f"{arena}/openenv/gem-swap/reset", json={"seed": seed}).json()
    assert again["observation"]["view"] == answer["observation"]["view"]


@pytest.mark.parametrize("slug", SLUGS)
def test_a_malformed_reply_is_the_seats_refusal_then_its_fallback(arena: str, slug: str):
    (seed,) = drawn_seeds(1)
    with GameEnv(base_url=f"{arena}/openenv/{slug}").sync() as env:
        env.reset(seed=seed)
        refused = env.step(GameAction(reply="move left please"))
        assert not refused.done and refused.reward == 0
        assert refused.observation.info["refused"] is True
        assert "not used" in refused.observation.prompt
        assert "must begin with '{'" in refused.observation.prompt
        fallen = env.step(GameAction(reply='{"commands": 7}'))
        played = fallen.observation.info["played"]
        assert played == (get_game(slug).seat_guide().own_fallback or "random")
        assert "Turn 2" in fallen.observation.prompt


def test_http_episodes_are_isolated_and_equal_the_websocket_one(arena: str) -> None:
    """Two HTTP episodes stepped in turn, and a WebSocket one, on one seed and moves."""
    slug = "delvewick"
    game = get_game(slug)
    base = f"{arena}/openenv/{slug}"
    (seed,) = drawn_seeds(1)
    ids = []
    for _ in range(2):
        answer = httpx.post(f"{base}/reset", json={"seed": seed, "max_turns": 5}).json()
        ids.append(answer["observation"]["info"]["episodeId"])
    assert ids[0] != ids[1]
    pick = random.Random(seed)
    views = {key: answer["observation"]["view"] for key in ids}
    for _ in range(5):
        reply = legal_reply(game, views[ids[0]], pick)
        for key in ids:
            step = {"action": {"reply": reply}, "episode_id": key}
            views[key] = httpx.post(f"{base}/step", json=step).json()["observation"]["view"]
    states = [httpx.get(f"{base}/state", params={"episode_id": key}).json() for key in ids]
    assert states[0]["replay"][1:] == states[1]["replay"][1:]
    actions = [line["action"] for line in states[0]["replay"][1:-1]]
    with GameEnv(base_url=base).sync() as env:
        env.reset(seed=seed, max_turns=5)
        env.step(GameAction(commands=[game.command_text(a) for a in actions]))
        assert env.state().fingerprint == states[0]["fingerprint"]


def test_bad_requests_get_clear_errors(arena: str) -> None:
    base = f"{arena}/openenv/delvewick"
    missing = httpx.post(f"{base}/step", json={"action": {"reply": "{}"}, "episode_id": "gone"})
    assert missing.status_code == 404 and "no live delvewick episode 'gone'" in missing.text
    started = httpx.post(f"{base}/reset", json={}).json()["observation"]["info"]["episodeId"]
    neither = httpx.post(f"{base}/step", json={"action": {}, "episode_id": started})
    assert neither.status_code == 400
    assert neither.json() == {
        "error": "an action carries exactly one of reply (text) or commands (a list)"
    }
    assert httpx.post(f"{base}/reset", json={"options": 5}).status_code == 400
    turns = httpx.post(f"{base}/reset", json={"max_turns": 0})
    assert turns.status_code == 400 and "max_turns" in turns.json()["error"]
    unknown = httpx.post(f"{base}/step", json={"action": {"move": "left"}, "episode_id": started})
    assert unknown.status_code == 422


def test_the_cap_and_the_idle_expiry() -> None:
    app = openenv_app("gem-swap", cap=2, idle_seconds=30.0)
    table: EpisodeTable = app.state.episodes
    with serving(app) as url:
        for _ in range(2):
            assert httpx.post(f"{url}/reset", json={}).status_code == 200
        full = httpx.post(f"{url}/reset", json={})
        assert full.status_code == 503 and "cap of 2 episodes" in full.json()["error"]
        with table.lock:
            table.expire(time.monotonic() + 31.0)
        assert len(table) == 0
        assert httpx.post(f"{url}/reset", json={}).status_code == 200


def test_the_openenv_command_serves_one_game(tmp_path: Path) -> None:
    port = free_port()
    command = [sys.executable, "-m", "playbench.cli", "openenv", "chimestep", "--port", str(port)]
    process = subprocess.Popen(command, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 300
        while True:
            try:
                health = httpx.get(f"{base}/health")
                break
            except httpx.TransportError:
                assert process.poll() is None, process.stderr.read() if process.stderr else ""
                assert time.monotonic() < deadline, "playbench openenv did not start"
                time.sleep(0.05)
        assert health.json() == {"status": "healthy"}
        (seed,) = drawn_seeds(1)
        with GameEnv(base_url=base).sync() as env:
            assert env.reset(seed=seed).observation.info["game"] == "chimestep"
    finally:
        process.terminate()
        process.wait(30)


def test_the_openenv_command_refuses_an_unknown_game() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "playbench.cli", "openenv", "chess"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "chess" in done.stderr


def test_a_websocket_session_holds_one_episode_and_lets_it_go() -> None:
    app = openenv_app("delvewick")
    table: EpisodeTable = app.state.episodes
    with serving(app) as url:
        with GameEnv(base_url=url).sync() as env:
            env.reset(seed=drawn_seeds(1)[0])
            env.step(GameAction(commands=["wait"]))
            assert len(table) == 1
            env.reset(seed=drawn_seeds(1)[0])
            env.step(GameAction(commands=["wait"]))
            assert len(table) == 1
        # the session's end is the server's to see: wait on the table, not a clock
        deadline = time.monotonic() + 120
        while len(table):
            assert time.monotonic() < deadline, "the closed session's episode was kept"
            time.sleep(0.02)


def test_a_websocket_outlives_the_servers_request_timeout(tmp_path: Path) -> None:
    """``playbench serve``'s request timer stops at the upgrade: it would otherwise write
    a 408 into the WebSocket's frames once the request timeout passed."""
    port = free_port()
    command = [sys.executable, "-m", "playbench.cli", "serve", "--port", str(port)]
    command += ["--data", str(tmp_path / "data"), "--request-timeout", "1"]
    command += ["--max-connections-per-address", "2", "--log-level", "warning"]
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}/openenv/gem-swap"
        deadline = time.monotonic() + 300
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=300).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        game = get_game("gem-swap")
        (seed,) = drawn_seeds(1)
        pick = random.Random(seed)
        # more WebSockets than the address may hold connections: each upgraded one gives
        # its place back
        for _ in range(3):
            with GameEnv(base_url=base).sync() as env:
                result = env.reset(seed=seed, max_turns=1000)
                started = time.monotonic()
                # play on past the request timeout (1 s) on one connection
                while time.monotonic() - started < 2.5:
                    if result.done:
                        result = env.reset(seed=seed, max_turns=1000)
                    reply = legal_reply(game, result.observation.view, pick)
                    result = env.step(GameAction(reply=reply))
                assert env.state().step_count > 0
    finally:
        process.terminate()
        process.wait(30)


def _step_counts(arena: str, slug: str) -> dict[str, float]:
    """The server's count of OpenEnv steps of ``slug`` by door, from its /metrics."""
    from prometheus_client.parser import text_string_to_metric_families

    counts = {"http": 0.0, "ws": 0.0}
    for family in text_string_to_metric_families(httpx.get(f"{arena}/metrics").text):
        for sample in family.samples:
            labels = sample.labels
            if (
                sample.name == "playbench_openenv_seconds_count"
                and labels["game"] == slug
                and labels["call"] == "step"
            ):
                counts[labels["door"]] += sample.value
    return counts


def test_the_server_times_every_step_at_both_doors(arena: str) -> None:
    """``playbench_openenv_seconds`` counts each step once, by its door (the WebSocket's
    reset and state are not steps), with a time below the call's whole round trip."""
    slug = random.choice(SLUGS)
    game = get_game(slug)
    base = f"{arena}/openenv/{slug}"
    (seed,) = drawn_seeds(1)
    pick = random.Random(seed)
    before = _step_counts(arena, slug)
    answer = httpx.post(f"{base}/reset", json={"seed": seed, "max_turns": 3}).json()
    key = answer["observation"]["info"]["episodeId"]
    for _ in range(2):
        reply = legal_reply(game, answer["observation"]["view"], pick)
        step = {"action": {"reply": reply}, "episode_id": key}
        answer = httpx.post(f"{base}/step", json=step).json()
    with GameEnv(base_url=base).sync() as env:
        result = env.reset(seed=seed, max_turns=3)
        for _ in range(3):
            result = env.step(GameAction(reply=legal_reply(game, result.observation.view, pick)))
        env.state()
    after = _step_counts(arena, slug)
    assert (after["http"] - before["http"], after["ws"] - before["ws"]) == (2, 3)
