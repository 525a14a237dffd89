"""The compiled rules modules, loaded only while they match their sources.

A build compiles some modules (``setup.py``) and writes ``_compiled.json`` beside this
file: the SHA-256 of each ``.py`` it compiled. Python would load a compiled module in
place of the ``.py`` beside it even after the ``.py`` was edited (an editable install keeps
the old build), so :class:`SourceGuard`, first on ``sys.meta_path``, loads a playbench
module from its ``.py`` instead, with a warning, whenever a compiled copy sits beside a
source that does not have the hash recorded for it (edited since, or built by no manifest
at all). ``PLAYBENCH_PURE_PYTHON=1`` in the environment loads every module from its source.
A compiled module and its source are the same rules: which one runs never changes a game.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence

PURE_ENV = "PLAYBENCH_PURE_PYTHON"
MANIFEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_compiled.json")


def source_hash(path: str) -> str:
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


def read_manifest(path: str = MANIFEST) -> dict[str, str]:
    """Module name -> the hash of the source it was compiled from; {} when nothing was."""
    try:
        with open(path) as file:
            modules = json.load(file).get("modules", {})
    except (OSError, ValueError, AttributeError):
        return {}
    return modules if isinstance(modules, dict) else {}


def pure_wanted() -> bool:
    return os.environ.get(PURE_ENV, "") not in ("", "0")


def compiled_beside(directory: str, tail: str) -> bool:
    return any(
        os.path.exists(os.path.join(directory, tail + suffix))
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
    )


class SourceGuard(importlib.abc.MetaPathFinder):
    """Finds a ``playbench.*`` module's ``.py`` when a compiled copy beside it must not run;
    leaves every other import to the usual finders."""

    def __init__(self, manifest: dict[str, str], pure: bool, prefix: str = "playbench.") -> None:
        self.manifest = manifest
        self.pure = pure
        self.prefix = prefix
        #: the modules loaded from their source in place of a compiled copy, and why
        self.fallbacks: dict[str, str] = {}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if path is None or not fullname.startswith(self.prefix):
            return None
        tail = fullname.rpartition(".")[2]
        for directory in path:
            source = os.path.join(directory, tail + ".py")
            if not os.path.isfile(source):
                continue
            if not compiled_beside(directory, tail):
                return None
            why = self.reason(fullname, source)
            if why is None:
                return None
            self.fallbacks[fullname] = why
            if why != PURE_ENV:
                warnings.warn(
                    f"playbench: {source} {why}, so it runs as pure Python, not its compiled "
                    "copy (pip install -e . compiles it again)",
                    RuntimeWarning,
                    stacklevel=2,
                )
            return importlib.util.spec_from_file_location(fullname, source)
        return None

    def reason(self, fullname: str, source: str) -> str | None:
        """Why the compiled copy of ``fullname`` must not run, or None when it may."""
        if self.pure:
            return PURE_ENV
        recorded = self.manifest.get(fullname)
        if recorded is None:
            return "has a compiled copy that no build recorded"
        if recorded != source_hash(source):
            return "changed since it was compiled"
        return None


def install() -> SourceGuard:
    """Put the guard first on ``sys.meta_path`` (once) and return it."""
    for finder in sys.meta_path:
        if isinstance(finder, SourceGuard):
            return finder
    guard = SourceGuard(read_manifest(), pure_wanted())
    sys.meta_path.insert(0, guard)
    return guard


def _from_source(path: str, suffixes: tuple[str, ...]) -> bool:
    """True when the extension module at ``path`` has a ``.py`` beside it (a compiled copy
    of that source; the C kernels' extension has none)."""
    for suffix in suffixes:
        if path.endswith(suffix):
            return os.path.isfile(path[: -len(suffix)] + ".py")
    return False


def compiled_modules() -> list[str]:
    """The playbench modules running compiled from their ``.py`` in this process."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return sorted(
        name
        for name, module in list(sys.modules.items())
        if name.startswith("playbench.")
        and _from_source(getattr(module, "__file__", None) or "", suffixes)
    )
