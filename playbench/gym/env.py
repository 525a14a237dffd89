"""The Gymnasium environment of any playbench game: a loop over :class:`Match`.

``reset(seed=s)`` starts the game with seed ``s``. A reset without a seed draws the next
game seed from the env's generator (so a seeded env replays the same run of episodes):
below 2**63, or, with ``num_seeds=n``, one of ``start_seed .. start_seed + n - 1``
(Procgen's ``start_level``/``num_levels``); with ``tasks`` (a list of game options) it
also draws the episode's options from them (Delvewick's start levels). ``step(i)`` plays
action ``i`` of the game's fixed enumeration (its ``learning`` module) and returns the
step result's reward (the score gained), ``terminated`` at game over and ``truncated``
after ``step_cap`` steps (by default the game's own cap). The env keeps its own step cap,
so ``gymnasium.make`` hands out the env itself, with no wrapper in front:
``env.action_masks()`` works on what it returns (behind any wrapper,
``env.get_wrapper_attr("action_masks")()``, as sb3-contrib looks it up).

An action whose mask entry is 0, or one the game refuses, is illegal:
``info["illegal"]`` true and ``info["reason"]`` saying why, and what else follows is
``illegal``'s choice: ``"noop"`` (the default: nothing happens, reward 0), ``"penalty"``
(nothing happens, reward ``-illegal_penalty``) or ``"terminate"`` (the episode ends,
``terminated`` true, reward 0). The mask leaves out what a game calls a quit (Cogcrawl's
``up`` on dungeon level 1, which ends the run at score 0) unless ``allow_quit=True``, and
what can only lose to an agent that reads the observation (Gem Swap's ``hint``, whose
answer is in ``info["events"]`` alone) unless ``allow_dominated=True``.

``info`` after every reset and step has the same keys and types: ``action_mask`` (int8,
one entry per action, read-only for good: a view of new bytes each step), ``illegal``,
``reason``, ``events`` (what the step did, as the game reports it), ``score`` and
``progress``: the score normalised between the random agent's mean (0) and the bot's (1)
over the seeds of :mod:`playbench.gym.baselines` (at the episode's end, the episode's
normalised score). With
``json_info=True`` also ``observation``, the game's JSON observation.

Envs pickle and deep-copy: the copy holds the same match and generator and steps on
exactly as the original.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np

from playbench.core.game import Game
from playbench.core.learning import Learning, learning_of
from playbench.core.match import Match, StepResult
from playbench.core.registry import get_game
from playbench.gym.baselines import normaliser
from playbench.gym.observations import Observer

#: game seeds drawn for resets without a seed lie in 0 .. SEED_BOUND - 1
SEED_BOUND = 2**63 - 1
RENDER_MODES = ("ansi", "rgb_array")
#: what an illegal action does (``illegal=``)
ILLEGAL = ("noop", "penalty", "terminate")


def learning_for(game: str | Game) -> tuple[Game, Learning]:
    """The game and what it tells learning doors; ValueError when it tells nothing."""
    rules = get_game(game) if isinstance(game, str) else game
    learning = learning_of(rules)
    if learning is None:
        raise ValueError(f"{rules.slug} has no learning module: no Gymnasium env for it")
    return rules, learning


def check_render_mode(render_mode: str | None) -> None:
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(
            f"render_mode must be one of {list(RENDER_MODES)} or None, got {render_mode!r}"
        )


def check_illegal(illegal: str) -> None:
    if illegal not in ILLEGAL:
        raise ValueError(f"illegal must be one of {list(ILLEGAL)}, got {illegal!r}")


class Seeds:
    """Where a door's resets without a seed draw their game seeds and options from."""

    def __init__(
        self,
        start_seed: int = 0,
        num_seeds: int = 0,
        tasks: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        if num_seeds < 0 or start_seed < 0:
            raise ValueError(
                f"start_seed and num_seeds must be at least 0, got {start_seed}, {num_seeds}"
            )
        if num_seeds and start_seed + num_seeds > SEED_BOUND:
            raise ValueError(f"start_seed + num_seeds must be at most {SEED_BOUND}")
        if tasks is not None and not len(tasks):
            raise ValueError("tasks must hold at least one set of options")
        self.start_seed, self.num_seeds = start_seed, num_seeds
        self.tasks = None if tasks is None else [dict(task) for task in tasks]

    def draw(
        self, generator: np.random.Generator, options: Mapping[str, Any] | None
    ) -> tuple[int, Mapping[str, Any] | None]:
        """The next game seed and, from ``tasks``, the options (else ``options``)."""
        if self.num_seeds:
            seed = self.start_seed + int(generator.integers(self.num_seeds))
        else:
            seed = int(generator.integers(SEED_BOUND))
        if self.tasks is not None:
            options = self.tasks[int(generator.integers(len(self.tasks)))]
        return seed, options


def as_index(action: Any, size: int) -> int | None:
    """``action`` as an index of ``Discrete(size)``, or None when it is not one."""
    if type(action) is int:
        return action if 0 <= action < size else None
    if isinstance(action, np.ndarray):
        if action.shape != ():
            return None
        action = action.item()
    if isinstance(action, bool) or not isinstance(action, int | np.integer):
        return None
    index = int(action)
    return index if 0 <= index < size else None


def mask_row(size: int, legal: Sequence[int]) -> bytes:
    """The mask of ``legal`` as ``size`` bytes of 0 and 1 (new bytes each call)."""
    row = bytearray(size)
    for index in legal:
        row[index] = 1
    return bytes(row)


INT8 = np.dtype(np.int8)
_frombuffer = np.frombuffer


def mask_of(row: bytes) -> np.ndarray:
    """The int8 mask over ``row``: read-only for good, as an array over immutable bytes can
    never be made writeable."""
    return _frombuffer(row, INT8)


#: the legal sets whose rows one door keeps (a new set beyond them starts the keeping again)
ROWS_KEPT = 4096


def rows_of(
    size: int, legal: Callable[[Any], Sequence[int]], kept: int = ROWS_KEPT
) -> Callable[[Any], bytes | bytearray]:
    """A game's mask row by state: the bytes of its legal indices. A tuple of indices (a
    set that comes again, see :mod:`playbench.core.learning`) has its row made once and
    kept unchanged (up to ``kept`` sets), so a caller copies a row (``bytes(row)``, or a
    join of rows) before handing a mask out; a list has new bytes made each call."""
    known: dict[tuple[int, ...], bytearray] = {}

    def row(state: Any) -> bytes | bytearray:
        found = legal(state)
        if type(found) is not tuple:
            return mask_row(size, found)
        made = known.get(found)
        if made is None:
            if len(known) >= kept:
                known.clear()
            made = known[found] = bytearray(mask_row(size, found))
        return made

    return row


def mask_of_row(row: bytes | bytearray) -> tuple[bytes, np.ndarray]:
    """Bytes of ``row`` that no other mask holds (a kept row copied; new bytes as they are)
    and the read-only mask over them (Gymnasium's checker wants no memory shared between
    the ``info`` of two steps)."""
    made = bytes(row)
    return made, _frombuffer(made, INT8)


def step_info(
    game: Game,
    mask: np.ndarray,
    state: Any,
    result: StepResult,
    progress: float,
    json_info: bool,
) -> dict[str, Any]:
    """One env's ``info`` after ``result``, at ``state`` whose read-only mask is ``mask``."""
    info = {
        "action_mask": mask,
        "illegal": not result.ok,
        "reason": result.reason,
        "events": result.events,
        "score": game.score(state),
        "progress": progress,
    }
    if json_info:
        info["observation"] = game.observe(state)
    return info


def outcome(result: StepResult, illegal: str, penalty: float) -> tuple[float, bool]:
    """A step's reward and whether ``illegal`` ends the episode after ``result``."""
    if result.ok:
        return float(result.reward), False
    if illegal == "penalty":
        return float(result.reward) - penalty, False
    return float(result.reward), illegal == "terminate"


class Door:
    """What a single env and a vector env share: the game, its learning description, the
    options and keywords an env was made with (what a pickle keeps), the mask rows."""

    def _door(self, game: str, keywords: dict[str, Any]) -> None:
        self._keywords = {"game": game, **keywords}
        self.game, self.learning = learning_for(game)
        self.options = None if keywords["options"] is None else dict(keywords["options"])
        self.json_info = keywords["json_info"]
        self.illegal = keywords["illegal"]
        check_illegal(self.illegal)
        self.illegal_penalty = float(keywords["illegal_penalty"])
        self.seeds = Seeds(keywords["start_seed"], keywords["num_seeds"], keywords["tasks"])
        self._actions = self.learning.actions.actions
        self._size = len(self._actions)
        self._observer = Observer(
            self.game,
            self.learning,
            self.options,
            keywords["obs_type"],
            keywords["one_hot"],
            keywords["mask_in_observation"],
            keywords["frame_size"],
        )
        legal = self.learning.legal_of(
            self.game, quits=keywords["allow_quit"], dominated=keywords["allow_dominated"]
        )
        self._rows = rows_of(self._size, legal)
        self._progress_of: dict[Any, Callable[[float], float]] = {}

    def _normalise(self, options: Mapping[str, Any] | None) -> Callable[[float], float]:
        """The progress of a score under ``options`` (kept by options)."""
        key = repr(sorted(options.items())) if options else ""
        found = self._progress_of.get(key)
        if found is None:
            found = self._progress_of[key] = normaliser(self.game.slug, options)
        return found

    def action_text(self, index: int) -> str:
        """The command text of action ``index`` (``"hop upLeft"``, ``"swap A1 right"``)."""
        return self.game.command_text(self._actions[index])


def _match_state(match: Match | None) -> tuple | None:
    if match is None:
        return None
    return (match.state, match.seed, match.options, list(match.log), match.moves)


def _match_of(game: Game, kept: tuple | None) -> Match | None:
    if kept is None:
        return None
    state, seed, options, log, moves = kept
    match = Match(game, state, seed, options, log)
    match.moves = moves
    return match


class PlaybenchEnv(Door, gymnasium.Env):
    """One game of the registry as a Gymnasium environment.

    ``game`` is a registry slug; ``options`` are the game's options (a start level, a
    custom layout), overridden for one episode by ``reset(options=...)``; ``obs_type``,
    ``one_hot``, ``mask_in_observation`` and ``frame_size`` shape the observation
    (:mod:`playbench.gym.observations`); ``json_info`` adds the JSON observation to
    ``info``; ``illegal``, ``illegal_penalty``, ``allow_quit``, ``allow_dominated``, ``step_cap``,
    ``start_seed``, ``num_seeds`` and ``tasks`` are described in the module docstring.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "render_fps": 4}

    def __init__(
        self,
        game: str,
        options: Mapping[str, Any] | None = None,
        render_mode: str | None = None,
        obs_type: str = "dict",
        one_hot: bool = False,
        mask_in_observation: bool = False,
        json_info: bool = False,
        illegal: str = "noop",
        illegal_penalty: float = 1.0,
        allow_quit: bool = False,
        allow_dominated: bool = False,
        step_cap: int | None = None,
        start_seed: int = 0,
        num_seeds: int = 0,
        tasks: Sequence[Mapping[str, Any]] | None = None,
        frame_size: int = 64,
    ) -> None:
        check_render_mode(render_mode)
        keywords = dict(locals())
        del keywords["self"], keywords["game"]
        self._door(game, keywords)
        self.render_mode = render_mode
        self.step_cap = self.game.step_cap if step_cap is None else step_cap
        if self.step_cap < 1:
            raise ValueError(f"step_cap must be at least 1, got {self.step_cap}")
        self.action_space = gymnasium.spaces.Discrete(self._size)
        self.observation_space = self._observer.space()
        self._match: Match | None = None
        self._row = mask_row(self._size, ())
        self._steps = 0
        self._progress = self._normalise(self.options)
        self._observe = self._observer.observe_of()
        self._is_over = self.game.is_over

    # -- the loop ---------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is None:
            seed, chosen = self.seeds.draw(self.np_random, self.options)
        else:
            chosen = self.options
        if options is not None:
            chosen = options
        self._match = Match.start(self.game, seed, chosen)
        self._steps = 0
        self._progress = self._normalise(chosen)
        return self._look(StepResult(ok=True))

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        match = self._match
        if match is None:
            raise gymnasium.error.ResetNeeded("call reset before step")
        size = self._size
        index = action if type(action) is int and 0 <= action < size else as_index(action, size)
        if index is None:
            reason = f"action {action!r} is no index of Discrete({size})"
            result = StepResult(ok=False, reason=reason)
        elif not self._row[index]:
            result = StepResult(ok=False, reason=f"{self.action_text(index)} is not legal now")
        else:
            result = match.play(self._actions[index])
        reward, ended = outcome(result, self.illegal, self.illegal_penalty)
        self._steps += 1
        observation, info = self._look(result)
        over = ended or self._is_over(match.state)
        return observation, reward, over, not over and self._steps >= self.step_cap, info

    def _look(self, result: StepResult) -> tuple[Any, dict[str, Any]]:
        """The observation (new arrays each time) and info after ``result``."""
        state = self._match.state
        self._row, mask = mask_of_row(self._rows(state))
        progress = self._progress(self.game.score(state))
        info = step_info(self.game, mask, state, result, progress, self.json_info)
        return self._observe(state, mask), info

    # -- copies -----------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """The keywords the env was made with, its match and generator: what it plays on
        from (its game and rules are found again by slug)."""
        return {
            "keywords": self._keywords,
            "match": _match_state(self._match),
            "steps": self._steps,
            "row": self._row,
            "np_random": self._np_random,
            "np_random_seed": self._np_random_seed,
            "spec": self.spec,
        }

    def __setstate__(self, kept: dict[str, Any]) -> None:
        keywords = dict(kept["keywords"])
        self.__init__(keywords.pop("game"), **keywords)
        self._match = _match_of(self.game, kept["match"])
        self._steps, self._row, self.spec = kept["steps"], kept["row"], kept["spec"]
        self._np_random, self._np_random_seed = kept["np_random"], kept["np_random_seed"]
        if self._match is not None:
            self._progress = self._normalise(self._match.options)

    # -- looking ----------------------------------------------------------------------------
    @property
    def match(self) -> Match:
        """The match being played (after :meth:`reset`)."""
        if self._match is None:
            raise gymnasium.error.ResetNeeded("call reset first")
        return self._match

    def action_masks(self) -> np.ndarray:
        """A copy of the current mask (the name maskable-policy libraries look for)."""
        return mask_of(self._row).copy()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs a render_mode: 'ansi' or 'rgb_array'")
            return None
        match = self.match
        if self.render_mode == "ansi":
            return self.game.render(match.state)
        return self._observer.painter.frame(match.state)
