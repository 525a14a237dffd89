"""The compiled rules modules: a compiled copy runs only while it matches its source, and the
compiled and pure-Python rules play every game the same."""

import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

import playbench
from playbench import _compiled
from playbench.core import all_games

ROOT = Path(playbench.__file__).resolve().parent
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def fake_package(tmp_path: Path) -> Path:
    """A package ``pbx`` whose ``mod.py`` has a "compiled copy" beside it that is no module
    at all: importing that copy fails, so a passing import shows the source ran."""
    package = tmp_path / "pbx"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text("VALUE = 1\n")
    (package / f"mod{SUFFIX}").write_bytes(b"not a shared object")
    return package


def import_fresh(guard: _compiled.SourceGuard, tmp_path: Path, name: str):
    sys.path.insert(0, str(tmp_path))
    sys.meta_path.insert(0, guard)
    try:
        return __import__(name, fromlist=["_"])
    finally:
        sys.meta_path.remove(guard)
        sys.path.remove(str(tmp_path))
        for loaded in [key for key in sys.modules if key == "pbx" or key.startswith("pbx.")]:
            del sys.modules[loaded]


def test_without_the_guard_a_compiled_copy_shadows_its_source(tmp_path):
    fake_package(tmp_path)
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(ImportError):
            __import__("pbx.mod")
    finally:
        sys.path.remove(str(tmp_path))
        for loaded in [key for key in sys.modules if key == "pbx" or key.startswith("pbx.")]:
            del sys.modules[loaded]


def test_a_compiled_copy_whose_source_still_matches_is_left_to_the_usual_import(tmp_path):
    package = fake_package(tmp_path)
    guard = _compiled.SourceGuard(
        {"pbx.mod": _compiled.source_hash(str(package / "mod.py"))}, pure=False, prefix="pbx."
    )
    assert guard.find_spec("pbx.mod", [str(package)]) is None
    assert guard.fallbacks == {}


def test_an_edited_source_runs_in_place_of_its_stale_compiled_copy_with_a_warning(tmp_path):
    package = fake_package(tmp_path)
    guard = _compiled.SourceGuard(
        {"pbx.mod": _compiled.source_hash(str(package / "mod.py"))}, pure=False, prefix="pbx."
    )
    (package / "mod.py").write_text("VALUE = 2\n")
    with pytest.warns(RuntimeWarning, match="changed since it was compiled"):
        module = import_fresh(guard, tmp_path, "pbx.mod")
    assert module.VALUE == 2 and module.__file__ == str(package / "mod.py")
    assert guard.fallbacks == {"pbx.mod": "changed since it was compiled"}


def test_a_compiled_copy_no_build_recorded_never_runs(tmp_path):
    fake_package(tmp_path)
    guard = _compiled.SourceGuard({}, pure=False, prefix="pbx.")
    with pytest.warns(RuntimeWarning, match="no build recorded"):
        assert import_fresh(guard, tmp_path, "pbx.mod").VALUE == 1


def test_pure_python_asked_for_loads_every_source_quietly(tmp_path):
    package = fake_package(tmp_path)
    guard = _compiled.SourceGuard(
        {"pbx.mod": _compiled.source_hash(str(package / "mod.py"))}, pure=True, prefix="pbx."
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert import_fresh(guard, tmp_path, "pbx.mod").VALUE == 1
    assert guard.fallbacks == {"pbx.mod": _compiled.PURE_ENV}


def test_a_module_with_no_compiled_copy_and_other_packages_are_left_alone(tmp_path):
    package = fake_package(tmp_path)
    (package / "plain.py").write_text("VALUE = 3\n")
    guard = _compiled.SourceGuard({}, pure=True, prefix="pbx.")
    assert guard.find_spec("pbx.plain", [str(package)]) is None
    assert guard.find_spec("json.decoder", [str(package)]) is None
    assert guard.find_spec("pbx", None) is None


def test_the_guard_comes_before_the_finder_of_files_once():
    guards = [
        i for i, finder in enumerate(sys.meta_path) if isinstance(finder, _compiled.SourceGuard)
    ]
    assert len(guards) == 1
    assert guards[0] < sys.meta_path.index(importlib.machinery.PathFinder)
    assert _compiled.install() is sys.meta_path[guards[0]]


def test_every_compiled_module_running_was_built_from_its_source_as_it_is():
    manifest = _compiled.read_manifest()
    for name in _compiled.compiled_modules():
        source = ROOT.parent / (name.replace(".", "/") + ".py")
        assert manifest[name] == _compiled.source_hash(str(source)), name


def run(code: str, env: dict[str, str] | None = None, cwd: Path | None = None):
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )


PLAY = """
    import hashlib, json
    from playbench import _compiled
    from playbench.core import Rng, all_games
    digests = {}
    for game in all_games():
        chooser, digest = Rng.from_seed(7), hashlib.sha256()
        for seed in (0, 1):
            state = game.new(seed)
            for _ in range(150):
                if game.is_over(state):
                    break
                state = game.step(state, chooser.choice(game.legal_actions(state))).state
                digest.update(json.dumps(game.observe(state), sort_keys=True).encode())
            digest.update(json.dumps(game.to_json(state), sort_keys=True).encode())
        digests[game.slug] = digest.hexdigest()
    print(json.dumps({"compiled": _compiled.compiled_modules(), "digests": digests}))
"""


def test_the_pure_python_rules_play_every_game_as_the_compiled_ones():
    pure = json.loads(run(PLAY, {_compiled.PURE_ENV: "1"}).stdout)
    assert pure["compiled"] == []
    built = json.loads(run(PLAY, {_compiled.PURE_ENV: ""}).stdout)
    assert set(built["digests"]) == {game.slug for game in all_games()}
    assert built["digests"] == pure["digests"]


@pytest.mark.skipif(
    "playbench.games.gemswap.board" not in _compiled.read_manifest(),
    reason="this install compiled nothing (PLAYBENCH_PURE_PYTHON=1, or no compiler)",
)
def test_an_edited_rules_module_of_a_compiled_install_runs_as_edited(tmp_path):
    shutil.copytree(ROOT, tmp_path / "playbench", ignore=shutil.ignore_patterns("__pycache__"))
    board = tmp_path / "playbench" / "games" / "gemswap" / "board.py"
    board.write_text(board.read_text() + "\nEDITED = True\n")
    done = run(
        """
        import json
        import playbench.games.gemswap.board as board, playbench.games.gemswap.rules as rules
        print(json.dumps([board.EDITED, board.__file__, rules.__file__]))
        """,
        {"PYTHONPATH": str(tmp_path), _compiled.PURE_ENV: ""},
        cwd=tmp_path,
    )
    edited, board_file, rules_file = json.loads(done.stdout)
    assert edited is True and board_file == str(board)
    assert rules_file.endswith(SUFFIX)
    assert "changed since it was compiled" in done.stderr and "board.py" in done.stderr
