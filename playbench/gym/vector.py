"""A native vector env: N matches of one game stepped in one call into preallocated arrays.

``gymnasium.make_vec(env_id, num_envs=N)`` makes it (its ``vector_entry_point``; also
``vectorization_mode="vector_entry_point"``). It plays exactly as N :class:`PlaybenchEnv`
would, seed for seed: ``reset(seed=s)`` starts env ``i`` with seed ``s + i`` (or
``seed[i]`` for a list), and each env draws its next game seed from its own generator.

Autoreset: ``autoreset_mode`` is Gymnasium's :class:`~gymnasium.vector.AutoresetMode`,
``SAME_STEP`` by default: the step that ends an episode returns the first observation
and mask of the next one, the last observation in ``info["final_obs"]`` and its info in
``info["final_info"]`` (flagged by ``info["_final_obs"]``), so every mask handed out has
a legal action. ``NEXT_STEP`` (Gymnasium's sync and async default) hands out the ended
episode's observation and an all-zero mask, and resets on the next call whatever the
action.

``info`` has the same keys every step: ``action_mask`` (N, actions) int8, read-only;
``illegal`` (N,) bool; ``reason`` and ``events`` (N,) object arrays; ``score`` (N,) int64;
``observation`` (N,) objects with ``json_info=True``.
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
    SEED_BOUND,
    as_index,
    check_render_mode,
    learning_for,
    mask_of,
    mask_of_row,
    mask_row,
    rows_of,
    step_info,
)
from playbench.gym.observations import Observer


class PlaybenchVectorEnv(VectorEnv):
    """``num_envs`` matches of one game (the keywords are :class:`PlaybenchEnv`'s)."""

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
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        copy: bool = True,
    ) -> None:
        check_render_mode(render_mode)
        mode = AutoresetMode(autoreset_mode)
        if mode == AutoresetMode.DISABLED:
            raise ValueError("autoreset_mode must be SAME_STEP or NEXT_STEP")
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self.game, self.learning = learning_for(game)
        self.num_envs = num_envs
        self.render_mode = render_mode
        self.options = None if options is None else dict(options)
        self.json_info = json_info
        self.max_episode_steps = max_episode_steps
        self.autoreset_mode = mode
        self.copy = copy
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self._actions = self.learning.actions.actions
        size = len(self._actions)
        self._observer = Observer(
            self.game, self.learning, self.options, obs_type, one_hot, mask_in_observation
        )
        self.single_action_space = spaces.Discrete(size)
        self.single_observation_space = self._observer.space()
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self._rows_of = rows_of(size, self.learning.legal_of(self.game))
        self._rows = [mask_row(size, ())] * num_envs
        self._mask = np.zeros((num_envs, size), dtype=np.int8)
        self._plain = obs_type == "dict"
        if self._plain:
            self._arrays = self._observer.empty(num_envs)
        elif obs_type == "rgb":
            self._frames = np.zeros((num_envs, *self._observer.painter.shape), dtype=np.uint8)
        self._texts: list[str] = [""] * num_envs
        self._matches: list[Match | None] = [None] * num_envs
        self._generators: list[np.random.Generator | None] = [None] * num_envs
        self._steps = [0] * num_envs
        self._ended = [False] * num_envs

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
        return self._observations(), self._info(results)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict]:
        picks = np.asarray(actions).tolist()
        count = self.num_envs
        if len(picks) != count:
            raise ValueError(f"step needs {count} actions, got {len(picks)}")
        rewards: list[int] = []
        terminated: list[bool] = []
        truncated: list[bool] = []
        results: list[StepResult] = []
        finals: list[tuple[int, Any, dict[str, Any]]] = []
        same_step = self.autoreset_mode == AutoresetMode.SAME_STEP
        cap = self.max_episode_steps
        size = len(self._actions)
        rows, table, matches, steps = self._rows, self._actions, self._matches, self._steps
        game, json_info, is_over = self.game, self.json_info, self.game.is_over
        for i, pick in enumerate(picks):
            match = matches[i]
            if self._ended[i]:
                self._start(i, None, None)
                results.append(StepResult(ok=True))
                rewards.append(0)
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
            steps[i] += 1
            over = is_over(match.state)
            cut = not over and cap is not None and steps[i] >= cap
            rewards.append(result.reward)
            terminated.append(over)
            truncated.append(cut)
            if over or cut:
                if same_step:
                    state = match.state
                    ended = mask_of_row(self._rows_of(state))[1]
                    finals.append((i, match, step_info(game, ended, state, result, json_info)))
                    self._start(i, None, None)
                    result = StepResult(ok=True)
                else:
                    self._ended[i] = True
            results.append(result)
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

    def _start(self, i: int, seed: int | None, options: dict | None) -> None:
        if seed is None:
            seed = int(self._generators[i].integers(SEED_BOUND))
        chosen = options if options is not None else self.options
        self._matches[i] = Match.start(self.game, seed, chosen)
        self._steps[i] = 0
        self._ended[i] = False

    # -- what it hands out ------------------------------------------------------------------
    def _observations(self) -> Any:
        """Refresh every env's mask and observation row from its match."""
        row_of = self._rows_of
        states = [match.state for match in self._matches]
        self._rows = rows = [row_of(state) for state in states]
        self._mask = mask_of(b"".join(rows)).reshape(self.num_envs, -1)
        if self._plain:
            self.learning.encode_each(states, self._arrays, self._observer.arrays)
            arrays = self._arrays
            handed = {name: array.copy() for name, array in arrays.items()} if self.copy else arrays
            return self._observer.finish(dict(handed), self._mask)
        if self._observer.obs_type == "rgb":
            frame = self._observer.painter.frame
            for i, state in enumerate(states):
                self._frames[i] = frame(state)
            return self._frames.copy() if self.copy else self._frames
        return tuple(self.game.render(state) for state in states)

    def _info(self, results: list[StepResult]) -> dict[str, Any]:
        count, score = self.num_envs, self.game.score
        info = {
            "action_mask": self._mask,
            "illegal": np.array([not result.ok for result in results], dtype=np.bool_),
            "reason": np.fromiter((result.reason for result in results), object, count),
            "events": np.fromiter((result.events for result in results), object, count),
            "score": np.array([score(match.state) for match in self._matches], dtype=np.int64),
        }
        if self.json_info:
            views = np.empty(count, dtype=object)
            for i, match in enumerate(self._matches):
                views[i] = self.game.observe(match.state)
            info["observation"] = views
        return info

    def _add_finals(self, info: dict[str, Any], finals: list[tuple[int, Any, dict]]) -> None:
        count = self.num_envs
        final_obs = np.full(count, None, dtype=object)
        final_info = np.full(count, None, dtype=object)
        flags = np.zeros(count, dtype=np.bool_)
        for i, match, one in finals:
            final_obs[i] = self._observer.observe(match.state, one["action_mask"])
            final_info[i] = one
            flags[i] = True
        info["final_obs"], info["_final_obs"] = final_obs, flags
        info["final_info"], info["_final_info"] = final_info, flags.copy()

    # -- looking ----------------------------------------------------------------------------
    @property
    def matches(self) -> list[Match]:
        """The N matches being played (after :meth:`reset`)."""
        return list(self._matches)

    def action_masks(self) -> np.ndarray:
        """A copy of the current masks, (N, actions)."""
        return self._mask.copy()

    def render(self) -> tuple[Any, ...] | None:
        if self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return tuple(self.game.render(match.state) for match in self._matches)
        frame = self._observer.painter.frame
        return tuple(frame(match.state) for match in self._matches)
