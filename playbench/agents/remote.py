"""Remote play: any agent plays through a playbench server's session API.

A :class:`Session` is one stored game on the server: ``new`` (with the player's name,
and a seed for practice or none for a ranked game whose seed the server draws and
hides), ``act`` with text commands, ``finish`` with a rating once the game is over,
which reveals the seed, options, log and fingerprint. Every answer carries an
agent-check puzzle; the next ``act`` or ``finish`` answers it, as any client does.

:class:`RemoteTable` is the agent's :class:`~playbench.agents.base.Table` over a session:
JSON actions become the game's command text (the client has the game's grammar), and
the view is the last answer's.
"""

from __future__ import annotations

import ast
import re
import time
from typing import Any

import httpx

from playbench.agents.base import AgentError
from playbench.core.errors import CommandError
from playbench.core.game import JSON, Game, canonical_json
from playbench.core.match import VIEW_FIELDS, StepResult

DEFAULT_HTTP_TIMEOUT = 30.0
#: the most commands one ``act`` carries (the server takes up to 100)
MAX_BATCH = 100
QUESTION = re.compile(r"what is (.+?)\??\s*$", re.IGNORECASE)
TOO_MANY = 429
#: how often one request is sent again after a 429, and the longest wait asked for
RATE_RETRIES = 20
MAX_RETRY_AFTER = 30.0
#: the variable that holds the player's key by default, and the header that carries it
PLAYER_KEY_ENV = "PLAYBENCH_PLAYER_KEY"
PLAYER_KEY_HEADER = "X-Player-Key"


class ServerError(AgentError):
    """A playbench server could not be reached or answered with an error."""


def solve_puzzle(question: str) -> int:
    """The answer to an agent-check question such as ``What is 12 + 34 * 56?``: integer
    arithmetic with ``+ - *`` and brackets, read with Python's precedence."""
    found = QUESTION.search(question)
    if found is None:
        raise ServerError(f"cannot read the agent-check question {question!r}")
    try:
        tree = ast.parse(found.group(1), mode="eval")
    except SyntaxError:
        raise ServerError(f"cannot read the agent-check question {question!r}") from None
    return _evaluate(tree.body, question)


def _evaluate(node: ast.AST, question: str) -> int:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand, question)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult):
        left, right = _evaluate(node.left, question), _evaluate(node.right, question)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        return left * right
    raise ServerError(f"cannot read the agent-check question {question!r}")


def check_server(url: str, slug: str, timeout: float = DEFAULT_HTTP_TIMEOUT) -> None:
    """One look at the server's game list: :class:`ServerError` in one line when it
    cannot be reached, is no playbench server or does not serve ``slug``."""
    try:
        response = httpx.get(f"{url.rstrip('/')}/api/games", timeout=timeout)
    except httpx.HTTPError as error:
        raise ServerError(f"cannot reach the server {url}: {_one_line(error)}") from None
    try:
        games = response.json()["games"]
        slugs = {entry["slug"] for entry in games}
    except (ValueError, KeyError, TypeError):
        raise ServerError(
            f"{url} is not a playbench server (GET /api/games answered {response.status_code})"
        ) from None
    if slug not in slugs:
        raise ServerError(f"the server {url} does not serve {slug!r}")


class Session:
    """One game stored on a server, played through its session API."""

    def __init__(
        self, http: httpx.Client, slug: str, answer: JSON, player_key: str | None = None
    ) -> None:
        self.http = http
        self.slug = slug
        self.player_key = player_key
        self.token: str = answer["token"]
        self.answer = answer
        self.puzzle: JSON = answer["agentCheck"]

    @classmethod
    def new(
        cls,
        http: httpx.Client,
        slug: str,
        seed: int | None,
        options: JSON | None,
        player: str | None,
        player_key: str | None = None,
    ) -> Session:
        """A practice session on ``seed`` (and ``options``), or a ranked one when both are
        None: the server draws the seed. A ``player`` name needs its ``player_key``."""
        ranked = seed is None and not options
        body: JSON = {"seed": seed, "options": options or None, "player": player}
        body = {key: value for key, value in body.items() if value is not None}
        body["ranked"] = ranked
        headers = {PLAYER_KEY_HEADER: player_key} if player_key else {}
        answer = read_answer(_send(http, f"/games/{slug}/api/new", body, headers), "new")
        return cls(http, slug, answer, player_key)

    @property
    def view(self) -> JSON:
        return {key: self.answer[key] for key in VIEW_FIELDS}

    def act(self, texts: list[str]) -> list[JSON]:
        """Send commands (stopping at the first refusal, as the server does); each
        command's result."""
        self.answer = self._post("act", {"commands": texts})
        return self.answer["results"]

    def finish(self, rating: int, review: str) -> JSON:
        """Rate the finished game: the answer reveals seed, options, log, fingerprint."""
        return self._post("finish", {"rating": rating, "review": review})

    def _post(self, route: str, body: JSON) -> JSON:
        path = f"/games/{self.slug}/api/{route}"
        for _attempt in range(RATE_RETRIES + 1):
            headers = {
                "Authorization": f"Bearer {self.token}",
                "X-Agent-Check": self.puzzle["token"],
                "X-Agent-Answer": str(solve_puzzle(self.puzzle["question"])),
            }
            if self.player_key:
                headers[PLAYER_KEY_HEADER] = self.player_key
            response = self.http.post(path, json=body, headers=headers)
            try:
                data = response.json()
            except ValueError:
                data = None
            if isinstance(data, dict) and isinstance(data.get("agentCheck"), dict):
                self.puzzle = data["agentCheck"]
            if response.status_code != TOO_MANY:
                break
            _wait(response)
        return read_answer(response, route, data)


def _send(http: httpx.Client, path: str, body: JSON, headers: dict[str, str]) -> httpx.Response:
    """POST, waiting as a 429 answer's Retry-After asks (a few times at most)."""
    for _attempt in range(RATE_RETRIES):
        response = http.post(path, json=body, headers=headers)
        if response.status_code != TOO_MANY:
            return response
        _wait(response)
    return http.post(path, json=body, headers=headers)


def _wait(response: httpx.Response) -> None:
    try:
        seconds = float(response.headers.get("Retry-After", "1"))
    except ValueError:
        seconds = 1.0
    time.sleep(min(MAX_RETRY_AFTER, max(0.0, seconds)))


def read_answer(response: httpx.Response, route: str, data: Any = None) -> JSON:
    """The JSON object of a 200 answer; :class:`ServerError` naming ``route``, the status
    and the server's error otherwise."""
    if data is None:
        try:
            data = response.json()
        except ValueError:
            data = None
    if response.status_code != 200 or not isinstance(data, dict):
        error = data.get("error") if isinstance(data, dict) else response.text[:200]
        raise ServerError(f"{route} answered {response.status_code}: {error}")
    return data


def command_for(game: Game, action: Any) -> str:
    """The command text that makes the server play ``action``: the game's own text, or
    for a seat reply with more than actions (say, notes) its JSON text, which the
    grammar reads as a raw reply."""
    try:
        return game.command_text(action)
    except CommandError:
        text = canonical_json(action)
        try:
            game.parse_command(text)
        except CommandError:
            raise CommandError(f"{action!r} has no command text in {game.slug}") from None
        return text


class RemoteTable:
    """An agent's table over a :class:`Session`; keeps every command sent with the
    server's result (``sent``), from which the episode is rebuilt once the seed is known."""

    def __init__(self, session: Session, game: Game) -> None:
        self.session = session
        self.game = game
        #: (command text, the server's result) per command tried
        self.sent: list[tuple[str, JSON]] = []

    @property
    def over(self) -> bool:
        return bool(self.session.answer["gameOver"])

    @property
    def match(self) -> None:
        """A session's game is on the server: no state here to draw."""
        return None

    @property
    def turns(self) -> int:
        """The game turns played: commands the server accepted."""
        return sum(1 for _text, answer in self.sent if answer["ok"])

    def view(self) -> JSON:
        return self.session.view

    def play(self, action: Any) -> StepResult:
        return self.commands([command_for(self.game, action)])[0]

    def commands(self, texts: list[str]) -> list[StepResult]:
        results: list[StepResult] = []
        for index, text in enumerate(texts):
            limit = self.game.command_limit(text)
            if len(text.encode("utf-8", errors="replace")) > limit:
                # the server refuses such a command whole (413): it is refused here
                refusal = StepResult(ok=False, reason=f"a command is at most {limit} bytes")
                before = self.commands(texts[:index]) if index else []
                if len(before) < index or (before and not before[-1].ok) or self.over:
                    return before
                return [*before, refusal]
        for start in range(0, len(texts), MAX_BATCH):
            batch = texts[start : start + MAX_BATCH]
            answers = self.session.act(batch)
            for text, answer in zip(batch, answers, strict=False):
                self.sent.append((text, answer))
                results.append(
                    StepResult(
                        ok=answer["ok"],
                        reward=answer["reward"],
                        events=answer["events"],
                        reason=answer.get("reason") or "",
                        advanced=answer["ok"],
                    )
                )
            if len(answers) < len(batch) or not answers[-1]["ok"] or self.over:
                break
        return results


def _one_line(error: Exception) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text[:300]
