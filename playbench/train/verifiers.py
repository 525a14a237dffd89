"""A game as a verifiers environment, as the Environments Hub loads one:
:func:`load_environment` returns a :class:`GameEnv` (verifiers' ``MultiTurnEnv``) on the
seat, with a ``Rubric`` whose reward is the episode's replayed progress::

    vf-eval playbench.train.verifiers -a '{"game": "gem-swap", "seeds": "0-9"}' \\
        -m my-model -b http://127.0.0.1:8000/v1 -n 10 -r 4

Each dataset row is one seed's episode (``info``: game, seed, options); its prompt is the
seat's system prompt and first turn, so every rollout of a row plays that episode. Each
model message is a reply the seat reads (a reply it cannot play is told back as the seat
tells it); the episode ends when the game does or its ``max_turns`` model turns are
spent. The rollout's state keeps the episode's replay (``replay``: the lines
``playbench verify`` reads), and the rubric's reward is read by replaying it through
:class:`~playbench.core.match.Match`.
"""

from __future__ import annotations

import json
from typing import Any

import verifiers as vf
from datasets import Dataset

from playbench.core.errors import OptionsError
from playbench.core.game import JSON
from playbench.core.match import Match
from playbench.core.registry import get_game
from playbench.runner.seeds import parse_seeds
from playbench.train.episode import DEFAULT_MAX_TURNS, SeatEpisode, replay_check

#: the state's keys: the live episode, and its replay once the rollout ends
EPISODE = "playbench_episode"
REPLAY = "replay"


def replayed_progress(state: vf.State) -> float:
    """The progress the rollout's episode gained, read by replaying its log."""
    replay = state.get(REPLAY)
    if not replay:
        return 0.0
    head = replay[0]
    start = Match.start(head["game"], head["seed"], head["options"] or None)
    return replay_check(replay).progress - start.game.progress(start.state)


class GameEnv(vf.MultiTurnEnv):
    """A game's episodes at the seat, one dataset row per seed."""

    def __init__(
        self, game: str, seeds: list[int], options: JSON, max_turns: int, **kwargs: Any
    ) -> None:
        rules = get_game(game)
        self.game = rules
        self.options = options
        self.turns = max_turns
        rows = []
        for seed in seeds:
            episode = self._episode(seed)
            rows.append(
                {
                    "prompt": [
                        {"role": "system", "content": episode.system},
                        {"role": "user", "content": episode.prompt},
                    ],
                    "answer": "",
                    "info": {"game": rules.slug, "seed": seed, "options": options},
                }
            )
        super().__init__(
            dataset=Dataset.from_list(rows),
            rubric=vf.Rubric(funcs=[replayed_progress]),
            max_turns=max_turns + 1,
            message_type="chat",
            **kwargs,
        )

    def _episode(self, seed: int) -> SeatEpisode:
        return SeatEpisode(
            self.game, seed, self.options or None, max_turns=self.turns, model="verifiers"
        )

    async def setup_state(self, state: vf.State) -> vf.State:
        state[EPISODE] = self._episode(int(state["info"]["seed"]))
        return state

    async def env_response(self, messages: vf.Messages, state: vf.State, **kwargs: Any) -> Any:
        episode: SeatEpisode = state[EPISODE]
        reply = _text(messages[-1])
        episode.reply(reply)
        answer = vf.UserMessage(content=episode.prompt)
        if episode.done:
            state["final_env_response"] = [answer]
        state[REPLAY] = episode.replay()
        return [answer]

    @vf.cleanup
    async def keep_replay(self, state: vf.State) -> None:
        episode = state.pop(EPISODE, None)
        if episode is not None:
            state[REPLAY] = episode.replay()


def _text(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else message.content
    if isinstance(content, str):
        return content
    parts = content or []
    return "".join(str(part.get("text", "")) for part in parts if isinstance(part, dict))


def load_environment(
    game: str = "gem-swap",
    seeds: Any = "0-9",
    options: Any = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    **kwargs: Any,
) -> GameEnv:
    """The Environments Hub's entry point: ``game`` on ``seeds`` (text such as ``0-9`` or
    ``1,5,9``, or a count), with the game's ``options`` and the seat's ``max_turns``."""
    if isinstance(seeds, str):
        drawn = parse_seeds(seeds)
    elif isinstance(seeds, int):
        drawn = [seeds]
    else:
        drawn = [int(seed) for seed in seeds]
    if isinstance(options, str):
        options = json.loads(options) if options else None
    if options is not None and not isinstance(options, dict):
        raise OptionsError(f"options must be a JSON object, got {options!r}")
    return GameEnv(game, drawn, options or {}, max_turns, **kwargs)
