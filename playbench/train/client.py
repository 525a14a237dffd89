"""The OpenEnv client of a playbench game: ``openenv-core``'s
:class:`~openenv.core.env_client.EnvClient` (one WebSocket per client, one episode each)
with the game's action, observation and state::

    with GameEnv(base_url="http://127.0.0.1:8000/openenv/delvewick").sync() as env:
        first = env.reset(seed=7)
        result = env.step(GameAction(commands=["dig down"]))
"""

from __future__ import annotations

from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

from playbench.train.openenv import GameAction, GameObservation, GameState


class GameEnv(EnvClient[GameAction, GameObservation, GameState]):
    """A playbench game's OpenEnv environment, reached over its WebSocket."""

    def _step_payload(self, action: GameAction) -> dict[str, Any]:
        return action.model_dump(exclude={"metadata"}, exclude_none=True)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[GameObservation]:
        data = payload.get("observation", {})
        observation = GameObservation(
            **data,
            done=payload.get("done", False),
            reward=payload.get("reward"),
            metadata=data.get("info", {}),
        )
        return StepResult(
            observation=observation, reward=payload.get("reward"), done=observation.done
        )

    def _parse_state(self, payload: dict[str, Any]) -> GameState:
        return GameState(**payload)
