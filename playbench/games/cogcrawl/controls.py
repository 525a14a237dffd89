"""Cogcrawl's keys, NetHack's where they can be.

``q`` quaffs, so ``Q`` quits; ``k`` is a vi-key move, so kick is ``K`` then a direction
key and chat is ``C`` then one; ``{`` opens a prompt for a raw seat reply.
"""

import re

from playbench.core.controls import Controls
from playbench.games.cogcrawl.commands import ARROWS, VI_KEYS
from playbench.games.cogcrawl.glyphs import WIDTH

CONTROLS = Controls(
    keys={
        **{key: f"move {d}" for key, d in VI_KEYS.items()},
        **{key: f"move {d}" for key, d in ARROWS.items()},
        **{f"K{key}": f"kick {d}" for key, d in VI_KEYS.items()},
        **{f"C{key}": f"chat {d}" for key, d in VI_KEYS.items()},
        ">": "down",
        "<": "up",
        ",": "pickup",
        "s": "search",
        ".": "wait",
        "e": "eat ...",
        "q": "quaff ...",
        "w": "wield ...",
        "W": "wear ...",
        "_": "travel ...",
        "{": "...",
    },
    quit_key="Q",
    colors={
        "@": "white",
        "+": "yellow",
        "'": "yellow",
        "<": "cyan",
        ">": "cyan",
        "}": "red",
        "$": "yellow",
        "!": "magenta",
        "%": "green",
        ")": "cyan",
        "[": "cyan",
        '"': "magenta",
        **dict.fromkeys("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "red"),
    },
    help=(
        "h j k l y u b n move, > < stairs, , picks up, s searches, e q w W eat quaff "
        "wield wear, K or C then a key kick or chat, _ travels, { raw reply"
    ),
    board_line=re.compile(f"[ -~]{{{WIDTH}}}"),
)
