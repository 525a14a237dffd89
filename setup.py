"""The build of playbench's compiled rules modules (the metadata is in pyproject.toml).

The modules listed in :data:`COMPILED` are compiled with Cython from the very same ``.py``
files, read as plain Python (Cython's pure-Python mode, type annotations ignored): there is
one source of rules per game, and the ``.py`` files keep working alone. A ``pip install``
(editable or not) on a machine with a C compiler builds them; where one cannot be built
the install goes on and that module stays pure Python. ``PLAYBENCH_PURE_PYTHON=1`` builds
none of them.

Beside the built modules the build writes ``playbench/_compiled.json``, the SHA-256 of
each source it compiled: ``playbench/_compiled.py`` loads a compiled module only while its
``.py`` still has that hash, so an edited source is never shadowed by a stale build.

The games' C kernels (``playbench/kernels``: one binding, a kernel per game) are built as
one more optional extension, ``playbench.kernels._native``, with the SHA-256 of their C
sources compiled in: ``playbench.kernels`` runs a build only while it matches the sources
beside it. Without a C compiler the install goes on and the games run on their Python rules;
``PLAYBENCH_KERNELS=0`` builds no kernel.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import warnings

from setuptools import setup
from setuptools.command.build_ext import build_ext

PURE_ENV = "PLAYBENCH_PURE_PYTHON"
KERNELS_ENV = "PLAYBENCH_KERNELS"
MANIFEST = os.path.join("playbench", "_compiled.json")
#: where the generated C goes (and each source's hash when it was generated)
CYTHON_DIR = os.path.join("build", "cython")

#: the compiled modules: the four games' rules, boards, states, observations and bots, the
#: seeded generator and the match kernel, and the Gymnasium env around them
COMPILED_GLOBS = (
    "playbench/games/chimestep/*.py",
    "playbench/games/cogcrawl/*.py",
    "playbench/games/delvewick/*.py",
    "playbench/games/gemswap/*.py",
    "playbench/core/rng.py",
    "playbench/core/match.py",
    "playbench/gym/env.py",
    "playbench/gym/observations.py",
    "playbench/gym/vector.py",
)
#: left as they are: the packages' entry points, the text-only modules (rules text,
#: prompts, terminal controls) and the C kernels' Python sides, where compiling gains nothing
NOT_COMPILED = ("__init__.py", "spec.py", "prompt.py", "controls.py", "kernel.py")


def compiled_sources() -> list[str]:
    found = sorted({path for pattern in COMPILED_GLOBS for path in glob.glob(pattern)})
    return [path for path in found if os.path.basename(path) not in NOT_COMPILED]


def module_name(path: str) -> str:
    return path[: -len(".py")].replace("/", ".")


def source_hash(path: str) -> str:
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


#: module name -> the hash of the source its C was generated from, in this build
HASHES: dict[str, str] = {}


#: the C kernels' sources: the binding, which includes every game's header
KERNEL_DIR = os.path.join("playbench", "kernels")


def kernel_sources() -> list[str]:
    return sorted(
        glob.glob(os.path.join(KERNEL_DIR, "*.c")) + glob.glob(os.path.join(KERNEL_DIR, "*.h"))
    )


def kernel_hash() -> str:
    """The SHA-256 of the kernels' C sources in name order (``playbench.kernels`` reads the
    same from the installed sources)."""
    digest = hashlib.sha256()
    for path in kernel_sources():
        with open(path, "rb") as file:
            digest.update(os.path.basename(path).encode() + b"\0" + file.read() + b"\0")
    return digest.hexdigest()


def kernels_wanted() -> bool:
    """The kernels are built unless ``PLAYBENCH_KERNELS`` turns them off (a second of gcc,
    so ``PLAYBENCH_PURE_PYTHON=1``, which skips the minutes of Cython, still builds them)."""
    return os.environ.get(KERNELS_ENV, "").strip().lower() not in ("0", "off", "no", "false")


def kernel_extensions() -> list:
    """The C kernels' extension (optional: a failed build leaves the Python rules)."""
    if not kernels_wanted():
        return []
    from setuptools import Extension

    flags = ["-O2", "-g0"] if os.name == "posix" else []
    return [
        Extension(
            "playbench.kernels._native",
            [os.path.join(KERNEL_DIR, "binding.c")],
            depends=kernel_sources(),
            define_macros=[("PLAYBENCH_KERNEL_SOURCE", f'"{kernel_hash()}"')],
            extra_compile_args=flags,
            optional=True,
        )
    ]


def wanted() -> bool:
    return os.environ.get(PURE_ENV, "") in ("", "0")


def extensions() -> list:
    """The Cython extensions, their C generated again wherever the source's hash is not the
    one it was generated from (never trusting timestamps alone); [] when pure or when
    Cython is missing."""
    if not wanted():
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        warnings.warn("playbench: Cython is not installed, so nothing is compiled", stacklevel=1)
        return []
    from setuptools import Extension

    hashes_path = os.path.join(CYTHON_DIR, "hashes.json")
    try:
        with open(hashes_path) as file:
            generated = json.load(file)
    except (OSError, ValueError):
        generated = {}
    built = []
    for path in compiled_sources():
        name, digest = module_name(path), source_hash(path)
        # no debug information: it would make the modules ten times the size
        flags = ["-g0"] if os.name == "posix" else []
        extension = Extension(name, [path], optional=True, extra_compile_args=flags)
        built += cythonize(
            [extension],
            build_dir=CYTHON_DIR,
            force=generated.get(name) != digest,
            quiet=True,
            language_level=3,
            compiler_directives={"binding": True, "annotation_typing": False},
        )
        generated[name] = HASHES[name] = digest
    os.makedirs(CYTHON_DIR, exist_ok=True)
    with open(hashes_path, "w") as file:
        json.dump(generated, file, indent=1, sort_keys=True)
    return built


class BuildExt(build_ext):
    """Builds the extensions two at a time (or one per CPU), then writes the manifest of the
    ones that were built beside them."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:
            self.parallel = max(1, os.cpu_count() or 1)

    def run(self) -> None:
        super().run()
        built = {}
        for extension in self.extensions:
            if extension.name in HASHES and os.path.exists(self.get_ext_fullpath(extension.name)):
                built[extension.name] = HASHES[extension.name]
        manifest = json.dumps({"modules": built}, indent=1, sort_keys=True) + "\n"
        targets = [os.path.join(self.build_lib, MANIFEST)]
        if self.inplace or getattr(self, "editable_mode", False):
            targets.append(MANIFEST)
        for target in targets:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w") as file:
                file.write(manifest)


if not wanted() and os.path.exists(MANIFEST):
    # a pure build in a tree built before: the compiled modules left there are no longer
    # vouched for, so they are never loaded (playbench/_compiled.py)
    os.remove(MANIFEST)

setup(ext_modules=kernel_extensions() + extensions(), cmdclass={"build_ext": BuildExt})
