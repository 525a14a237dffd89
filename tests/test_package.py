"""The house's shape, checked: every package is a real package, games never import bots
or doors, and the core imports no game."""

from __future__ import annotations

import ast
from pathlib import Path

import playbench

ROOT = Path(playbench.__file__).parent


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_every_folder_of_modules_is_a_package_so_a_wheel_ships_it():
    folders = {path.parent for path in ROOT.rglob("*.py")}
    assert sorted(f for f in folders if not (f / "__init__.py").exists()) == []


def test_no_game_imports_a_bot_or_a_door():
    doors = ("playbench.bots", "playbench.server", "playbench.agents", "playbench.runner",
             "playbench.gym", "playbench.mcp", "playbench.terminal", "playbench.cli")  # fmt: skip
    for path in (ROOT / "games").rglob("*.py"):
        bad = [name for name in _imports(path) if name.startswith(doors)]
        assert bad == [], f"{path.relative_to(ROOT)} imports {bad}"


def test_the_core_imports_no_game_and_no_door():
    for path in (ROOT / "core").rglob("*.py"):
        bad = [
            name
            for name in _imports(path)
            if name.startswith("playbench.") and not name.startswith("playbench.core")
        ]
        assert bad == [], f"{path.relative_to(ROOT)} imports {bad}"
