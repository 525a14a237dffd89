"""What the MCP tools return: typed models, so each tool publishes its output schema."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from playbench.core.game import JSON, Game
from playbench.core.match import Match, StepResult


class GameInfo(BaseModel):
    slug: str = Field(description="the id to pass as `game`")
    name: str
    genre: str
    description: str
    goal: str


class CommandInfo(BaseModel):
    syntax: str
    description: str
    example: str


class Rules(BaseModel):
    slug: str
    name: str
    description: str
    goal: str
    scoring: str
    rules: list[str]
    commands: list[CommandInfo] = Field(description="the text grammar `act` takes")
    observation: dict[str, str] = Field(description="what each observation field means")
    options: dict[str, str] = Field(description="what `new_game` accepts as options")
    actionSchema: dict[str, Any] = Field(description="JSON Schema of the JSON actions")


class MatchView(BaseModel):
    matchId: str = Field(description="pass to act, get_view and legal_commands")
    game: str
    seed: int | None = Field(description="the seed the match started from")
    board: str = Field(description="the text board")
    commands: list[str] = Field(description="every command `act` accepts now")
    score: int
    gameOver: bool
    progress: float = Field(description="how far the run has come, 0 to 1")
    moves: int = Field(description="actions applied so far")
    observation: dict[str, Any] = Field(description="the game's JSON observation")


class ActResult(MatchView):
    ok: bool = Field(description="false when the rules refused but counted the reply")
    reward: int = Field(description="points this command gained")
    events: list[dict[str, Any]] = Field(description="what happened, in order")
    reason: str | None = Field(None, description="why it was refused (ok false)")
    notice: str | None = Field(
        None,
        description="what an accepted command left undone, in words (Cogcrawl's dropped or "
        "cut-short reply entries: the turn still counted)",
    )


def game_info(game: Game) -> GameInfo:
    return GameInfo(**game.describe())


def rules_of(game: Game) -> Rules:
    spec: JSON = game.spec().to_json()
    return Rules(slug=game.slug, name=game.name, **spec)


def _view_fields(match_id: str, match: Match) -> JSON:
    view = match.view()
    del view["legalActions"]
    return {"matchId": match_id, "seed": match.seed, **view}


def match_view(match_id: str, match: Match) -> MatchView:
    return MatchView(**_view_fields(match_id, match))


def act_result(match_id: str, match: Match, result: StepResult) -> ActResult:
    return ActResult(
        **_view_fields(match_id, match),
        ok=result.ok,
        reward=result.reward,
        events=result.events,
        reason=None if result.ok else result.reason,
        notice=result.notice or None,
    )
