"""A native vector env: N matches of one game stepped in one call into preallocated arrays.

``gymnasium.make_vec(env_id, num_envs=N)`` makes it (its ``vector_entry_point``; also
``vectorization_mode="vector_entry_point"``). It plays exactly as Gymnasium's
``SyncVectorEnv`` over N :class:`PlaybenchEnv` (``vectorization_mode="sync"``), step for
step: the same observations, rewards, ends, masks and ``info``. ``reset(seed=s)`` resets
env ``i`` with seed ``s + i`` (or ``seed[i]`` for a list), and each env draws its next
game from its own generator, as the protocol (``games=``) says.

It takes the keywords ``make_vec``'s sync mode takes: the single env's, with
``max_episode_steps`` (by default the game's ``step_cap``, what ``env.spec`` says), and
``SyncVectorEnv``'s own, ``copy``, ``observation_mode`` (``"same"``) and
``autoreset_mode``, given as keywords or in ``vector_kwargs``. Gymnasium's ``make_vec``
hands an env's own vector env keywords only (``vector_kwargs`` it refuses for any):
``gymnasium.make_vec(id, n, autoreset_mode=...)``, or :func:`make_vec` here, Gymnasium's
signature, which hands ``vector_kwargs`` on.

Autoreset is Gymnasium's :class:`~gymnasium.vector.AutoresetMode`: ``NEXT_STEP`` by
default (every Gymnasium vector wrapper takes it; ``NormalizeObservation`` no other):
the step that ends an episode hands out its last observation and mask (at game over a
mask of zeros), and the next call resets that env whatever its action. ``SAME_STEP``: the
step that ends an episode returns the first observation and mask of the next one, the
last observation in ``info["final_obs"]`` and its info in ``info["final_info"]``.
``DISABLED``: an ended env waits for ``reset(options={"reset_mask": mask})``.

``info`` is Gymnasium's layout, built by its own ``_add_info`` rules: ``action_mask``
(N, actions) int8, read-only; ``illegal`` (N,) bool; ``reason`` and ``events`` (N,)
object arrays; ``score`` (N,) int64; ``progress`` and ``normalised_score`` (N,) float64
(:mod:`playbench.gym.env` says what each is); ``observation`` with
``json_info=True``; each key with its ``_key`` flags. ``action_masks()`` is the current
masks, as ``np.stack(envs.call("action_masks"))`` gives them from a sync env
(:func:`action_masks` gets them from either).

An action outside the single action space raises
:class:`~playbench.gym.env.ActionOutOfSpace` before any env moves.

By default (``events=False``) each ``events`` entry is an empty tuple, and the env steps
all N matches in one call of the game's compiled kernel where it has one
(:mod:`playbench.kernels.vector` says when), handing out the very same as its loop over
matches; ``events=True`` reports each step's events and steps the matches one by one.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec, VectorizeMode
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from playbench.core.match import Match, StepResult
from playbench.gym.env import (
    RENDER_MODES,
    ActionOutOfSpace,
    Door,
    _match_of,
    _match_state,
    as_index,
    check_render_mode,
    out_of_space,
    outcome,
    step_info,
)
from playbench.gym.masks import mask_of, mask_of_row, mask_row
from playbench.kernels.vector import kernel_loop

#: SyncVectorEnv's own keywords, which ``vector_kwargs`` may hold
VECTOR_KEYWORDS = ("copy", "observation_mode", "autoreset_mode")
RESET_MASK = "reset_mask"


def make_vec(
    id: str | EnvSpec,
    num_envs: int = 1,
    vectorization_mode: VectorizeMode | str | None = None,
    vector_kwargs: dict[str, Any] | None = None,
    wrappers: Sequence[Callable[[gymnasium.Env], gymnasium.Wrapper]] | None = None,
    **kwargs: Any,
) -> gymnasium.vector.VectorEnv:
    """``gymnasium.make_vec`` that also hands ``vector_kwargs`` to a native vector env
    (as keywords, which Gymnasium takes); every other call it passes on unchanged."""
    if isinstance(id, str):
        module, _, name = id.rpartition(":")
        if module:
            importlib.import_module(module)
        spec = gymnasium.spec(name)
    else:
        spec = id
    mode = None if vectorization_mode is None else VectorizeMode(vectorization_mode)
    if mode is None:
        native = spec.vector_entry_point is not None
    else:
        native = mode == VectorizeMode.VECTOR_ENTRY_POINT
    if native and vector_kwargs:
        kwargs = {**kwargs, **vector_kwargs}
        vector_kwargs = None
    return gymnasium.make_vec(id, num_envs, vectorization_mode, vector_kwargs, wrappers, **kwargs)


def action_masks(env: gymnasium.Env | VectorEnv) -> np.ndarray:
    """The current mask of any env of these games: a single env behind any wrappers, the
    native vector env, or Gymnasium's sync or async vector env over single envs (N rows)."""
    if isinstance(env, gymnasium.Env):
        return env.get_wrapper_attr("action_masks")()
    if isinstance(env.unwrapped, PlaybenchVectorEnv):
        return env.unwrapped.action_masks()
    return np.stack(env.call("action_masks"))


def _indices(picks: Any, count: int, size: int) -> np.ndarray:
    """The N actions of one step as an int64 array, or ActionOutOfSpace naming the first
    wrong one (an int array of the right shape is checked without a Python loop)."""
    if isinstance(picks, np.ndarray) and picks.dtype.kind in "iu" and picks.shape == (count,):
        indices = picks.astype(np.int64, copy=False)
        # one pass: a negative index read as unsigned is above any size
        if count and indices.view(np.uint64).max() >= size:
            i = int(np.flatnonzero((indices < 0) | (indices >= size))[0])
            raise ActionOutOfSpace(f"env {i}: {out_of_space(picks[i].item(), size)}")
        return indices
    if isinstance(picks, np.ndarray) and picks.shape != (count,):
        raise ActionOutOfSpace(f"step needs {count} actions, shape ({count},), got {picks.shape}")
    picks = list(picks) if isinstance(picks, Sequence | np.ndarray) else [picks]
    if len(picks) != count:
        raise ActionOutOfSpace(f"step needs {count} actions, got {len(picks)}")
    indices = [as_index(pick, size) for pick in picks]
    for i, index in enumerate(indices):
        if index is None:
            raise ActionOutOfSpace(f"env {i}: {out_of_space(picks[i], size)}")
    return np.array(indices, dtype=np.int64)


class PlaybenchVectorEnv(Door, VectorEnv):
    """``num_envs`` matches of one game (the keywords are :class:`PlaybenchEnv`'s, with
    ``max_episode_steps`` and ``SyncVectorEnv``'s own, above)."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        game: str,
        num_envs: int = 1,
        options: Mapping[str, Any] | None = None,
        render_mode: str | None = None,
        obs_type: str = "dict",
        one_hot: bool = False,
        mask_in_observation: bool = False,
        json_info: bool = False,
        max_episode_steps: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        copy: bool = True,
        observation_mode: str = "same",
        vector_kwargs: Mapping[str, Any] | None = None,
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
        self._spec: EnvSpec | None = None
        keywords = dict(locals())
        del keywords["self"], keywords["game"]
        wrong = set(vector_kwargs or ()) - set(VECTOR_KEYWORDS)
        if wrong:
            raise ValueError(
                f"vector_kwargs takes {list(VECTOR_KEYWORDS)}, got {sorted(wrong)}: "
                "the env's own keywords go beside it"
            )
        chosen = {"copy": copy, "observation_mode": observation_mode}
        chosen.update(autoreset_mode=autoreset_mode, **(vector_kwargs or {}))
        if chosen["observation_mode"] != "same":
            raise ValueError(
                "observation_mode must be 'same' (every env of a native vector env has one "
                f"observation space), got {chosen['observation_mode']!r}"
            )
        mode = AutoresetMode(chosen["autoreset_mode"])
        if type(num_envs) is not int or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number above 0, got {num_envs!r}")
        self._door(game, keywords)
        self.events = events
        self.num_envs = num_envs
        self.render_mode = render_mode
        cap = self.game.step_cap if max_episode_steps is None else max_episode_steps
        if type(cap) is not int or cap < 1:
            raise ValueError(f"max_episode_steps must be a whole number above 0, got {cap!r}")
        self.max_episode_steps = cap
        self.autoreset_mode = mode
        self.copy = bool(chosen["copy"])
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        size = self._size
        self.single_action_space = spaces.Discrete(size)
        self.single_observation_space = self._observer.space()
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self._row_list = [mask_row(size, ())] * num_envs
        self._mask = np.zeros((num_envs, size), dtype=np.int8)
        self._plain = obs_type == "dict"
        if self._plain:
            self._arrays = self._observer.empty(num_envs)
        elif obs_type != "text":
            single = self.single_observation_space
            self._frames = np.zeros((num_envs, *single.shape), dtype=single.dtype)
        self._matches: list[Match | None] = [None] * num_envs
        self._generators: list[np.random.Generator | None] = [None] * num_envs
        self._normalised = [self._normalise(self.options)] * num_envs
        self._steps = [0] * num_envs
        self._ended = [False] * num_envs
        self._gain_of = self._gain()
        self._gained = [0.0] * num_envs

    @property
    def spec(self) -> EnvSpec | None:
        """The env's spec (``make_vec`` sets it), its ``max_episode_steps`` the cap."""
        return self._spec

    @spec.setter
    def spec(self, spec: EnvSpec | None) -> None:
        if spec is not None:
            spec = dataclasses.replace(spec, max_episode_steps=self.max_episode_steps)
        self._spec = spec
        self._kernel = kernel_loop(self)

    # -- the loop ---------------------------------------------------------------------------
    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict | None = None
    ) -> tuple[Any, dict[str, Any]]:
        count = self.num_envs
        if seed is None or isinstance(seed, int):
            seeds = [None if seed is None else seed + i for i in range(count)]
        else:
            seeds = list(seed)
            if len(seeds) != count:
                raise ValueError(f"reset needs {count} seeds, got {len(seeds)}")
        chosen = range(count)
        if options is not None and RESET_MASK in options:
            options = dict(options)
            chosen = np.flatnonzero(_reset_mask(options.pop(RESET_MASK), count)).tolist()
        if seed is not None:
            self._np_random, self._np_random_seed = seeding.np_random(seeds[0])
        kernel = self._kernel
        if kernel is not None and self._matches[0] is not None:
            self._matches = kernel.matches()
            self._steps, self._ended = kernel.steps.tolist(), kernel.ended.tolist()
        for i in chosen:
            one = seeds[i]
            if one is not None or self._generators[i] is None:
                self._generators[i] = seeding.np_random(one)[0]
            self._start(i, one, options)
        if kernel is not None:
            kernel.restore(self._steps, self._ended)
        observations = self._observations()
        if len(chosen) == count:
            return observations, self._info([StepResult(ok=True)] * count)
        info: dict[str, Any] = {}
        for i in chosen:
            info = self._add_info(info, self._one_info(i, StepResult(ok=True)), i)
        return observations, info

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict]:
        count, size = self.num_envs, self._size
        if self._kernel is not None:
            return self._kernel.step(_indices(actions, count, size))
        picks = _indices(actions, count, size).tolist()
        ended = self._ended
        mode = self.autoreset_mode
        if mode == AutoresetMode.DISABLED and any(ended):
            i = ended.index(True)
            raise gymnasium.error.ResetNeeded(
                f"env {i}'s episode has ended and autoreset_mode is DISABLED: "
                "reset it first, reset(options={'reset_mask': mask})"
            )
        rewards: list[float] = []
        terminated: list[bool] = []
        truncated: list[bool] = []
        results: list[StepResult] = []
        finals: list[tuple[int, Match, StepResult]] = []
        same_step = mode == AutoresetMode.SAME_STEP
        cap, illegal, penalty = self.max_episode_steps, self.illegal, self.illegal_penalty
        rows, table, matches, steps = self._row_list, self._actions, self._matches, self._steps
        game, is_over, gain_of, gained = self.game, self.game.is_over, self._gain_of, self._gained
        for i, index in enumerate(picks):
            match = matches[i]
            if ended[i]:
                self._start(i, None, None)
                results.append(StepResult(ok=True))
                rewards.append(0.0)
                terminated.append(False)
                truncated.append(False)
                continue
            if not rows[i][index]:
                text = game.command_text(table[index])
                result = StepResult(ok=False, reason=f"{text} is not legal now")
            else:
                result = match.play(table[index])
            if gain_of is None:
                gain = float(result.reward)
            else:
                before = gained[i]
                gained[i] = gain_of(match.state)
                gain = gained[i] - before
            reward, stopped = outcome(result, gain, illegal, penalty)
            steps[i] += 1
            over = stopped or is_over(match.state)
            cut = steps[i] >= cap
            rewards.append(reward)
            terminated.append(over)
            truncated.append(cut)
            results.append(result)
            if over or cut:
                if same_step:
                    finals.append((i, match, result))
                    self._start(i, None, None)
                    results[i] = StepResult(ok=True)
                else:
                    ended[i] = True
        observations = self._observations()
        info = self._info(results)
        if finals:
            self._add_finals(info, finals)
        return (
            observations,
            np.array(rewards, dtype=np.float64),
            np.array(terminated, dtype=np.bool_),
            np.array(truncated, dtype=np.bool_),
            info,
        )

    def _start(self, i: int, seed: int | None, options: Mapping[str, Any] | None) -> None:
        seed, chosen = self.seeds.game(self._generators[i], seed, self.options)
        if options is not None:
            chosen = options
        match = self._matches[i] = Match.start(self.game, seed, chosen)
        self._normalised[i] = self._normalise(chosen)
        self._steps[i] = 0
        self._ended[i] = False
        if self._gain_of is not None:
            self._gained[i] = self._gain_of(match.state)

    # -- what it hands out ------------------------------------------------------------------
    def _observations(self) -> Any:
        """Refresh every env's mask and observation row from its match."""
        row_of = self._rows
        states = [match.state for match in self._matches]
        self._row_list = rows = [row_of(state) for state in states]
        self._mask = mask_of(b"".join(rows)).reshape(self.num_envs, -1)
        if self._plain:
            self.learning.encode_each(states, self._arrays, self._observer.arrays)
            arrays = self._arrays
            handed = {name: array.copy() for name, array in arrays.items()} if self.copy else arrays
            return self._observer.finish(dict(handed), self._mask)
        if self._observer.obs_type == "text":
            return tuple(self.game.render(state) for state in states)
        observe = self._observer.observe
        for i, state in enumerate(states):
            self._frames[i] = observe(state, None)
        return self._frames.copy() if self.copy else self._frames

    def _info(self, results: list[StepResult]) -> dict[str, Any]:
        """Every env's info, laid out as Gymnasium's ``_add_info`` lays out N of them."""
        count, score, progress = self.num_envs, self.game.score, self.game.progress
        states = [match.state for match in self._matches]
        scores = [score(state) for state in states]
        info = {
            "action_mask": self._mask,
            "illegal": np.array([not result.ok for result in results], dtype=np.bool_),
            "reason": np.fromiter((result.reason for result in results), object, count),
            "events": np.fromiter(
                (result.events if self.events else () for result in results), object, count
            ),
            "score": np.array(scores, dtype=np.int64),
            "progress": np.array([progress(state) for state in states], dtype=np.float64),
            "normalised_score": np.array(
                [normalise(one) for normalise, one in zip(self._normalised, scores, strict=True)],
                dtype=np.float64,
            ),
        }
        for name in list(info):
            info[f"_{name}"] = np.ones(count, dtype=np.bool_)
        if self.json_info:
            views: dict[str, Any] = {}
            for i, match in enumerate(self._matches):
                views = self._add_info(views, {"observation": self.game.observe(match.state)}, i)
            info.update(views)
        return info

    def _one_info(self, i: int, result: StepResult) -> dict[str, Any]:
        """Env ``i``'s own info, as a single env hands it out."""
        state = self._matches[i].state
        mask = mask_of_row(self._row_list[i])[1]
        return step_info(
            self.game, mask, state, result, self._normalised[i], self.json_info, self.events
        )

    def _add_finals(
        self, info: dict[str, Any], finals: list[tuple[int, Match, StepResult]]
    ) -> None:
        """The ended episodes' last observations and infos, laid out by Gymnasium's own
        ``_add_info`` (as its sync env adds them)."""
        gathered: dict[str, Any] = {}
        for i, match, result in finals:
            state = match.state
            mask = mask_of_row(self._rows(state))[1]
            normalise = self._normalise(match.options)
            one = step_info(self.game, mask, state, result, normalise, self.json_info, self.events)
            final = {"final_obs": self._observer.observe(state, mask), "final_info": one}
            gathered = self._add_info(gathered, final, i)
        info.update(gathered)

    # -- copies -----------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        matches, steps, ended, rows = self._matches, self._steps, self._ended, self._row_list
        if self._kernel is not None and matches[0] is not None:
            matches = self._kernel.matches()
            rows = [self._rows(match.state) for match in matches]
            steps, ended = self._kernel.steps.tolist(), self._kernel.ended.tolist()
        return {
            "keywords": self._keywords,
            "matches": [_match_state(match) for match in matches],
            "generators": self._generators,
            "steps": steps,
            "ended": ended,
            "gained": self._gained,
            "rows": rows,
            "np_random": self._np_random,
            "np_random_seed": self._np_random_seed,
            "spec": self.spec,
        }

    def __setstate__(self, kept: dict[str, Any]) -> None:
        keywords = dict(kept["keywords"])
        self.__init__(keywords.pop("game"), **keywords)
        self._matches = [_match_of(self.game, one) for one in kept["matches"]]
        self._generators, self._steps = list(kept["generators"]), list(kept["steps"])
        self._ended, self._row_list = list(kept["ended"]), list(kept["rows"])
        self._gained = list(kept["gained"])
        self._np_random, self._np_random_seed = kept["np_random"], kept["np_random_seed"]
        self.spec = kept["spec"]
        self._normalised = [
            self._normalise(self.options if match is None else match.options)
            for match in self._matches
        ]
        if self._matches[0] is not None:
            self._mask = mask_of(b"".join(self._row_list)).reshape(self.num_envs, -1)
            if self._kernel is not None:
                self._kernel.restore(self._steps, self._ended)

    # -- looking ----------------------------------------------------------------------------
    @property
    def matches(self) -> list[Match]:
        """The N matches being played (after :meth:`reset`; on the kernel's loop, built
        from its state without the log of actions)."""
        if self._kernel is not None and self._matches[0] is not None:
            return self._kernel.matches()
        return list(self._matches)

    def action_masks(self) -> np.ndarray:
        """A copy of the current masks, (N, actions): each env's mask at its state, as a
        sync env's ``call("action_masks")`` gives them (at game over a row of zeros: the
        env resets at its next step whatever the action)."""
        return self._mask.copy()

    def render(self) -> tuple[Any, ...] | None:
        if self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return tuple(self.game.render(match.state) for match in self.matches)
        frame = self._observer.painter.frame
        return tuple(frame(match.state) for match in self.matches)


def _reset_mask(mask: Any, count: int) -> np.ndarray:
    """``options["reset_mask"]`` checked as Gymnasium's sync env checks it."""
    if not isinstance(mask, np.ndarray):
        raise TypeError(f"options['reset_mask'] must be a numpy array, got {type(mask)}")
    if mask.shape != (count,):
        raise ValueError(f"options['reset_mask'] must have shape ({count},), got {mask.shape}")
    if mask.dtype != np.bool_:
        raise TypeError(f"options['reset_mask'] must have dtype bool, got {mask.dtype}")
    if not mask.any():
        raise ValueError("options['reset_mask'] must hold at least one True")
    return mask
