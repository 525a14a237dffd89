"""The board's picture for a vision model: the frame the Gymnasium door draws (its
renderer, :class:`playbench.gym.pictures.Painter`: the board and a status line),
encoded as a PNG by Pillow and sent as a data URL (``pip install 'playbench[vision]'``).

The renderer draws a game state, so a picture needs the match in this process: a
game played on a server's session shows no state to draw.
"""

from __future__ import annotations

import base64
import io
from typing import Any

from playbench.agents.base import AgentError
from playbench.core.game import JSON, Game

VISION_EXTRA = "--vision needs Pillow, numpy and Gymnasium: pip install 'playbench[vision]'"


def check_vision(game: Game, remote: bool) -> None:
    """:class:`AgentError` saying why ``--vision`` cannot draw this game here."""
    if remote:
        raise AgentError("--vision draws the game's state, which only an in-process game has")
    try:
        import PIL.Image  # noqa: F401

        from playbench.core.learning import learning_of
        from playbench.gym import pictures  # noqa: F401
    except ImportError:
        raise AgentError(VISION_EXTRA) from None
    if learning_of(game) is None:
        raise AgentError(f"--vision: {game.name} has no picture (no learning module)")


class Pictures:
    """The frames of one game, as PNG data URLs."""

    def __init__(self, game: Game, options: JSON | None = None) -> None:
        from playbench.core.learning import learning_of
        from playbench.gym.pictures import Painter

        learning = learning_of(game)
        if learning is None:
            raise AgentError(f"--vision: {game.name} has no picture (no learning module)")
        self.painter = Painter(game, learning, options)

    def png(self, state: Any) -> bytes:
        from PIL import Image

        buffer = io.BytesIO()
        Image.fromarray(self.painter.frame(state)).save(buffer, format="PNG")
        return buffer.getvalue()

    def data_url(self, state: Any) -> str:
        return "data:image/png;base64," + base64.b64encode(self.png(state)).decode("ascii")
