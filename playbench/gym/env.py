"""The Gymnasium environment of any playbench game: a loop over :class:`Match`.

``reset(seed=s)`` starts the game with seed ``s`` (a reset without a seed draws the next
game seed from the env's generator, so a seeded env replays the same run of episodes);
``step(i)`` plays action ``i`` of the game's fixed enumeration (its ``learning`` module)
and returns the step result's reward (the score gained), ``terminated`` at game over
(``truncated`` comes from ``max_episode_steps``, by default the game's ``step_cap``). An
action whose mask entry is 0 is a no-op: reward 0, ``info["illegal"]`` true and
``info["reason"]`` saying why; so is an action the game refuses, with the game's reason.

``info`` after every reset and step has the same keys and types: ``action_mask`` (int8,
one entry per action, read-only for good: a view of new bytes each step), ``illegal``,
``reason``, ``events`` (what the step did, as the game reports it) and ``score``; with
``json_info=True`` also ``observation``, the game's JSON observation.
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
from playbench.gym.observations import Observer

#: game seeds drawn for resets without a seed lie in 0 .. SEED_BOUND - 1
SEED_BOUND = 2**63 - 1
RENDER_MODES = ("ansi", "rgb_array")


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
    game: Game, mask: np.ndarray, state: Any, result: StepResult, json_info: bool
) -> dict[str, Any]:
    """One env's ``info`` after ``result``, at ``state`` whose read-only mask is ``mask``."""
    info = {
        "action_mask": mask,
        "illegal": not result.ok,
        "reason": result.reason,
        "events": result.events,
        "score": game.score(state),
    }
    if json_info:
        info["observation"] = game.observe(state)
    return info


class PlaybenchEnv(gymnasium.Env):
    """One game of the registry as a Gymnasium environment.

    ``game`` is a registry slug; ``options`` are the game's options (a start level, a
    custom layout), overridden for one episode by ``reset(options=...)``; ``obs_type``,
    ``one_hot`` and ``mask_in_observation`` shape the observation
    (:mod:`playbench.gym.observations`); ``json_info`` adds the JSON observation to ``info``.
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
    ) -> None:
        check_render_mode(render_mode)
        self.game, self.learning = learning_for(game)
        self.render_mode = render_mode
        self.options = None if options is None else dict(options)
        self.json_info = json_info
        self._actions = self.learning.actions.actions
        self._size = size = len(self._actions)
        self._observer = Observer(
            self.game, self.learning, self.options, obs_type, one_hot, mask_in_observation
        )
        self.action_space = gymnasium.spaces.Discrete(size)
        self.observation_space = self._observer.space()
        self._match: Match | None = None
        self._rows = rows_of(size, self.learning.legal_of(self.game))
        self._row = mask_row(size, ())
        self._observe = self._observer.observe_of()
        self._score, self._is_over = self.game.score, self.game.is_over

    # -- the loop ---------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int(self.np_random.integers(SEED_BOUND))
        chosen = options if options is not None else self.options
        self._match = Match.start(self.game, game_seed, chosen)
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
        observation, info = self._look(result)
        return observation, float(result.reward), self._is_over(match.state), False, info

    def _look(self, result: StepResult) -> tuple[Any, dict[str, Any]]:
        """The observation (new arrays each time) and info after ``result``."""
        state = self._match.state
        self._row, mask = mask_of_row(self._rows(state))
        info = step_info(self.game, mask, state, result, self.json_info)
        return self._observe(state, mask), info

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

    def action_text(self, index: int) -> str:
        """The command text of action ``index`` (``"hop upLeft"``, ``"swap A1 right"``)."""
        return self.game.command_text(self._actions[index])

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs a render_mode: 'ansi' or 'rgb_array'")
            return None
        match = self.match
        if self.render_mode == "ansi":
            return self.game.render(match.state)
        return self._observer.painter.frame(match.state)
