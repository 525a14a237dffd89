"""The board's picture for a vision model: the Gymnasium door's renderer, encoded as a
PNG by Pillow and sent as a data URL (``pip install 'playbench[vision]'``)."""

from __future__ import annotations

import base64
import io

from playbench.agents.base import AgentError
from playbench.core.game import JSON, Game

VISION_EXTRA = "--vision needs Pillow, numpy and Gymnasium: pip install 'playbench[vision]'"


def check_vision() -> None:
    """:class:`AgentError` saying how to install what ``--vision`` needs."""
    try:
        import PIL.Image  # noqa: F401

        import playbench.gym.pictures  # noqa: F401
    except ImportError:
        raise AgentError(VISION_EXTRA) from None


def png_bytes(game: Game, view: JSON) -> bytes:
    """The picture of the view's board, as PNG bytes."""
    from PIL import Image

    from playbench.gym.pictures import PAINTERS

    picture = PAINTERS[game.slug](view["observation"])
    buffer = io.BytesIO()
    Image.fromarray(picture, mode="RGB").save(buffer, format="PNG")
    return buffer.getvalue()


def png_data_url(game: Game, view: JSON) -> str:
    return "data:image/png;base64," + base64.b64encode(png_bytes(game, view)).decode("ascii")
