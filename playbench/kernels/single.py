"""The single Gymnasium env's loop on a game's kernel: a batch of one, stepped per call.

:class:`~playbench.gym.env.PlaybenchEnv` asks :func:`kernel_run` for one when it is made;
it gets one when the game has a kernel that runs here and the env asks for nothing the
kernel does not give: ``events=False`` (``info["events"]`` then holds an empty tuple on
either loop), ``json_info=False``, a ``dict`` observation (one-hot planes and the mask in
it included), and options the kernel takes. Where the env leaves actions out of its
mask (a game's quits and dominated actions, unless ``allow_quit`` and
``allow_dominated``), the kernel's module names them (``left_out``), and they are left
out of the kernel's mask too (and so refused unplayed, as on the rules). Every episode
still starts on the rules (``Match.start``: the same checks
of the seed and options, the same start) and is loaded into the batch; an episode whose
start the batch cannot hold (options outside its level table) is played on the rules.
What the env hands out is then what it hands out on the rules, step for step
(``tests/gym/test_single_kernel.py`` plays both), and its :attr:`match` is the same
match, its log included.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from playbench.core.match import Match, StepResult
from playbench.kernels import for_env

_ACCEPTED = StepResult(ok=True, advanced=True)


def _fits(env: Any) -> bool:
    return not env.events and not env.json_info and env._observer.obs_type == "dict"


def kernel_run(env: Any) -> KernelRun | None:
    """The kernel's loop for the single env ``env``, or None when its rules must run."""
    if not _fits(env):
        return None
    found = for_env(env, 1)
    return None if found is None else KernelRun(env, *found)


class KernelRun:
    """Plays ``env``'s episodes in ``runs``, a :class:`~playbench.kernels.batch.Batch` of
    one, keeping the env's :class:`Match` (its seed, options and log) beside it."""

    def __init__(self, env: Any, runs: Any, hidden: tuple[bool, bool] | None = None) -> None:
        self.game = env.game
        self.runs = runs
        #: (quits, dominated) the env leaves out of its mask, or None (see the module)
        self.hidden = hidden
        self.match: Match | None = None
        #: whether the match's state is behind the batch's (refreshed when it is read)
        self.stale = False
        self._step = runs.stepper()
        self._table = env._actions
        #: the batch's arrays each step writes or reads, as the run's own views
        self._actions, self._illegal, self._rewards = runs.actions, runs.illegal, runs.rewards
        self._mask, self._scores, self._ends = runs.mask[0], runs.scores, runs.ends
        module = runs.module
        #: one run's progress: the module's own where it has one, else its batch's
        self._progress = getattr(module, "progress_of", None) or _progress_of
        records = runs.records
        #: each observation array's name and copy, bound to its view of the run's record
        self._copies = [(name, records[name][0].copy) for name in records.dtype.names]

    def load(self, match: Match) -> bool:
        """Play ``match`` (a new episode, or a copy's) on the kernel from its state; False
        when the batch cannot hold it (the env then plays it on its rules)."""
        try:
            self.runs.set(0, match.state)
        except ValueError:
            self.match = None
            return False
        self.runs.observe()
        self.match = match
        self.stale = False
        return True

    def current(self) -> Match:
        """The match with its state as the kernel has it."""
        match = self.match
        if self.stale:
            match.state = self.runs.get(0)
            self.stale = False
        return match

    def play(self, index: int) -> StepResult:
        """Play action ``index``, which the mask holds legal; the result as
        ``Match.play`` gives it but for its events (none) and its action."""
        runs = self.runs
        action = self._table[index]
        self._actions[0] = index
        self._step()
        if self._illegal.item(0):
            # the rules refused it: their reason, from the state left as it was
            state = runs.get(0)
            return StepResult(ok=False, reason=self.game.step(state, action).reason)
        match = self.match
        match.log.append(action)
        match.moves += 1
        self.stale = True
        reward = int(self._rewards.item(0))
        return _ACCEPTED if reward == 0 else StepResult(ok=True, reward=reward, advanced=True)

    def look(self) -> tuple[dict[str, np.ndarray], bytes, int, float, bool]:
        """What the kernel wrote, in new arrays and bytes: the observation, the mask's row,
        the score, the progress and whether the game is over."""
        if self.hidden is None:
            row = self._mask.tobytes()
        else:
            runs = self.runs
            mask = runs.mask.copy()
            mask[runs.module.left_out(runs, *self.hidden)] = 0
            row = mask[0].tobytes()
        return (
            {name: copy() for name, copy in self._copies},
            row,
            self._scores.item(0),
            self._progress(self.runs, 0),
            self._ends.item(0),
        )


def _progress_of(runs: Any, i: int) -> float:
    """Run ``i``'s progress from its batch's (a kernel with no ``progress_of`` of its own)."""
    return float(runs.progress()[i])
