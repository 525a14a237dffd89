"""The Gymnasium environment of any playbench game: a loop over :class:`Match`.

Which game a reset plays is the train/test protocol's (``games=``,
:mod:`playbench.gym.protocol`): by default a training game, ``reset(seed=s)`` included
(``s`` seeds the draw); ``games="test"`` plays held-out game ``i`` at ``reset(seed=i)``;
``games="any"`` plays game seed ``s`` itself. ``step(i)`` plays action ``i`` of the
game's fixed enumeration (its ``learning`` module) and returns the reward: the score
gained (``reward="score"``, the default) or the game's progress gained
(``reward="progress"``: an episode's rewards sum to its progress at its end less its
progress at its start); ``terminated`` at game over. The env cuts no episode itself:
``gymnasium.make`` puts Gymnasium's ``TimeLimit`` in front, at the game's ``step_cap``
(the id's ``max_episode_steps``) or the ``max_episode_steps`` asked for, so
``env.spec.max_episode_steps`` is the cap that holds. The mask is
``env.unwrapped.action_masks()`` (behind any wrapper,
``env.get_wrapper_attr("action_masks")()``, as sb3-contrib looks it up).

An action outside the action space (not an integer 0 .. n - 1: a float, a bool, an array
of another shape) raises :class:`ActionOutOfSpace` and changes nothing. One inside it
whose mask entry is 0, or one the game refuses, is illegal: ``info["illegal"]`` true and
``info["reason"]`` saying why, and what else follows is ``illegal``'s choice: ``"noop"``
(the default: nothing happens, reward 0), ``"penalty"`` (nothing happens, reward
``-illegal_penalty``) or ``"terminate"`` (the episode ends, ``terminated`` true, reward
0). The mask leaves out what a game calls a quit (Cogcrawl's ``up`` on dungeon level 1,
which ends the run at score 0) unless ``allow_quit=True``, and what can only lose to an
agent that reads the observation (Gem Swap's ``hint``, whose answer is in
``info["events"]`` and the JSON observation, not in the observation arrays) unless
``allow_dominated=True``.

``info`` after every reset and step has the same keys and types: ``action_mask`` (int8,
one entry per action, read-only for good: a view of new bytes each step), ``illegal``,
``reason``, ``events`` (with ``events=True`` what the step did, as the game reports it;
else an empty tuple), ``score``,
``progress``: the game's own progress (``Game.progress``: 0 at the episode's start, 1 at
the game's end of its scale), and ``normalised_score``: the score normalised between the
random agent's mean (0) and the bot's (1) over the seeds of :mod:`playbench.gym.baselines`
(at the episode's end, the episode's normalised score; below 0 where a start scores less
than the random agent ends with). With ``json_info=True`` also ``observation``, the game's
JSON observation.

By default (``events=False``) ``info["events"]`` is an empty tuple after every reset and
step, and the env plays on the game's compiled kernel where it has one and the env asks
for nothing else the kernel does not give (:mod:`playbench.kernels.single` says when): the
very same observations, rewards, ends, infos and match as on the rules, a few times faster
per step. ``events=True`` reports each step's events, which only the rules give, and so
plays on them.

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
from playbench.gym.masks import mask_of, mask_of_row, mask_row, rows_of
from playbench.gym.observations import Observer
from playbench.gym.protocol import Seeds
from playbench.kernels.single import kernel_run

RENDER_MODES = ("ansi", "rgb_array")
_STARTED = StepResult(ok=True)
#: what an illegal action does (``illegal=``)
ILLEGAL = ("noop", "penalty", "terminate")
#: what a step's reward is (``reward=``): the score gained, or the progress gained
REWARDS = ("score", "progress")


class ActionOutOfSpace(gymnasium.error.InvalidAction, ValueError):
    """An action that is no element of the action space (an illegal one inside it is not
    an error: ``info["illegal"]``)."""


def out_of_space(action: Any, size: int) -> str:
    """What is wrong with ``action``, no element of ``Discrete(size)``."""
    return (
        f"action {action!r} ({type(action).__name__}) is not in Discrete({size}): "
        f"an action is one integer 0 .. {size - 1} (an int, a NumPy integer or a 0-d "
        "integer array; not a bool, a float or a longer array)"
    )


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


def check_reward(reward: str) -> None:
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {list(REWARDS)}, got {reward!r}")


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


def info_of(
    mask: np.ndarray,
    result: StepResult,
    events: Any,
    score: int,
    progress: float,
    normalised: float,
) -> dict[str, Any]:
    """One env's ``info`` after ``result`` (``events``: its events, or ``()``), from the
    read-only mask and the figures of the state it left."""
    return {
        "action_mask": mask,
        "illegal": not result.ok,
        "reason": result.reason,
        "events": events,
        "score": score,
        "progress": progress,
        "normalised_score": normalised,
    }


def step_info(
    game: Game,
    mask: np.ndarray,
    state: Any,
    result: StepResult,
    normalise: Callable[[float], float],
    json_info: bool,
    events: bool,
) -> dict[str, Any]:
    """One env's ``info`` after ``result``, at ``state`` whose read-only mask is ``mask``
    (``normalise`` turns its score into its normalised score; ``events=False`` leaves the
    step's events out: an empty tuple)."""
    score = game.score(state)
    info = info_of(
        mask,
        result,
        result.events if events else (),
        score,
        game.progress(state),
        normalise(score),
    )
    if json_info:
        info["observation"] = game.observe(state)
    return info


def outcome(result: StepResult, gain: float, illegal: str, penalty: float) -> tuple[float, bool]:
    """A step's reward (``gain``, the score or progress it gained, less a penalty) and
    whether ``illegal`` ends the episode after ``result``."""
    if result.ok:
        return gain, False
    if illegal == "penalty":
        return gain - penalty, False
    return gain, illegal == "terminate"


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
        self.reward = keywords["reward"]
        check_reward(self.reward)
        self.seeds = Seeds(
            self.game.slug,
            keywords["games"],
            keywords["start_seed"],
            keywords["num_seeds"],
            keywords["tasks"],
            self.options,
        )
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
        self._normalisers: dict[Any, Callable[[float], float]] = {}

    def _normalise(self, options: Mapping[str, Any] | None) -> Callable[[float], float]:
        """The normalised score of a score under ``options`` (kept by options)."""
        key = repr(sorted(options.items())) if options else ""
        found = self._normalisers.get(key)
        if found is None:
            found = self._normalisers[key] = normaliser(self.game.slug, options)
        return found

    def _gain(self) -> Callable[[Any], float] | None:
        """The game's progress by state, when a step's reward is the progress it gained
        (None when it is the step's own score gained, ``StepResult.reward``)."""
        return self.game.progress if self.reward == "progress" else None

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
    ``info``; ``illegal``, ``illegal_penalty``, ``allow_quit``, ``allow_dominated`` and
    ``reward`` are described in the module docstring; ``games``, ``start_seed``,
    ``num_seeds`` and ``tasks`` in :mod:`playbench.gym.protocol`.
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
        reward: str = "score",
        games: str = "train",
        start_seed: int | None = None,
        num_seeds: int | None = None,
        tasks: Sequence[Mapping[str, Any]] | None = None,
        frame_size: int | tuple[int, int] | None = None,
        events: bool = False,
    ) -> None:
        check_render_mode(render_mode)
        keywords = dict(locals())
        del keywords["self"], keywords["game"]
        self._door(game, keywords)
        self.events = events
        self.allow_quit, self.allow_dominated = allow_quit, allow_dominated
        self.render_mode = render_mode
        self.action_space = gymnasium.spaces.Discrete(self._size)
        self.observation_space = self._observer.space()
        self._match: Match | None = None
        self._row = mask_row(self._size, ())
        self._normalised = self._normalise(self.options)
        self._observe = self._observer.observe_of()
        self._is_over = self.game.is_over
        self._gain_of = self._gain()
        self._gained = 0.0
        #: the game's kernel, a batch of one, where it runs and the env fits it
        self._kernel = kernel_run(self)
        #: whether this episode is played on the kernel
        self._on_kernel = False
        #: what the kernel's observation arrays need to be handed out (None: nothing)
        self._finish = self._observer.finisher()

    # -- the loop ---------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        seed, chosen = self.seeds.game(self.np_random, seed, self.options)
        kernel = self._kernel
        if options is not None:
            chosen = options
        elif kernel is not None:
            match = kernel.begin(seed, chosen)
            if match is not None:
                return self._begun(match, chosen)
        self._match = Match.start(self.game, seed, chosen)
        self._on_kernel = kernel is not None and kernel.load(self._match)
        if self._on_kernel and options is None:
            kernel.taken(chosen)
        self._normalised = self._normalise(chosen)
        if self._gain_of is not None:
            self._gained = self._gain_of(self._match.state)
        return self._look(StepResult(ok=True))

    def _begun(self, match: Match, chosen: Any) -> tuple[Any, dict[str, Any]]:
        """:meth:`reset`'s end for an episode the kernel started (what the rules' start
        would give: the tests play both)."""
        self._match, self._on_kernel = match, True
        self._normalised = self._normalise(chosen)
        observation, self._row, score, progress, _ = self._kernel.look()
        if self._gain_of is not None:
            self._gained = progress
        mask = mask_of(self._row)
        info = info_of(mask, _STARTED, (), score, progress, self._normalised(score))
        if self._finish is not None:
            observation = self._finish(observation, mask)
        return observation, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        match = self._match
        if match is None:
            raise gymnasium.error.ResetNeeded("call reset before step")
        size = self._size
        index = action if type(action) is int and 0 <= action < size else as_index(action, size)
        if index is None:
            raise ActionOutOfSpace(out_of_space(action, size))
        if self._on_kernel:
            return self._step_kernel(index)
        if not self._row[index]:
            result = StepResult(ok=False, reason=f"{self.action_text(index)} is not legal now")
        else:
            result = match.play(self._actions[index])
        if self._gain_of is None:
            gain = float(result.reward)
        else:
            before, self._gained = self._gained, self._gain_of(match.state)
            gain = self._gained - before
        reward, ended = outcome(result, gain, self.illegal, self.illegal_penalty)
        observation, info = self._look(result)
        return observation, reward, ended or self._is_over(match.state), False, info

    def _look(self, result: StepResult) -> tuple[Any, dict[str, Any]]:
        """The observation (new arrays each time) and info after ``result``."""
        state = self._match.state
        self._row, mask = mask_of_row(self._rows(state))
        info = step_info(
            self.game, mask, state, result, self._normalised, self.json_info, self.events
        )
        return self._observe(state, mask), info

    def _step_kernel(self, index: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """:meth:`step` of the legal index ``index`` on the kernel
        (:mod:`playbench.kernels.single`)."""
        kernel = self._kernel
        if self._row[index]:
            result = kernel.play(index)
        else:
            result = StepResult(ok=False, reason=f"{self.action_text(index)} is not legal now")
        observation, self._row, score, progress, over = kernel.look()
        if self._gain_of is None:
            gain = float(result.reward)
        else:
            gain, self._gained = progress - self._gained, progress
        reward, ended = outcome(result, gain, self.illegal, self.illegal_penalty)
        mask = mask_of(self._row)
        info = info_of(mask, result, (), score, progress, self._normalised(score))
        if self._finish is not None:
            observation = self._finish(observation, mask)
        return observation, reward, ended or over, False, info

    # -- copies -----------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """The keywords the env was made with, its match and generator: what it plays on
        from (its game and rules are found again by slug)."""
        return {
            "keywords": self._keywords,
            "match": _match_state(self._current()),
            "gained": self._gained,
            "row": self._row,
            "np_random": self._np_random,
            "np_random_seed": self._np_random_seed,
            "spec": self.spec,
        }

    def __setstate__(self, kept: dict[str, Any]) -> None:
        keywords = dict(kept["keywords"])
        self.__init__(keywords.pop("game"), **keywords)
        self._match = _match_of(self.game, kept["match"])
        self._gained, self._row, self.spec = kept["gained"], kept["row"], kept["spec"]
        self._np_random, self._np_random_seed = kept["np_random"], kept["np_random_seed"]
        if self._match is not None:
            self._normalised = self._normalise(self._match.options)
            self._on_kernel = self._kernel is not None and self._kernel.load(self._match)

    # -- looking ----------------------------------------------------------------------------
    def _current(self) -> Match | None:
        """The match as it stands (on the kernel, its state read from there)."""
        return self._kernel.current() if self._on_kernel else self._match

    @property
    def match(self) -> Match:
        """The match being played (after :meth:`reset`)."""
        if self._match is None:
            raise gymnasium.error.ResetNeeded("call reset first")
        return self._current()

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
