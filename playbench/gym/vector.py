"""A native vector env: N matches of one game stepped in one call into preallocated arrays.

``gymnasium.make_vec(env_id, num_envs=N)`` makes it (its ``vector_entry_point``; also
``vectorization_mode="vector_entry_point"``). It plays exactly as N :class:`PlaybenchEnv`
would, seed for seed: ``reset(seed=s)`` starts env ``i`` with seed ``s + i`` (or
``seed[i]`` for a list), and each env draws its next game seed from its own generator.

Autoreset: ``autoreset_mode`` is Gymnasium's :class:`~gymnasium.vector.AutoresetMode`,
``NEXT_STEP`` by default, as Gymnasium's own sync and async envs, so every Gymnasium
vector wrapper takes it (``NormalizeObservation`` takes no other): the step that ends an
episode hands out its last observation, and the next call resets that env whatever its
action. As any action then does the same, that env's mask row is all ones: every mask
row handed out has a legal action. ``SAME_STEP``: the step that ends an episode returns
the first observation and mask of the next one, the last observation in
``info["final_obs"]`` (an object array, flagged by ``info["_final_obs"]``) and its info
in ``info["final_info"]``, a dict of arrays flagged by ``info["_final_info"]``, as
Gymnasium's sync env lays them out.

``info`` is Gymnasium's layout, the same keys every step, each with its ``_key`` flags
(all true: every env reports every key): ``action_mask`` (N, actions) int8, read-only;
``illegal`` (N,) bool; ``reason`` and ``events`` (N,) object arrays; ``score`` (N,)
int64; ``progress`` (N,) float64; ``observation`` (N,) objects with ``json_info=True``.
With ``events=False`` each ``events`` entry is an empty tuple, and the env steps all N
matches in one call of the game's compiled kernel where it has one
(:mod:`playbench.kernels.vector` says when), handing out the very same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from playbench.core.match import Match, StepResult
from playbench.gym.env import (
    RENDER_MODES,
    Door,
    _match_of,
    _match_state,
    as_index,
    check_render_mode,
    mask_of,
    mask_of_row,
    mask_row,
    outcome,
    step_info,
)
from playbench.kernels.vector import kernel_loop


class PlaybenchVectorEnv(Door, VectorEnv):
    """``num_envs`` matches of one game (the keywords are :class:`PlaybenchEnv`'s, with
    ``max_episode_steps`` for its ``step_cap``)."""

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
        illegal: str = "noop",
        illegal_penalty: float = 1.0,
        allow_quit: bool = False,
        start_seed: int = 0,
        num_seeds: int = 0,
        tasks: Sequence[Mapping[str, Any]] | None = None,
        frame_size: int = 64,
        events: bool = True,
    ) -> None:
        check_render_mode(render_mode)
        mode = AutoresetMode(autoreset_mode)
        if mode == AutoresetMode.DISABLED:
            raise ValueError("autoreset_mode must be SAME_STEP or NEXT_STEP")
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        keywords = dict(locals())
        del keywords["self"], keywords["game"], keywords["mode"]
        self._door(game, keywords)
        self.events = events
        self.num_envs = num_envs
        self.render_mode = render_mode
        cap = self.game.step_cap if max_episode_steps is None else max_episode_steps
        if cap < 1:
            raise ValueError(f"max_episode_steps must be at least 1, got {cap}")
        self.max_episode_steps = cap
        self.autoreset_mode = mode
        self.copy = copy
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        size = self._size
        self.single_action_space = spaces.Discrete(size)
        self.single_observation_space = self._observer.space()
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self._row_list = [mask_row(size, ())] * num_envs
        self._any = bytes([1]) * size
        self._mask = np.zeros((num_envs, size), dtype=np.int8)
        self._plain = obs_type == "dict"
        if self._plain:
            self._arrays = self._observer.empty(num_envs)
        elif obs_type != "text":
            single = self.single_observation_space
            self._frames = np.zeros((num_envs, *single.shape), dtype=single.dtype)
        self._matches: list[Match | None] = [None] * num_envs
        self._generators: list[np.random.Generator | None] = [None] * num_envs
        self._progress = [self._normalise(self.options)] * num_envs
        self._steps = [0] * num_envs
        self._ended = [False] * num_envs
        self._kernel = kernel_loop(self)

    # -- the loop ---------------------------------------------------------------------------
    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict | None = None
    ) -> tuple[Any, dict[str, Any]]:
        if seed is None or isinstance(seed, int):
            seeds = [None if seed is None else seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"reset needs {self.num_envs} seeds, got {len(seeds)}")
        if seed is not None:
            self._np_random, self._np_random_seed = seeding.np_random(seeds[0])
        for i, one in enumerate(seeds):
            if one is not None or self._generators[i] is None:
                self._generators[i] = seeding.np_random(one)[0]
            self._start(i, one, options)
        results = [StepResult(ok=True)] * self.num_envs
        if self._kernel is not None:
            self._kernel.reset_all()
        return self._observations(), self._info(results)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict]:
        if self._kernel is not None:
            return self._kernel.step(actions)
        picks = np.asarray(actions).tolist()
        count = self.num_envs
        if len(picks) != count:
            raise ValueError(f"step needs {count} actions, got {len(picks)}")
        rewards: list[float] = []
        terminated: list[bool] = []
        truncated: list[bool] = []
        results: list[StepResult] = []
        finals: list[tuple[int, Match]] = []
        same_step = self.autoreset_mode == AutoresetMode.SAME_STEP
        cap, size, illegal, penalty = (
            self.max_episode_steps,
            self._size,
            self.illegal,
            self.illegal_penalty,
        )
        rows, table, matches, steps = self._row_list, self._actions, self._matches, self._steps
        game, is_over, ended = self.game, self.game.is_over, self._ended
        for i, pick in enumerate(picks):
            match = matches[i]
            if ended[i]:
                self._start(i, None, None)
                results.append(StepResult(ok=True))
                rewards.append(0.0)
                terminated.append(False)
                truncated.append(False)
                continue
            index = pick if type(pick) is int and 0 <= pick < size else as_index(pick, size)
            if index is None:
                reason = f"action {pick!r} is no index of Discrete({size})"
                result = StepResult(ok=False, reason=reason)
            elif not rows[i][index]:
                text = game.command_text(table[index])
                result = StepResult(ok=False, reason=f"{text} is not legal now")
            else:
                result = match.play(table[index])
            reward, stopped = outcome(result, illegal, penalty)
            steps[i] += 1
            over = stopped or is_over(match.state)
            cut = not over and steps[i] >= cap
            rewards.append(reward)
            terminated.append(over)
            truncated.append(cut)
            results.append(result)
            if over or cut:
                if same_step:
                    finals.append((i, match))
                    self._start(i, None, None)
                else:
                    ended[i] = True
        ending = [(i, results[i]) for i, _ in finals]
        for i, _ in finals:
            results[i] = StepResult(ok=True)
        observations = self._observations()
        info = self._info(results)
        if finals:
            self._add_finals(info, finals, dict(ending))
        return (
            observations,
            np.array(rewards, dtype=np.float64),
            np.array(terminated, dtype=np.bool_),
            np.array(truncated, dtype=np.bool_),
            info,
        )

    def _start(self, i: int, seed: int | None, options: Mapping[str, Any] | None) -> None:
        if seed is None:
            seed, chosen = self.seeds.draw(self._generators[i], self.options)
        else:
            chosen = self.options
        if options is not None:
            chosen = options
        self._matches[i] = Match.start(self.game, seed, chosen)
        self._progress[i] = self._normalise(chosen)
        self._steps[i] = 0
        self._ended[i] = False

    # -- what it hands out ------------------------------------------------------------------
    def _observations(self) -> Any:
        """Refresh every env's mask and observation row from its match."""
        row_of = self._rows
        states = [match.state for match in self._matches]
        self._row_list = rows = [row_of(state) for state in states]
        handed = [self._any if gone else row for row, gone in zip(rows, self._ended, strict=True)]
        self._mask = mask_of(b"".join(handed)).reshape(self.num_envs, -1)
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
        count, score = self.num_envs, self.game.score
        scores = [score(match.state) for match in self._matches]
        info = {
            "action_mask": self._mask,
            "illegal": np.array([not result.ok for result in results], dtype=np.bool_),
            "reason": np.fromiter((result.reason for result in results), object, count),
            "events": np.fromiter(
                (result.events if self.events else () for result in results), object, count
            ),
            "score": np.array(scores, dtype=np.int64),
            "progress": np.array(
                [progress(one) for progress, one in zip(self._progress, scores, strict=True)],
                dtype=np.float64,
            ),
        }
        if self.json_info:
            views = np.empty(count, dtype=object)
            for i, match in enumerate(self._matches):
                views[i] = self.game.observe(match.state)
            info["observation"] = views
        for name in list(info):
            info[f"_{name}"] = np.ones(count, dtype=np.bool_)
        return info

    def _add_finals(
        self, info: dict[str, Any], finals: list[tuple[int, Match]], ending: dict[int, Any]
    ) -> None:
        """The ended episodes' last observations and infos, laid out by Gymnasium's own
        ``_add_info`` (as its sync env adds them)."""
        gathered: dict[str, Any] = {}
        for i, match in finals:
            state = match.state
            mask = mask_of_row(self._rows(state))[1]
            progress = self._normalise(match.options)(self.game.score(state))
            one = step_info(self.game, mask, state, ending[i], progress, self.json_info)
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
        self._np_random, self._np_random_seed = kept["np_random"], kept["np_random_seed"]
        self.spec = kept["spec"]
        self._progress = [
            self._normalise(self.options if match is None else match.options)
            for match in self._matches
        ]
        if self._matches[0] is not None:
            handed = [
                self._any if gone else row
                for row, gone in zip(self._row_list, self._ended, strict=True)
            ]
            self._mask = mask_of(b"".join(handed)).reshape(self.num_envs, -1)
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
        """A copy of the current masks, (N, actions)."""
        return self._mask.copy()

    def render(self) -> tuple[Any, ...] | None:
        if self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return tuple(self.game.render(match.state) for match in self.matches)
        frame = self._observer.painter.frame
        return tuple(frame(match.state) for match in self.matches)
