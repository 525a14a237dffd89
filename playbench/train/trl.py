"""A game as TRL's ``environment_factory`` for ``GRPOTrainer``: each rollout gets its own
:class:`GameEnvironment`, whose ``reset`` starts the episode a dataset row names and
returns the prompt, whose public methods are the model's tools, and whose reward is read
from the episode's replayed log (``get_reward``)::

    trainer = GRPOTrainer(
        model=model,
        train_dataset=game_dataset("gem-swap", seeds=range(64)),
        environment_factory=lambda: GameEnvironment(max_turns=20),
        args=GRPOConfig(num_generations=8, ...),
    )

- ``reset(game=..., seed=..., options=...)`` (a dataset row's columns; the seed is drawn
  when the row has none): the seat's message for the first turn, after a short word on
  the tools.
- the tools: ``play(commands)`` plays a list of moves as one turn of the seat (the moves
  as ``legal_moves()`` writes them; a turn refused is the seat's refusal, told back),
  ``legal_moves()`` and ``rules()``.
- ``get_reward()``: the progress the episode gained, read by replaying its log through
  :class:`~playbench.core.match.Match`; where ``replays`` names a folder, each scored
  rollout is written there as a replay that ``playbench verify`` accepts, so a run's
  rewards can be audited after it.

GRPO compares the rollouts of one prompt, so a group must play one episode: every rollout
of a dataset row gets the row's seed (:func:`game_dataset` writes one per row). A row
without a seed draws one per rollout, and then its group's rewards compare different
games.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from playbench.agents.llm.reply import entry_kind
from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON
from playbench.core.registry import get_game
from playbench.core.rng import draw_seed
from playbench.runner.replay import dump_lines, write_atomic
from playbench.train.episode import DEFAULT_MAX_TURNS, EpisodeOver, SeatEpisode

#: what the prompt says of the tools, before the first turn's message
TOOLS_WORD = (
    "You play {name} through tools: play(commands) plays one turn, the moves in order "
    "as legal_moves() writes them (the first refused move ends the turn); legal_moves() "
    "lists them; rules() gives the rules. Call play once a turn until the game ends."
)


class GameEnvironment:
    """One rollout's episode of a game at the seat (TRL makes one per rollout)."""

    def __init__(
        self,
        game: str | None = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        replays: str | Path | None = None,
    ) -> None:
        self._default_game = game
        self._max_turns = max_turns
        self._replays = Path(replays) if replays is not None else None
        self._episode: SeatEpisode | None = None
        self._scored = itertools.count()

    def reset(
        self,
        game: str | None = None,
        seed: int | None = None,
        options: JSON | str | None = None,
        **row: Any,
    ) -> str:
        """Start the episode a dataset row names: its game (else the environment's), its
        seed (else a drawn one) and options (a mapping, or JSON text of one)."""
        slug = game or self._default_game
        if slug is None:
            raise PlaybenchError("no game: give the dataset a game column, or the environment one")
        if isinstance(options, str):
            options = json.loads(options) if options else None
        self._episode = SeatEpisode(
            get_game(slug),
            draw_seed() if seed is None else int(seed),
            options or None,
            max_turns=self._max_turns,
            model="trl",
        )
        episode = self._episode
        return TOOLS_WORD.format(name=episode.game.name) + "\n\n" + episode.prompt

    @property
    def episode(self) -> SeatEpisode:
        """The rollout's episode (after ``reset``)."""
        if self._episode is None:
            raise PlaybenchError("the environment has no episode: reset it first")
        return self._episode

    def play(self, commands: list[str]) -> str:
        """Play one turn: the moves, in order.

        Args:
            commands: The moves to play this turn, each exactly as legal_moves() writes it.

        Returns:
            What the turn did and the board for the next turn, or why it was refused.
        """
        episode = self.episode
        kind = entry_kind(episode.seat.guide)
        moves = [_entry(move, kind) for move in commands] if isinstance(commands, list) else []
        try:
            stepped = episode.commands(moves) if moves else episode.reply(json.dumps(commands))
        except EpisodeOver:
            return episode.prompt
        return f"Progress gained: {stepped.gained:.4f}; score {episode.match.score}.\n" + (
            episode.prompt
        )

    def legal_moves(self) -> list[str]:
        """The moves legal now, each in the form play() takes.

        Returns:
            The legal moves.
        """
        episode = self.episode
        moves = episode.seat.guide.moves(episode.view())
        return [move if isinstance(move, str) else json.dumps(move) for move in moves]

    def rules(self) -> str:
        """The game's rules.

        Returns:
            The rules, as the seat is told them.
        """
        return self.episode.system

    def get_reward(self) -> float:
        """The progress the episode gained, read from its replayed log (and its replay
        written where ``replays`` names a folder)."""
        episode = self.episode
        replay = episode.replay()
        reward = episode.reward()
        if self._replays is not None:
            self._replays.mkdir(parents=True, exist_ok=True)
            name = f"{episode.game.slug}-{episode.seed}-{id(self):x}-{next(self._scored)}.jsonl"
            write_atomic(self._replays / name, dump_lines(replay))
        return reward


def _entry(move: Any, kind: type) -> Any:
    """A move as the reply takes it: text, or for a game whose moves are objects the
    object its JSON text writes (anything else is left for the seat to refuse)."""
    if kind is dict and isinstance(move, str):
        try:
            return json.loads(move)
        except ValueError:
            return move
    return move


def game_dataset(
    game: str,
    seeds: Iterable[int],
    options: JSON | None = None,
    prompt: str = "",
) -> Any:
    """A ``datasets.Dataset`` of one row per seed (``prompt``, ``game``, ``seed`` and
    ``options`` as JSON text), for ``GRPOTrainer``: every rollout of a row plays the
    row's episode."""
    from datasets import Dataset

    slug = get_game(game).slug
    rows = [
        {
            "prompt": [{"role": "user", "content": prompt}],
            "game": slug,
            "seed": int(seed),
            "options": json.dumps(options or {}),
        }
        for seed in seeds
    ]
    return Dataset.from_list(rows)
