"""How far the doors reach into the games: a scan of ``playbench/`` outside ``games/``
and ``bots/``, for the figures of issue 26.

- an *import* is an import statement in a door that names a game's package or one of
  its modules (``playbench.games.cogcrawl.protocol``, ``playbench.bots.gemswap``);
- a *slug table* is a literal dict, set, list or tuple in a door (Python) with a
  registered game's slug among its keys, values or items;
- a *web slug* is a line of a page script outside a game's own painter that names a
  registered game's slug in quotes or as an object key.

Run ``python -m tests.doors`` for the counts and every place.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from playbench.core import all_games

ROOT = Path(__file__).resolve().parents[1] / "playbench"
GAME_PACKAGES = ("playbench.games.", "playbench.bots.")
OUTSIDE = ("games", "bots")
SCRIPTS = ROOT / "web" / "assets" / "js"
#: a slug in quotes, or as an object key
QUOTED_OR_KEY = r"[\"']{slug}[\"']|(^|[{{,\s]){slug}\s*:"


@dataclass(frozen=True, slots=True)
class Place:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def door_files() -> list[Path]:
    return sorted(
        path for path in ROOT.rglob("*.py") if path.relative_to(ROOT).parts[0] not in OUTSIDE
    )


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT.parent))


def _game_modules(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom) and node.module:
        if node.module in ("playbench.games", "playbench.bots"):
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
        else:
            yield node.module


def imports() -> list[Place]:
    found = []
    for path in door_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for module in _game_modules(node):
                if module.startswith(GAME_PACKAGES):
                    found.append(Place(_name(path), node.lineno, module))
                    break
    return found


def _strings(nodes: list[ast.expr | None]) -> set[str]:
    return {n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def slug_tables() -> list[Place]:
    slugs = {game.slug for game in all_games()}
    found = []
    for path in door_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Dict):
                named = _strings([*node.keys, *node.values]) & slugs
            elif isinstance(node, (ast.Set, ast.List, ast.Tuple)):
                named = _strings(list(node.elts)) & slugs
            else:
                continue
            if named:
                found.append(Place(_name(path), node.lineno, ", ".join(sorted(named))))
    return found


def web_slugs() -> list[Place]:
    slugs = {game.slug for game in all_games()}
    painters = {f"{slug.replace('-', '')}.js" for slug in slugs}
    found = []
    for path in sorted(SCRIPTS.rglob("*.js")):
        if path.name in painters:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for slug in sorted(slugs):
                if re.search(QUOTED_OR_KEY.format(slug=re.escape(slug)), line):
                    found.append(Place(_name(path), number, slug))
    return found


def main() -> None:
    for title, places in (
        ("door-to-game imports", imports()),
        ("slug tables in doors", slug_tables()),
        ("slugs named in page scripts", web_slugs()),
    ):
        print(f"{title}: {len(places)}")  # noqa: T201
        for place in places:
            print(f"  {place}")  # noqa: T201


if __name__ == "__main__":
    main()
