"""The single Gymnasium env's loop on a game's kernel: a batch of one, stepped per call.

:class:`~playbench.gym.env.PlaybenchEnv` asks :func:`kernel_run` for one when it is made;
it gets one when the game has a kernel that runs here and the env asks for nothing the
kernel does not give: ``events=False`` (``info["events"]`` then holds an empty tuple on
either loop), ``json_info=False``, a ``dict`` observation (one-hot planes and the mask in
it included), and options the kernel takes. Where the env leaves actions out of its
mask (a game's quits and dominated actions, unless ``allow_quit`` and
``allow_dominated``), the kernel leaves them out of its own too
(:meth:`~playbench.kernels.batch.Batch.hide`), and so refuses them unplayed, as on the
rules.

The first episode on a set of options starts on the rules (``Match.start``: the same
checks of the seed and options, the same start) and is loaded into the batch. Once the
rules have taken those options (the env's own, or one of its tasks: the same object), a
later episode on them is started by the kernel itself from its seed (checked as the rules
check it first), and its match's state is read back out of the batch only when it is
asked for. An episode whose start the batch cannot hold (options outside its level
table) or whose options were given to ``reset`` starts on the rules. What the env hands
out is then what it hands out on the rules, step for step
(``tests/gym/test_single_kernel.py`` plays both), and its :attr:`match` is the same
match, its log included.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from playbench.core.match import Match, StepResult
from playbench.core.rng import check_seed
from playbench.kernels import for_env

_ACCEPTED = StepResult(ok=True, advanced=True)
_NOTHING = object()
#: the sets of options the rules took that one run keeps (more start the keeping again:
#: ``games="test"`` makes new options for every reset)
OPTIONS_KEPT = 64
#: the accepted results kept by reward (a reward beyond them starts the keeping again)
RESULTS_KEPT = 4096


def _fits(env: Any) -> bool:
    return not env.events and not env.json_info and env._observer.obs_type == "dict"


def kernel_run(env: Any) -> KernelRun | None:
    """The kernel's loop for the single env ``env``, or None when its rules must run."""
    if not _fits(env):
        return None
    runs = for_env(env, 1)
    return None if runs is None else KernelRun(env, runs)


class KernelRun:
    """Plays ``env``'s episodes in ``runs``, a :class:`~playbench.kernels.batch.Batch` of
    one, keeping the env's :class:`Match` (its seed, options and log) beside it."""

    def __init__(self, env: Any, runs: Any) -> None:
        self.game = env.game
        self.runs = runs
        self.match: Match | None = None
        #: whether the match's state is behind the batch's (refreshed when it is read)
        self.stale = False
        self._step = runs.stepper()
        self._table = env._actions
        #: the batch's arrays each step writes or reads, as the run's own views
        self._actions, self._illegal, self._rewards = runs.actions, runs.illegal, runs.rewards
        self._mask, self._scores, self._ends = runs.mask[0], runs.scores, runs.ends
        self._progresses = runs.progresses
        records = runs.records
        #: each observation array's name and copy, bound to its view of the run's record
        self._copies = [(name, records[name][0].copy) for name in records.dtype.names]
        #: id -> options the rules took for an episode's start (kept, so the id stays theirs)
        self._taken: dict[int, Any] = {}
        #: the accepted results by reward (frozen, so one serves every step of its reward)
        self._results: dict[int, StepResult] = {0: _ACCEPTED}
        self._row = np.zeros(1, dtype=np.int64)

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

    def taken(self, options: Any) -> None:
        """The rules started an episode on ``options`` (the env's own or a task's, not
        ones given to ``reset``): the kernel may start later ones on them itself."""
        if len(self._taken) >= OPTIONS_KEPT:
            self._taken.clear()
        self._taken[id(options)] = options

    def begin(self, seed: int, options: Any) -> Match | None:
        """A new episode on ``seed`` and ``options`` started by the kernel, when the rules
        took these very options before and the kernel's table holds them (None: start it
        on the rules). A bad seed raises what ``Match.start`` raises for it."""
        if self._taken.get(id(options), _NOTHING) is not options:
            return None
        runs = self.runs
        module = runs.module
        start = module.start(runs.options, check_seed(seed), options)
        if start is None:
            return None
        self._row[0] = start
        # the origin first: the reset's observation writes the progress counted from it
        runs.origins[0] = module.origin(options)
        runs.reset(self._row)
        self.match = Match(self.game, None, seed, options)
        self.stale = True
        return self.match

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
        self._actions[0] = index
        self._step()
        if self._illegal.item(0):
            # the rules refused it: their reason, from the state left as it was
            state = self.runs.get(0)
            return StepResult(ok=False, reason=self.game.step(state, self._table[index]).reason)
        match = self.match
        match.log.append(self._table[index])
        match.moves += 1
        self.stale = True
        reward = int(self._rewards.item(0))
        found = self._results.get(reward)
        if found is None:
            if len(self._results) >= RESULTS_KEPT:
                self._results = {0: _ACCEPTED}
            found = self._results[reward] = StepResult(ok=True, reward=reward, advanced=True)
        return found

    def look(self) -> tuple[dict[str, np.ndarray], bytes, int, float, bool]:
        """What the kernel wrote, in new arrays and bytes: the observation, the mask's row,
        the score, the progress and whether the game is over."""
        return (
            {name: copy() for name, copy in self._copies},
            self._mask.tobytes(),
            self._scores.item(0),
            self._progresses.item(0),
            self._ends.item(0),
        )
