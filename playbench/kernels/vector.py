"""The native vector env's loop on a game's kernel: every step one call for all N envs.

:class:`PlaybenchVectorEnv` asks :func:`kernel_loop` for one when it is made; it gets one
when the game has a kernel that runs here and the env asks for nothing the kernel does not
give: the ``dict`` observation, ``events=False`` (``info["events"]`` then holds empty
tuples on either loop), ``json_info=False``, ``illegal="noop"``, ``reward="score"``,
next-step autoreset, and options (and tasks) whose levels the kernel's table holds. Where
the env leaves actions out of its mask (Cogcrawl's ``up`` from the first level, unless
``allow_quit``; Gem Swap's dominated ``hint``, unless ``allow_dominated``), the kernel
leaves them out of its own (:meth:`~playbench.kernels.batch.Batch.hide`), and it refuses
every action its mask row leaves out without playing it
(:meth:`~playbench.kernels.batch.Batch.masked`), as the env's own loop refuses every
action off the mask, some of which the rules would play.
Everything handed out is then what the env's own loop over matches hands out, step for
step (``tests/kernels/test_vector.py`` plays both). Each episode's seed and options are
the env's own draws from its generators, so the loop keeps no Python per env but at the
start of an episode.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from playbench.core.match import Match
from playbench.gym.baselines import figures
from playbench.kernels import for_env, native

#: the sets of options whose figures one loop keeps (more start the keeping again:
#: ``games="test"`` makes new options for each episode)
OPTIONS_KEPT = 64
#: the keys of ``info``, in its order
INFO_KEYS = ("action_mask", "illegal", "reason", "events", "score", "progress", "normalised_score")
#: the flags of the keys of ``info`` (Gymnasium's ``_key`` layout), after them
INFO_FLAGS = tuple(f"_{name}" for name in INFO_KEYS)


def _fits(env: Any) -> bool:
    return (
        not env.events
        and env._observer.obs_type == "dict"
        and not env.json_info
        and env.illegal == "noop"
        and env.reward == "score"
        and env.autoreset_mode == AutoresetMode.NEXT_STEP
    )


def kernel_loop(env: Any) -> KernelLoop | None:
    """The kernel's loop for ``env``, or None when its own loop over matches must run."""
    if not _fits(env):
        return None
    runs = for_env(env, env.num_envs)
    if runs is None:
        return None
    every = [env.options, *(env.seeds.tasks or ())]
    if any(runs.module.start(env.options, 0, options) is None for options in every):
        return None
    return KernelLoop(env, runs)


class KernelLoop:
    """Steps ``env``'s N episodes in ``runs`` (a :class:`~playbench.kernels.batch.Batch`)."""

    def __init__(self, env: Any, runs: Any) -> None:
        self.env = env
        self.runs = runs
        # the env refuses, unplayed, every action off its mask (some of which the rules
        # would play: Cogcrawl's wield of an empty letter passes a turn)
        runs.masked()
        count = env.num_envs
        #: each env's steps since its episode began, and whether the last step ended it
        #: (the kernel's ``tally`` counts both at every step)
        self.steps = np.zeros(count, dtype=np.int64)
        self.ended = np.zeros(count, dtype=np.bool_)
        #: how many envs the last step ended, or None when not counted since a reset
        self.ending: int | None = None
        #: each env's normalising figures: the random mean and the bot's minus it (0 and 0
        #: where the game has none: normalised score 0)
        self.low = np.zeros(count, dtype=np.float64)
        self.span = np.zeros(count, dtype=np.float64)
        #: the kernel's ``tally`` with the batch's arrays it reads bound
        self._count = partial(
            native().tally, runs.ends, runs.illegal, runs.scores, self.low, self.span
        )
        #: the flags of every key of ``info`` (one row a key), copied for each step
        self.flags = np.ones((len(INFO_FLAGS), count), np.bool_)
        self.blank = np.full(count, "", dtype=object)
        self.no_events = np.empty(count, dtype=object)
        self.no_events[:] = [()] * count
        #: id of a set of options an episode started on -> (those options, their
        #: normalising figures, their origin and start in the kernel); the options are
        #: kept, so their id stays theirs
        self.known: dict[int, tuple[Any, float, float, int, int]] = {}
        #: the seed and options each env's episode started with
        self.begun: list[tuple[int, Any]] = [(0, None)] * count
        #: whether a run's start in the kernel is its seed (else its options' own start)
        self.on_seed = runs.module.STARTS_ON_SEED
        #: what the kernel's observation arrays need to be handed out (None: nothing)
        self.finish = env._observer.finisher()

    def started(self, i: int) -> None:
        """Env ``i``'s episode was just started by the env (its match holds it): load it."""
        match = self.env._matches[i]
        self.begun[i] = (match.seed, match.options)
        self.runs.set(i, match.state)
        self._figures(i, match.options)
        self.steps[i] = 0
        self.ended[i] = False
        self.ending = None

    def _known(self, options: Any) -> tuple[Any, float, float, int, int]:
        """What an episode on ``options`` needs, worked out once for those options."""
        found = self.known.get(id(options))
        if found is None or found[0] is not options:
            if len(self.known) >= OPTIONS_KEPT:
                self.known.clear()
            means = figures(self.env.game.slug, options)
            low, span = (0.0, 0.0) if means is None else (means["random"], 0.0)
            if means is not None:
                span = means["bot"] - means["random"]
            module = self.runs.module
            begin = module.start(self.env.options, 0, options)
            found = (options, low, span, module.origin(options), begin)
            self.known[id(options)] = found
        return found

    def _figures(self, i: int, options: Any) -> None:
        """Set env ``i``'s normalising figures for ``options``."""
        _, low, span, _, _ = self._known(options)
        self.low[i], self.span[i] = low, span

    def _restart(self, ended: list[int]) -> None:
        """Start the next episode of each env in ``ended`` on the env's own draw (as its
        ``_start`` makes it) at the next step: the kernel starts the runs."""
        env, runs, generators = self.env, self.runs, self.env._generators
        drawn = env.seeds.draws([generators[i] for i in ended], env.options)
        begun = self.begun
        for i, game in zip(ended, drawn, strict=True):
            begun[i] = game
        chosen = drawn[0][1]
        if all(options is chosen for _, options in drawn):
            # the usual case: every env on the env's options (one set of figures)
            _, low, span, origin, begin = self._known(chosen)
            use_seed = self.on_seed and begin is not None
            self.low[ended], self.span[ended] = low, span
            runs.restart(ended, [seed for seed, _ in drawn] if use_seed else begin)
            runs.origins[ended] = origin
            return
        starts, lows, spans, origins = [], [], [], []
        for seed, options in drawn:
            _, low, span, origin, begin = self._known(options)
            starts.append(seed if self.on_seed and begin is not None else begin)
            lows.append(low)
            spans.append(span)
            origins.append(origin)
        self.low[ended], self.span[ended] = lows, spans
        runs.restart(ended, starts)
        runs.origins[ended] = origins

    def reset_all(self) -> None:
        """Load every env's match after the env's own reset started them."""
        for i in range(self.env.num_envs):
            self.started(i)
        if self.env.copy:
            # the last step's observations were handed out: write the new ones elsewhere
            self.runs.renew()
        self.runs.observe()

    def restore(self, steps: list[int], ended: list[bool]) -> None:
        """Load the matches, step counts and ends of a copy of the env."""
        self.reset_all()
        self.steps[:] = steps
        self.ended[:] = ended
        self.ending = None

    def step(self, indices: np.ndarray) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict]:
        """One step of every env on ``indices``, N action indices the env has checked."""
        env, runs = self.env, self.runs
        if self.ending != 0:
            ended = np.flatnonzero(self.ended).tolist()
            if ended:
                self._restart(ended)
        if env.copy:
            # the step writes its observations into new arrays: those handed out stay as
            # they are (Gymnasium's copy), with no copy made
            runs.renew()
        runs.step(indices)
        count = len(indices)
        terminated, truncated = np.empty(count, np.bool_), np.empty(count, np.bool_)
        normalised = np.empty(count, np.float64)
        # the steps, ends (as Gymnasium's TimeLimit: the step at the cap is truncated, ended
        # by the game or not; a run started again counts from 0) and normalised scores
        refused, self.ending = self._count(
            env.max_episode_steps, self.steps, self.ended, terminated, truncated, normalised
        )
        mask = runs.mask.copy()
        mask.flags.writeable = False
        env._mask = mask
        reason = self.blank.copy()
        illegal = runs.illegal.copy()
        if refused:
            for i in np.flatnonzero(illegal).tolist():
                reason[i] = f"{env.game.command_text(env._actions[indices[i]])} is not legal now"
        # each key's flags: new arrays each step, as Gymnasium's sync env hands them out
        flags = self.flags.copy()
        events, scores = self.no_events.copy(), runs.scores.copy()
        values = (mask, illegal, reason, events, scores, runs.progress(), normalised)
        info = dict(zip(INFO_KEYS, values, strict=True))
        info.update(zip(INFO_FLAGS, flags, strict=True))
        observations = dict(runs.obs)
        if self.finish is not None:
            observations = self.finish(observations, mask)
        return observations, runs.rewards.copy(), terminated, truncated, info

    def matches(self) -> list[Match]:
        """Each env's match as it stands (its state from the kernel; the seed and options
        its episode started with; no log of the actions, which the kernel does not keep)."""
        game, get = self.env.game, self.runs.get
        return [Match(game, get(i), *begun) for i, begun in enumerate(self.begun)]
