"""A batch of N runs of one game in preallocated NumPy arrays, stepped by its C kernel.

The arrays are the kernel's whole state and output: ``state`` (N, k) int64 and ``cells``
(N, c) uint8 hold the runs; every :meth:`Batch.step` writes ``obs`` (the game's
observation arrays, views of one record per env), ``mask`` (N, actions) int8,
``rewards`` (N,) float64, ``ends`` (N,) bool, ``scores`` (N,) int64, ``illegal`` (N,)
bool and ``progresses`` (N,) float64 in place; ``origins`` (N,) int64 holds what each
run's progress counts from (the game's :func:`origin` of the options its episode started
on: Delvewick's start level), which the kernel reads. A run that has ended is started
again by the next step (on ``starts[i]``, a row of the level table) whatever its action:
Gymnasium's next-step autoreset.
"""

from __future__ import annotations

from functools import partial
from types import ModuleType
from typing import Any

import numpy as np

from playbench.kernels import native


class Batch:
    """``num_envs`` runs of the game ``module`` describes, all on these options."""

    def __init__(self, module: ModuleType, num_envs: int, options: Any = None) -> None:
        extension = native()
        if extension is None:
            raise RuntimeError("the C kernels cannot run here (see playbench.kernels)")
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self.module = module
        self.options = options
        self._step, self._reset, self._observe = (
            extension.step,
            extension.reset,
            extension.observe,
        )
        self.kernel = extension.KERNELS.index(module.KERNEL)
        self.num_envs = num_envs
        self.table, self.layouts = module.table(options)
        self.params = module.params(options)
        #: what a run starts from when nothing else is given (seed 0 on these options)
        self.start = module.start(options, 0, options)
        self.state = np.zeros((num_envs, module.STATE_WIDTH), dtype=np.int64)
        self.cells = np.zeros((num_envs, self.layouts.shape[1]), dtype=np.uint8)
        self.records = np.zeros(num_envs, dtype=module.record(options))
        #: the observation arrays by name: views into the records, rewritten every step
        self.obs = {name: self.records[name] for name in self.records.dtype.names}
        self.mask = np.zeros((num_envs, module.ACTIONS), dtype=np.int8)
        self.rewards = np.zeros(num_envs, dtype=np.float64)
        self.ends = np.zeros(num_envs, dtype=np.bool_)
        self.scores = np.zeros(num_envs, dtype=np.int64)
        self.illegal = np.zeros(num_envs, dtype=np.bool_)
        #: each run's progress (``view.progress``), written with its observation
        self.progresses = np.zeros(num_envs, dtype=np.float64)
        self.actions = np.zeros(num_envs, dtype=np.int64)
        #: what each ended run starts again on: a level row, or a seed (see the module)
        self.starts = np.full(num_envs, self.start, dtype=np.int64)
        #: what each run's progress counts from (set with the run's start or its state)
        self.origins = np.full(num_envs, module.origin(options), dtype=np.int64)
        #: whether a step refuses, unplayed, an action whose ``mask`` entry is 0 (see
        #: :meth:`masked`)
        self.refuses_unmasked = False
        self._stepped = self.stepper()
        self.reset()

    def reset(self, rows: np.ndarray | None = None) -> None:
        """Start run ``i`` again on ``rows[i]`` (every run, on ``starts``, when ``rows`` is
        None; -1 leaves a run as it is), then observe every run."""
        levels = self.starts if rows is None else np.ascontiguousarray(rows, dtype=np.int64)
        self._reset(self.kernel, levels, self.state, self.cells, self.table, self.layouts)
        self.observe()

    def observe(self) -> None:
        """Write every run's observation, mask, end and score from its state."""
        self._observe(
            self.kernel,
            self.state,
            self.cells,
            self.table,
            self.params,
            self.records,
            self.mask,
            self.ends,
            self.scores,
            self.origins,
            self.progresses,
        )

    def step(self, actions: Any) -> int:
        """Play action ``actions[i]`` in run ``i`` (a run that had ended starts again
        instead); returns how many runs this step ended."""
        self.actions[:] = actions
        return self._stepped()

    def renew(self) -> None:
        """Have the writes from now on go to new observation arrays (``records`` and its
        views in ``obs``), leaving the ones handed out before as they are: for a caller that
        hands out every step's observations, in place of copying them. Every step and
        :meth:`observe` writes each field of every run's record whole."""
        self.records = np.empty(self.num_envs, dtype=self.records.dtype)
        self.obs = {name: self.records[name] for name in self.records.dtype.names}
        self._stepped = self.stepper()

    def hide(self, quits: bool, dominated: bool) -> None:
        """Have the kernel leave out of every mask row, from now on, the game's actions that
        quit (``quits``) and its dominated ones (``dominated``), as a Gym env leaves them
        out unless asked not to (the module's ``HIDE_AT`` names the ``params`` entry of
        each kind it can leave out); ValueError when asked for a kind it cannot. The
        masks are written again at once."""
        hides = getattr(self.module, "HIDE_AT", {})
        for kind, wanted in (("quits", quits), ("dominated", dominated)):
            if kind in hides:
                self.params[hides[kind]] = int(wanted)
            elif wanted:
                raise ValueError(f"the {self.module.KERNEL} kernel cannot leave out {kind}")
        self.observe()

    def masked(self) -> None:
        """From now on a step refuses, unplayed, every action outside ``mask`` as it stands
        (the kernel's own mask leaves out what the rules refuse and what :meth:`hide` leaves
        out; an entry a caller zeroes in ``mask`` before a step is refused too)."""
        self.refuses_unmasked = True
        self._stepped = self.stepper()

    def stepper(self) -> Any:
        """:meth:`step` as one call with its arrays bound, for a caller that writes the
        actions into ``actions`` itself (a loop of one run, where each call's cost counts)."""
        return partial(
            self._step,
            self.kernel,
            self.actions,
            self.starts,
            self.state,
            self.cells,
            self.table,
            self.layouts,
            self.params,
            self.records,
            self.mask,
            self.rewards,
            self.ends,
            self.scores,
            self.illegal,
            self.origins,
            self.progresses,
            self.refuses_unmasked,
        )

    def progress(self) -> np.ndarray:
        """Every run's progress, (N,) float64, as the last step or observation wrote it: the
        game's ``progress`` of each run's state (a run ended by :meth:`restart` is counted as
        it was until its next step), in a new array."""
        return self.progresses.copy()

    def restart(self, i: Any, start: Any) -> None:
        """Have run ``i`` start again on ``start`` at the next step, whatever its action
        (as a run that ended does); or the runs of a list ``i``, each on its ``start``."""
        self.starts[i] = start
        self.state[i, self.module.STATUS] = self.module.ENDED

    def get(self, i: int) -> Any:
        """Run ``i`` as the game's own state (a new object of the Python rules)."""
        return self.module.to_state(self, i)

    def set(self, i: int, state: Any) -> None:
        """Make run ``i`` the game's state ``state`` (one the kernel takes); :meth:`observe`
        then writes what it shows."""
        self.module.from_state(self, i, state)
