"""The Gymnasium environment of any playbench game: a loop over :class:`Match`.

``reset(seed=s)`` starts the game with seed ``s`` (a reset without a seed draws the next
game seed from the env's generator, so a seeded env replays the same run of episodes);
``step(i)`` plays action ``i`` of the game's fixed enumeration (:mod:`playbench.gym.actions`)
and returns the score gained as the reward, ``terminated`` at game over (``truncated``
comes from ``max_episode_steps``). An action the rules would not take now (its mask entry
is 0, or the game refuses it) is a no-op: reward 0, ``info["illegal"]`` true and
``info["reason"]`` saying why.

``info`` after every reset and step: ``action_mask`` (int8, one entry per action),
``observation`` (the game's JSON observation), ``illegal``, ``reason``, ``events`` (what
the step did, as the game reports it) and ``score``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from playbench.core.game import JSON
from playbench.core.match import Match
from playbench.core.registry import get_game
from playbench.gym.actions import TABLES
from playbench.gym.observations import CODECS, Observation
from playbench.gym.pictures import PAINTERS

#: game seeds drawn for resets without a seed lie in 0 .. SEED_BOUND - 1
SEED_BOUND = 2**63 - 1


class PlaybenchEnv(gymnasium.Env[Observation, np.int64]):
    """One game of the registry as a Gymnasium environment.

    ``game`` is a registry slug; ``options`` are the game's options (a start level, a
    custom layout), overridden for one episode by ``reset(options=...)``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self, game: str, options: Mapping[str, Any] | None = None, render_mode: str | None = None
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"got {render_mode!r}"
            )
        self.game = get_game(game)
        self.render_mode = render_mode
        self.options = None if options is None else dict(options)
        self._table = TABLES[self.game.slug]
        self._codec = CODECS[self.game.slug]
        self._paint = PAINTERS[self.game.slug]
        self.action_space = spaces.Discrete(self._table.size)
        self.observation_space = self._codec.space()
        self._match: Match | None = None
        self._mask = np.zeros(self._table.size, dtype=np.int8)
        self._view: JSON = {}

    # -- the loop ---------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int(self.np_random.integers(SEED_BOUND))
        chosen = options if options is not None else self.options
        self._match = Match.start(self.game, game_seed, chosen)
        return self._look(), self._info(False, "", [])

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        match = self._match
        if match is None:
            raise gymnasium.error.ResetNeeded("call reset before step")
        index = _index(action, self._table.size)
        if index is None:
            return self._refuse(f"action {action!r} is no index of Discrete({self._table.size})")
        if not self._mask[index]:
            return self._refuse(f"{self.action_text(index)} is not legal now")
        before = match.score
        result = match.play(self._table.actions[index])
        if not (result.ok or result.advanced):
            return self._refuse(result.reason)
        observation = self._look()
        info = self._info(not result.ok, result.reason, result.events)
        return observation, float(match.score - before), match.over, False, info

    def _refuse(self, reason: str) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        # a fresh read: what a step returns is never shared with what came before
        return self._look(), 0.0, self._match.over, False, self._info(True, reason, [])

    def _look(self) -> Observation:
        """Read the match once: its JSON observation and its mask."""
        match = self._match
        game, state = match.game, match.state
        self._view = game.observe(state)
        self._mask = np.frombuffer(self._table.mask(game.legal_actions(state)), dtype=np.int8)
        return self._codec.encode(self._view)

    def _info(self, illegal: bool, reason: str, events: list[JSON]) -> dict[str, Any]:
        return {
            "action_mask": self._mask,
            "observation": self._view,
            "illegal": illegal,
            "reason": reason,
            "events": events,
            "score": self._match.score,
        }

    # -- looking ----------------------------------------------------------------------------
    @property
    def match(self) -> Match:
        """The match being played (after :meth:`reset`)."""
        if self._match is None:
            raise gymnasium.error.ResetNeeded("call reset first")
        return self._match

    def action_masks(self) -> np.ndarray:
        """The current mask (the name maskable-policy libraries look for)."""
        return self._mask

    def action_text(self, index: int) -> str:
        """The command text of action ``index`` (``"hop upLeft"``, ``"swap A1 right"``)."""
        return self.game.command_text(self._table.actions[index])

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs a render_mode: 'ansi' or 'rgb_array'")
            return None
        match = self.match
        if self.render_mode == "ansi":
            return match.game.render(match.state)
        return self._paint(self._view)


def _index(action: Any, size: int) -> int | None:
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
