"""Every game an OpenEnv environment, built on ``openenv-core``'s own server pieces: an
:class:`~openenv.core.env_server.interfaces.Environment` over the seat
(:class:`~playbench.train.episode.SeatEpisode`), served by its
:class:`~openenv.core.env_server.http_server.HTTPEnvServer` (``POST /reset``,
``POST /step``, ``GET /state``, ``/schema``, ``/health``, ``/metadata``, WebSocket ``/ws``).

- ``reset`` takes ``seed`` (one is drawn when none is given, and returned in the
  observation's metadata and the state), ``options`` (the game's) and ``max_turns`` (the
  seat's model turns, default 300), and ``episode_id`` (one is drawn when none is given).
- An action is the seat's reply (``{"reply": "<the model's text>"}``) or a list of moves
  in the reply's form (``{"commands": ["left", "dig down"]}``), read as the seat protocol
  reads a reply: a reply that cannot be played is the seat's refusal (the observation
  says why and asks again; the second refusal of a turn hands it to the fallback), never
  an error.
- The observation is the seat's message (``prompt``: the board, notes and legal moves, or
  why a reply was not used; ``system``, the seat's rules, on reset) and the JSON view
  (``view``); its reward is the progress the step gained, its metadata the raw ``score``,
  the score gained, who played the turn and, at the end, the progress read by replaying
  the log through :class:`~playbench.core.match.Match` (``info``: OpenEnv sends no
  observation's ``metadata`` over the wire, so the same figures travel there).
- ``state`` gives the step count, the fingerprint, the score and progress and the replay
  so far (``replay``: the lines ``playbench verify`` reads).

Over the WebSocket each connection holds its own episode. Over HTTP, OpenEnv's ``/step``
builds an environment per request, so the episode lives in the door's table and a step
names it: ``{"action": {...}, "episode_id": "..."}`` (``GET /state?episode_id=...``).
One table serves both: at most ``cap`` episodes (default 1024) at once, each dropped when
nobody touched it for ``idle_seconds`` (default 600) or, over the WebSocket, when its
connection closes; a reset past the cap, idle ones dropped first, is refused with a
clear error. Episodes are isolated: each has its own match, seat and lock.
"""

from __future__ import annotations

import functools
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from openenv.core.env_server.http_server import HTTPEnvServer
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import (
    Action,
    ConcurrencyConfig,
    EnvironmentMetadata,
    Observation,
    State,
)
from pydantic import Field

from playbench import __version__
from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON, Game
from playbench.core.registry import get_game
from playbench.core.rng import draw_seed
from playbench.train.episode import DEFAULT_MAX_TURNS, SeatEpisode

#: episodes one door holds at once, and seconds untouched before one is dropped
DEFAULT_CAP = 1024
IDLE_SECONDS = 600.0


class GameAction(Action):
    """One step: the model's reply, or a list of moves in the reply's form."""

    reply: str | None = Field(
        default=None, description="the model's reply text, read as the seat protocol reads it"
    )
    commands: list[Any] | None = Field(
        default=None,
        description="moves in the reply's form: text commands, or Cogcrawl's action objects",
    )


class GameObservation(Observation):
    """The seat's message and the game's JSON view; ``reward`` is the progress gained."""

    prompt: str = Field(default="", description="the seat's message awaiting a reply")
    system: str = Field(default="", description="the seat's rules (on reset)")
    view: JSON = Field(default_factory=dict, description="the game's JSON view")
    info: JSON = Field(
        default_factory=dict,
        description="the episode's id, seed and raw score, and at the end its replayed figures",
    )


class GameState(State):
    """An episode: its game, seed and options, its score, progress and fingerprint, and
    its replay so far."""

    game: str = ""
    seed: int | None = None
    options: JSON = Field(default_factory=dict)
    score: int = 0
    progress: float = 0.0
    fingerprint: str = ""
    done: bool = False
    replay: list[JSON] = Field(default_factory=list)


class DoorFull(PlaybenchError):
    """No room for another episode."""


class NoEpisode(PlaybenchError, LookupError):
    """No live episode of that id."""


@dataclass(slots=True)
class Held:
    episode: SeatEpisode
    used: float
    lock: threading.Lock = field(default_factory=threading.Lock)


class EpisodeTable:
    """The episodes of one game's door by id; thread-safe."""

    def __init__(self, game: Game, cap: int = DEFAULT_CAP, idle_seconds: float = IDLE_SECONDS):
        self.game = game
        self.cap = cap
        self.idle_seconds = idle_seconds
        self.held: dict[str, Held] = {}
        self.lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.held)

    def start(self, episode_id: str | None, episode: SeatEpisode) -> str:
        """Hold ``episode`` under ``episode_id`` (drawn when None; an id held already is
        replaced: a reset starts its episode again)."""
        now = time.monotonic()
        with self.lock:
            self.expire(now)
            key = episode_id or secrets.token_hex(16)
            if key not in self.held and len(self.held) >= self.cap:
                raise DoorFull(
                    f"the {self.game.slug} environment holds its cap of {self.cap} episodes; "
                    f"an episode goes when it is idle {self.idle_seconds:g} s or its "
                    "connection closes"
                )
            self.held[key] = Held(episode, now)
            return key

    def get(self, episode_id: str) -> Held:
        with self.lock:
            held = self.held.get(episode_id)
            if held is None:
                raise NoEpisode(
                    f"no live {self.game.slug} episode {episode_id!r}: reset first (an "
                    f"episode goes when it is idle {self.idle_seconds:g} s)"
                )
            held.used = time.monotonic()
            return held

    def drop(self, episode_id: str) -> None:
        with self.lock:
            self.held.pop(episode_id, None)

    def expire(self, now: float) -> None:
        """Drop every episode untouched for ``idle_seconds`` at ``now`` (monotonic
        seconds); called with the table's lock held."""
        stale = [key for key, held in self.held.items() if now - held.used > self.idle_seconds]
        for key in stale:
            del self.held[key]


class GameEnvironment(Environment[GameAction, GameObservation, GameState]):
    """A game's episode at the seat, as an OpenEnv environment over ``table``."""

    SUPPORTS_CONCURRENT_SESSIONS = True
    #: every WebSocket session made and closed on one shared thread: openenv-core would
    #: otherwise start a thread for each session it opens, which held hundreds opened at
    #: once past the clients' opening handshake (the episodes' own calls run on the event
    #: loop, :meth:`reset_async` and :meth:`step_async`)
    REQUIRES_SINGLE_THREAD_EXECUTOR = True

    def __init__(self, table: EpisodeTable) -> None:
        super().__init__()
        self.table = table
        self.episode_id: str | None = None
        #: whether this instance played its episode itself (a WebSocket session's), so
        #: the episode goes with it
        self.owner = False

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        options: JSON | None = None,
        max_turns: int | None = None,
        **kwargs: Any,
    ) -> GameObservation:
        if seed is None:
            seed = draw_seed()
        if options is not None and not isinstance(options, dict):
            raise PlaybenchError(f"options must be a JSON object, got {options!r}")
        if max_turns is not None and (type(max_turns) is not int or max_turns < 1):
            raise PlaybenchError(f"max_turns must be a whole number, at least 1, got {max_turns!r}")
        episode = SeatEpisode(
            self.table.game,
            seed,
            options,
            max_turns=max_turns or DEFAULT_MAX_TURNS,
            model="openenv",
        )
        if self.owner and self.episode_id is not None and self.episode_id != episode_id:
            # a session's reset ends the episode it played
            self.table.drop(self.episode_id)
        self.episode_id = self.table.start(episode_id, episode)
        return self._observe(episode, None, system=True)

    def step(
        self,
        action: GameAction,
        timeout_s: float | None = None,
        episode_id: str | None = None,
        **kwargs: Any,
    ) -> GameObservation:
        key = episode_id or self.episode_id
        if key is None:
            raise NoEpisode("no episode: reset first, or name one with episode_id")
        if (action.reply is None) == (action.commands is None):
            raise PlaybenchError(
                "an action carries exactly one of reply (text) or commands (a list)"
            )
        if episode_id is None:
            self.owner = True
        held = self.table.get(key)
        with held.lock:
            episode = held.episode
            if action.commands is not None:
                stepped = episode.commands(action.commands)
            else:
                stepped = episode.reply(action.reply or "")
            return self._observe(episode, stepped, key=key)

    async def reset_async(
        self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any
    ) -> GameObservation:
        """:meth:`reset` on the event loop: a step costs less than a thread's hop."""
        return self.reset(seed=seed, episode_id=episode_id, **kwargs)

    async def step_async(
        self, action: GameAction, timeout_s: float | None = None, **kwargs: Any
    ) -> GameObservation:
        """:meth:`step` on the event loop (OpenEnv would otherwise run each in a thread
        of the session's own: a hop that costs more than the step)."""
        return self.step(action, timeout_s=timeout_s, **kwargs)

    def _observe(
        self, episode: SeatEpisode, stepped: Any, system: bool = False, key: str | None = None
    ) -> GameObservation:
        meta: JSON = {
            "episodeId": key or self.episode_id,
            "game": episode.game.slug,
            "seed": episode.seed,
            "score": episode.match.score,
            "steps": len(episode.table.lines),
        }
        reward = 0.0
        if stepped is not None:
            reward = stepped.gained
            meta["scoreGained"] = stepped.scored
            if stepped.played:
                meta["played"] = stepped.played
            if stepped.refused:
                meta["refused"] = True
        if episode.done:
            checked = episode.replayed()
            meta.update(
                replayedProgress=checked.progress,
                replayedScore=checked.score,
                fingerprint=checked.fingerprint,
                outcome=checked.outcome,
                budget=episode.budget,
            )
        return GameObservation(
            prompt=episode.prompt,
            system=episode.system if system else "",
            view=episode.view(),
            done=episode.done,
            reward=reward,
            info=meta,
            metadata=meta,
        )

    @property
    def state(self) -> GameState:
        if self.episode_id is None:
            return GameState(game=self.table.game.slug)
        return episode_state(self.table, self.episode_id)

    def get_metadata(self) -> EnvironmentMetadata:
        game = self.table.game
        return EnvironmentMetadata(
            name=f"playbench-{game.slug}",
            description=(
                f"{game.name}: a deterministic, seeded game played through playbench's "
                "seat protocol; reward is the progress gained, verified by replay"
            ),
            version=__version__,
            documentation_url="docs/training.md",
        )

    def close(self) -> None:
        if self.owner and self.episode_id is not None:
            self.table.drop(self.episode_id)


def episode_state(table: EpisodeTable, episode_id: str) -> GameState:
    """The state of the episode ``episode_id``: :class:`NoEpisode` when none is live."""
    held = table.get(episode_id)
    with held.lock:
        episode = held.episode
        match = episode.match
        return GameState(
            episode_id=episode_id,
            step_count=len(episode.table.lines),
            game=episode.game.slug,
            seed=episode.seed,
            options=episode.options,
            score=match.score,
            progress=episode.progress,
            fingerprint=match.fingerprint(),
            done=episode.done,
            replay=episode.replay(),
        )


def openenv_app(
    game: str | Game, cap: int = DEFAULT_CAP, idle_seconds: float = IDLE_SECONDS
) -> FastAPI:
    """The OpenEnv app of one game: OpenEnv's routes over a table of its episodes, with
    ``GET /state`` reading the episode a query's ``episode_id`` names."""
    rules = get_game(game) if isinstance(game, str) else game
    table = EpisodeTable(rules, cap, idle_seconds)
    app = FastAPI(
        title=f"playbench {rules.name} (OpenEnv)",
        version=__version__,
        description=f"{rules.name} as an OpenEnv environment: see docs/training.md",
    )
    app.state.episodes = table

    @app.get("/state", response_model=GameState, tags=["State Management"])
    def state(episode_id: str | None = None) -> GameState:
        """An episode's state (the one ``episode_id`` names), or the door's figures."""
        if episode_id is None:
            return GameState(game=rules.slug, step_count=0)
        return episode_state(table, episode_id)

    server = HTTPEnvServer(
        functools.partial(GameEnvironment, table),
        GameAction,
        GameObservation,
        concurrency_config=ConcurrencyConfig(max_concurrent_envs=cap),
    )
    server.register_routes(app)
    app.add_exception_handler(PlaybenchError, _refused)
    return app


async def _refused(_request: Request, error: Exception) -> JSONResponse:
    if isinstance(error, LookupError):
        status = 404
    elif isinstance(error, DoorFull):
        status = 503
    else:
        status = 400
    return JSONResponse({"error": str(error)}, status_code=status)
