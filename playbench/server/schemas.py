"""Request and response bodies: ``XCreate`` is what a client sends, ``XPublic`` the answer."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
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
#: a seed is below 2**63: stated as an exclusive bound, since the schema's numbers are JSON
#: floats and 2**63 - 1 is no float (it reads as 2**63), while 2**63 is one exactly
SEED_BOUND = MAX_SEED + 1


#: the characters no name holds (Unicode 14's control, format, private-use, line and
#: paragraph separator characters, and every space but U+0020), as code point ranges: a
#: class a JSON Schema pattern states as the validator checks it (a lone surrogate is no
#: text at all, refused before, and no regex engine of a UTF-8 validator can name one)
UNPRINTABLE = (
    (0x00, 0x1F), (0x7F, 0xA0), (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C),
    (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2), (0x1680, 0x1680),
    (0x180E, 0x180E), (0x2000, 0x200F), (0x2028, 0x202F), (0x205F, 0x2064),
    (0x2066, 0x206F), (0x3000, 0x3000), (0xE000, 0xF8FF), (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
    (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD),
)  # fmt: skip


def _class_text(ranges: tuple[tuple[int, int], ...]) -> str:
    """A regex class's ranges: escapes in the Basic Multilingual Plane (ECMA-262 and
    Python read them alike), the characters themselves beyond it."""

    def one(code: int) -> str:
        return f"\\u{code:04x}" if code < 0x10000 else chr(code)

    return "".join(one(a) if a == b else f"{one(a)}-{one(b)}" for a, b in ranges)


_UNPRINTABLE = _class_text(UNPRINTABLE)
#: a player name: printable characters (none of :data:`UNPRINTABLE`), not only spaces
PLAYER_PATTERN = f"^[^{_UNPRINTABLE}]*[^{_UNPRINTABLE} ][^{_UNPRINTABLE}]*$"
_PLAYER_RE = re.compile(PLAYER_PATTERN)


def _player(value: str) -> str:
    if not 1 <= len(value) <= PLAYER_CHARS or not _PLAYER_RE.match(value):
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


def _whole(value: Any) -> Any:
    """A JSON number with no fraction (``3.0``) is the integer it names, as JSON Schema's
    ``integer`` has it; a string or a boolean stays refused."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value


#: an integer as JSON Schema reads one: ``3`` or ``3.0``, never ``"3"`` nor ``true``
Whole = Annotated[StrictInt, BeforeValidator(_whole)]
Seed = Annotated[StrictInt, Field(ge=0, lt=SEED_BOUND), BeforeValidator(_whole)]
Text = Annotated[StrictStr, AfterValidator(_unicode)]
Player = Annotated[
    StrictStr,
    Field(json_schema_extra={"minLength": 1, "maxLength": PLAYER_CHARS, "pattern": PLAYER_PATTERN}),
    AfterValidator(_unicode),
    AfterValidator(_player),
]
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
    seed: Seed | None = Field(None, description="random when left out")
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


#: a replay's action: a JSON object of one game's action grammar (which keys and values it
#: takes is the game's own, checked by its rules: the game is named in the path). The
#: stateless action route takes any JSON as its action and answers one outside the
#: grammar with a refusal (ok false), on its fast path and on the framework's alike.
ActionObject = Annotated[
    dict[str, Any],
    Field(min_length=1, description="an action object of the game's action grammar"),
]


class ActionCreate(Strict):
    state: StrictStr = Field(
        description="the sealed state from the previous response",
        json_schema_extra={"minLength": 1},
    )
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
    seed: Seed
    options: Options | None = Field(None, description="game options (layouts, start level)")
    actions: list[ActionObject] = Field(
        max_length=MAX_REPLAY_ACTIONS, description="the replay's actions, in order"
    )
    start: Whole = Field(0, ge=0, description="the first frame wanted (0: the start)")
    count: Whole = Field(MAX_FRAMES, ge=1, le=MAX_FRAMES, description="frames wanted")


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
    agent_answer: Whole | Text | None = Field(None, description="puzzle answer (or X-Agent-Answer)")


class SessionCreate(InitCreate):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            # ranked true comes with no seed and no options
            "anyOf": [
                {"properties": {"ranked": {"enum": [False, None]}}},
                {"properties": {"seed": False, "options": False}},
            ]
        },
    )

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
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "oneOf": [
                {"required": ["command"], "properties": {"command": {"type": "string"}}},
                {"required": ["commands"], "properties": {"commands": {"type": "array"}}},
            ]
        },
    )

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
    rating: Whole = Field(ge=1, le=10)
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
