"""Request and response bodies: ``XCreate`` is what a client sends, ``XPublic`` the answer."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    model_validator,
)

from playbench.core.rng import MAX_SEED
from playbench.server.settings import MAX_COMMANDS_PER_ACT, MAX_REVIEW_CHARS

JSONObject = dict[str, Any]
MOVES = (
    "actions that moved the game on (a query such as Gem Swap's moves is not one; a "
    "refusal the rules count, such as Cogcrawl's retried reply, is)"
)
ACCEPTED = "commands the game accepted, queries included"
PLAYER_CHARS = 40


def _player(value: str) -> str:
    if not 1 <= len(value) <= PLAYER_CHARS or not value.isprintable() or not value.strip():
        raise ValueError(
            f"a player name is 1 to {PLAYER_CHARS} printable characters, not only spaces"
        )
    return value


def _unicode(value: Any) -> Any:
    """Refuse lone surrogates (``"\\ud800"`` parses as JSON but is not text)."""
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError:
            raise ValueError("must be valid Unicode text (no lone surrogates)") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _unicode(key)
            _unicode(item)
    elif isinstance(value, list):
        for item in value:
            _unicode(item)
    return value


Text = Annotated[StrictStr, AfterValidator(_unicode)]
Player = Annotated[StrictStr, AfterValidator(_unicode), AfterValidator(_player)]
Options = Annotated[JSONObject, AfterValidator(_unicode)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- shared ---------------------------------------------------------------------------
class PuzzlePublic(BaseModel):
    token: str
    question: str
    expiresIn: int
    expiresAt: str
    how: str


class ErrorPublic(BaseModel):
    error: str
    detail: list[JSONObject] | None = None
    agentCheck: PuzzlePublic | None = None


# -- the stateless API ----------------------------------------------------------------
class GameEntry(BaseModel):
    slug: str
    name: str
    genre: str
    description: str
    goal: str
    initUrl: str
    actionUrl: str
    docsUrl: str


class GameList(BaseModel):
    service: str
    description: str
    howToPlay: str
    docs: str
    count: int
    games: list[GameEntry]


class InitCreate(Strict):
    seed: StrictInt | None = Field(None, ge=0, le=MAX_SEED, description="random when left out")
    options: Options | None = Field(None, description="game options (layouts, start level)")


#: what the stateless answers' fingerprint is for
FINGERPRINT = (
    "a hash of the whole state (hidden parts included), on init and on the step that ends "
    "the game: replaying a finished session's log from its seed and options ends on the "
    "fingerprint finish gave"
)


class InitPublic(BaseModel):
    seed: int
    state: str = Field(description="sealed state: send it back with the next action")
    fingerprint: str = Field(description=FINGERPRINT)
    observation: JSONObject
    legalActions: list[Any]
    spec: JSONObject
    score: int
    gameOver: bool


class ActionCreate(Strict):
    state: StrictStr = Field(description="the sealed state from the previous response")
    action: Any = Field(description="an action object of the game's action grammar")


class ActionPublic(BaseModel):
    ok: bool
    reason: str | None = Field(None, description="why the action was refused (ok false)")
    state: str | None = None
    fingerprint: str | None = Field(None, description=FINGERPRINT)
    observation: JSONObject | None = None
    legalActions: list[Any]
    score: int | None = None
    gameOver: bool | None = None
    reward: int | None = None
    events: list[JSONObject] | None = None
    notice: str | None = Field(
        None, description="what an accepted step left undone, in words (dropped or cut entries)"
    )


#: a replay's frames: the most actions one request replays, and frames it answers
MAX_REPLAY_ACTIONS = 20_000
MAX_FRAMES = 200


class FramesCreate(Strict):
    seed: StrictInt = Field(ge=0, le=MAX_SEED)
    options: Options | None = Field(None, description="game options (layouts, start level)")
    actions: list[Any] = Field(
        max_length=MAX_REPLAY_ACTIONS, description="the replay's actions, in order"
    )
    start: StrictInt = Field(0, ge=0, description="the first frame wanted (0: the start)")
    count: StrictInt = Field(MAX_FRAMES, ge=1, le=MAX_FRAMES, description="frames wanted")


class FramePublic(BaseModel):
    step: int = Field(description="actions applied: 0 is the start")
    observation: JSONObject
    score: int
    gameOver: bool
    ok: bool = Field(description="false for a refused action the rules still counted")
    reason: str = ""
    events: list[JSONObject]
    command: str = Field(
        "", description="the action as a command of the game's text grammar ('' at the start)"
    )


class FramesPublic(BaseModel):
    total: int = Field(description="the replay's actions")
    frames: list[FramePublic]


# -- the session API ------------------------------------------------------------------
class AgentAnswer(Strict):
    agent_check: Text | None = Field(None, description="puzzle token (or X-Agent-Check)")
    agent_answer: StrictInt | Text | None = Field(
        None, description="puzzle answer (or X-Agent-Answer)"
    )


class SessionCreate(InitCreate):
    player: Player | None = Field(
        None, description=f"the name shown on the leaderboard (1-{PLAYER_CHARS} characters)"
    )
    ranked: StrictBool | None = Field(
        None,
        description="true asks for a ranked game (send no seed and no options with it); "
        "anything else (false, absent, no body at all) makes practice",
    )

    @model_validator(mode="after")
    def _ranked_alone(self) -> SessionCreate:
        if self.ranked and ({"seed", "options"} & self.model_fields_set):
            raise ValueError(
                "a ranked game's seed is drawn by the server: send ranked true without "
                "seed and options, or drop ranked for practice"
            )
        return self

    def asks_ranked(self) -> bool:
        """Ranked only when asked: ``ranked`` true. Every other body (none, ``{}``, a seed
        or options field, null and {} too) is practice."""
        return self.ranked is True


class SessionView(BaseModel):
    sessionId: str
    slug: str
    seed: int | None = Field(
        description="the run's seed; null for a ranked session until it is finished"
    )
    ranked: bool = Field(
        description="true when the server drew the seed (no seed, no options): only ranked "
        "sessions reach the leaderboard; a session with a client seed or options is practice"
    )
    player: str | None
    game: str
    observation: JSONObject
    board: str
    legalActions: list[Any]
    commands: list[str] = Field(description="the command text of each legal action")
    score: int
    gameOver: bool
    progress: float = Field(ge=0, le=1, description="how far the run has come (see the spec)")
    moves: int = Field(description=MOVES)
    accepted: int = Field(description=ACCEPTED)
    finished: bool
    abandoned: bool = Field(
        description="a ranked session closed unfinished (idle past the deadline, or its "
        "player started another ranked game): it counts at its score and takes no commands"
    )
    agentCheck: PuzzlePublic


class SessionPublic(SessionView):
    token: str = Field(description="send as Authorization: Bearer <token>")
    closedAsAbandoned: list[str] = Field(
        description="ids of this player's open ranked sessions of the game that this new "
        "ranked session closed as abandoned (a player has one open ranked game per game)"
    )


class ActCreate(AgentAnswer):
    command: Text | None = None
    commands: list[Text] | None = Field(None, min_length=1, max_length=MAX_COMMANDS_PER_ACT)

    @model_validator(mode="after")
    def _one_of(self) -> ActCreate:
        if (self.command is None) == (self.commands is None):
            raise ValueError("send exactly one of command or commands")
        return self

    def texts(self) -> list[str]:
        return [self.command] if self.command is not None else list(self.commands or [])


class ActResult(BaseModel):
    command: str
    ok: bool
    reason: str | None = None
    reward: int
    events: list[JSONObject]
    notice: str | None = Field(
        None, description="what an accepted step left undone, in words (dropped or cut entries)"
    )


class ActPublic(SessionView):
    results: list[ActResult]


class FinishCreate(AgentAnswer):
    player: Player | None = Field(
        None, description="the name to show on the leaderboard (replaces the one from new)"
    )
    rating: StrictInt = Field(ge=1, le=10)
    review: Text = Field("", max_length=MAX_REVIEW_CHARS)


class FinishPublic(BaseModel):
    sessionId: str
    slug: str
    player: str | None
    score: int
    rating: int
    review: str
    rank: int | None = Field(description="place on the leaderboard; null for practice")
    seed: int = Field(description="the run's seed, revealed now")
    options: JSONObject
    log: list[Any] = Field(
        description="the actions that moved the game, in order: replaying them from the "
        "seed and options gives the final score and fingerprint (playbench verify)"
    )
    fingerprint: str = Field(description="a hash of the final state")
    agentCheck: PuzzlePublic


# -- players --------------------------------------------------------------------------
class PlayerCreate(Strict):
    name: Player = Field(
        description=f"1-{PLAYER_CHARS} printable characters in one script; unique after "
        "NFKC normalisation and case folding",
        json_schema_extra={"minLength": 1, "maxLength": PLAYER_CHARS, "pattern": r"\S"},
    )


class PlayerPublic(BaseModel):
    name: str = Field(description="the name as registered (NFKC-normalised)")
    key: str = Field(description="the player key, shown this once: send it as X-Player-Key")


# -- leaderboard ----------------------------------------------------------------------
class LeaderboardEntry(BaseModel):
    rank: int
    sessionId: str
    player: str | None
    score: int
    seed: int
    moves: int = Field(description=MOVES)
    rating: int | None
    review: str | None
    finishedAt: str


class PlayerStanding(BaseModel):
    rank: int | None = Field(description="null until the player has minGames games")
    player: str
    games: int = Field(description="ranked games played, finished or abandoned")
    mean: float
    low: float = Field(description="the player's own 95% interval of the mean")
    high: float
    bound: float = Field(
        description="what ranks: a lower bound on the mean widened by sqrt(2 ln P) for a "
        "pool of P players, its spread never below the pool's"
    )
    best: int
    lastPlayed: str


class LeaderboardPublic(BaseModel):
    slug: str
    kind: str = Field(
        description="seeded: every ranked run has its own hidden seed; puzzle: the seed "
        "changes nothing, every run plays the same levels"
    )
    note: str = Field(description="what a score on this board compares")
    entries: list[LeaderboardEntry] = Field(
        description="the best single ranked games, finished (a second view: best-of-N "
        "can fill it; the players' table cannot be inflated so)"
    )
    players: list[PlayerStanding] = Field(
        description="registered players ranked by a statistic over all their ranked games"
    )
    minGames: int = Field(description="ranked games a player needs to be ranked")
    statistic: str = Field(description="what the players' table ranks by")
