"""Small helpers shared by the server tests."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient

QUESTION = re.compile(r"What is (\d+) \+ (\d+) \* (\d+)\?")


def solve(puzzle: dict[str, Any]) -> int:
    match = QUESTION.fullmatch(puzzle["question"])
    assert match, puzzle["question"]
    a, b, c = (int(group) for group in match.groups())
    return a + b * c


def answer_headers(puzzle: dict[str, Any], token: str | None = None) -> dict[str, str]:
    headers = {"X-Agent-Check": puzzle["token"], "X-Agent-Answer": str(solve(puzzle))}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return headers


def register(client: TestClient, name: str) -> str:
    """The key of player ``name``, registered on this client's server the first time."""
    keys = client.__dict__.setdefault("player_keys", {})
    if name not in keys:
        reply = client.post("/api/players", json={"name": name})
        assert reply.status_code == 201, reply.text
        keys[name] = reply.json()["key"]
    return keys[name]


class Player:
    """A session client that answers each puzzle from the previous response."""

    def __init__(
        self,
        client: TestClient,
        slug: str,
        seed: int | None = 7,
        options: dict[str, Any] | None = None,
        player: str | None = None,
    ) -> None:
        """A practice session on ``seed``, or a ranked one (the server draws the seed)
        when ``seed`` and ``options`` are None; under ``player`` (registered with its key
        on first use) or anonymous."""
        self.client = client
        self.slug = slug
        self.key = register(client, player) if player is not None else None
        body: dict[str, Any] = {"seed": seed, "options": options, "player": player}
        body = {key: value for key, value in body.items() if value is not None}
        if seed is None and options is None:
            body["ranked"] = True
        response = client.post(f"/games/{slug}/api/new", json=body, headers=self.key_header())
        assert response.status_code == 200, response.text
        self.last = response.json()
        self.token = self.last["token"]

    def key_header(self) -> dict[str, str]:
        return {"X-Player-Key": self.key} if self.key is not None else {}

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def post(self, route: str, body: dict[str, Any]) -> Any:
        headers = answer_headers(self.last["agentCheck"], self.token) | self.key_header()
        response = self.client.post(f"/games/{self.slug}/api/{route}", json=body, headers=headers)
        self.last = response.json()
        return response

    def act(self, *commands: str) -> Any:
        body = {"command": commands[0]} if len(commands) == 1 else {"commands": list(commands)}
        return self.post("act", body)
