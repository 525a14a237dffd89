"""An agent written from ``/llms.txt`` alone: every route it calls and every header it
sends comes from that text or the game pages it links. It registers a name, plays four
ranked games to their end, finishes each with its key, and verifies each by replaying
the revealed log through the stateless API, comparing score and fingerprint. No answer
may be a 4xx."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.web.serving import quiet, serve_process

#: acts before the test gives up on a game ending (each game ends within ~60 by this play:
#: a full batch of legal commands drawn at random, a refusal stopping the batch)
MAX_ACTS = 400


class Text:
    """What ``/llms.txt`` says, read by pattern."""

    def __init__(self, text: str) -> None:
        self.text = text

    def route(self, method: str, tail: str) -> str:
        found = re.search(rf"{method} (\S+{re.escape(tail)})\b", self.text)
        assert found, f"/llms.txt names no {method} route ending {tail}"
        return found.group(1)

    def rate(self) -> float:
        """The requests a second one client address may send, as the Limits say."""
        found = re.search(r"Requests per client address: ([\d.]+) a second", self.text)
        assert found, "/llms.txt gives no rate per client address"
        return float(found.group(1))

    def batch(self) -> int:
        """The most commands one act takes, as the session API's lines say."""
        found = re.search(r"a batch \{.*?\} of up to (\d+)", self.text)
        assert found, "/llms.txt gives no batch size"
        return int(found.group(1))

    def games(self) -> list[tuple[str, str]]:
        """(slug, Markdown page) of each game the Games section links."""
        section = self.text.split("## Games", 1)[1]
        return re.findall(r"\]\(\S+/docs/api/([\w-]+)\).*?\(as Markdown: (\S+\.md)\)", section)


def answer(puzzle: dict[str, Any]) -> str:
    # "What is A + B * C?": multiply first, as the text says
    a, b, c = (int(n) for n in re.findall(r"-?\d+", puzzle["question"])[:3])
    return str(a + b * c)


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own, with the default limits /llms.txt states: its ranked games
    would take leaderboard places the other browser tests' finished games expect."""
    with serve_process(tmp_path_factory.mktemp("llms-agent-data"), *quiet(1)) as served:
        yield served.base


def test_an_agent_from_llms_txt_alone_plays_finishes_and_verifies_four_ranked_games(
    own_server: str,
) -> None:
    server = own_server
    refused: list[str] = []
    sent: list[float] = []
    gap = [0.0]

    def paced(request: httpx.Request) -> None:
        # never faster than the documented rate: the agent keeps to the Limits
        if sent:
            time.sleep(max(0.0, sent[-1] + gap[0] - time.monotonic()))
        sent.append(time.monotonic())

    def no_4xx(response: httpx.Response) -> None:
        if response.status_code >= 400:
            response.read()
            refused.append(f"{response.request.method} {response.url} {response.status_code}")

    with httpx.Client(timeout=30.0, event_hooks={"request": [paced], "response": [no_4xx]}) as http:
        llms = Text(http.get(f"{server}/llms.txt").text)
        gap[0] = 1.0 / llms.rate()
        register = llms.route("POST", "/api/players")
        new, act, finish = (
            llms.route("POST", f"/games/{{slug}}/api/{n}") for n in ("new", "act", "finish")
        )
        init, action = (llms.route("POST", f"/api/games/{{slug}}/{n}") for n in ("init", "action"))
        games = llms.games()
        assert len(games) == 4, games
        made = http.post(register, json={"name": "llms reader"}).json()
        key = {"X-Player-Key": made["key"]}
        for slug, page in games:
            assert "## Commands (session API)" in http.get(page).text
            draw = random.Random(slug)
            # /llms.txt: ranked only when asked, with {"ranked": true}
            asked = {"ranked": True, "player": made["name"]}
            view = http.post(new.replace("{slug}", slug), json=asked, headers=key).json()
            assert (view["ranked"], view["seed"], view["player"]) == (True, None, made["name"])
            bearer = {"Authorization": f"Bearer {view['token']}"}
            puzzle = view["agentCheck"]
            for _ in range(MAX_ACTS):
                if view["gameOver"]:
                    break
                batch = [draw.choice(view["commands"]) for _ in range(llms.batch())]
                check = {"X-Agent-Check": puzzle["token"], "X-Agent-Answer": answer(puzzle)}
                view = http.post(
                    act.replace("{slug}", slug),
                    json={"commands": batch},
                    headers={**bearer, **check},
                ).json()
                puzzle = view["agentCheck"]
            assert view["gameOver"], slug
            check = {"X-Agent-Check": puzzle["token"], "X-Agent-Answer": answer(puzzle)}
            done = http.post(
                finish.replace("{slug}", slug),
                json={"rating": 8, "review": "read the text, played it through"},
                headers={**bearer, **check, **key},
            ).json()
            assert done["score"] == view["score"] and done["rank"] >= 1
            # the stateless API replays the revealed log to the same score and fingerprint
            step = http.post(
                init.replace("{slug}", slug),
                json={"seed": done["seed"], "options": done["options"]},
            ).json()
            for logged in done["log"]:
                step = http.post(
                    action.replace("{slug}", slug), json={"state": step["state"], "action": logged}
                ).json()
                assert step["ok"], (slug, logged, step.get("reason"))
            assert (step["score"], step["fingerprint"]) == (done["score"], done["fingerprint"]), (
                slug
            )
    assert refused == []
