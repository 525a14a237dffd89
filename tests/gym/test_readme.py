"""The README's Gymnasium example runs as printed: five lines, one game to its end."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_example_plays_a_game_to_its_end() -> None:
    section = README.read_text(encoding="utf-8").split("## Gymnasium", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)
    assert len([line for line in code.splitlines() if line.strip()]) == 5
    scope: dict = {}
    exec(code, scope)
    assert scope["terminated"] and not scope["truncated"]
    assert scope["info"]["observation"]["movesLeft"] == 0
    assert scope["env"].render().shape == (192, 192, 3)
