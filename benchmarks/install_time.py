"""The README's first command, timed on a clean copy: install, then serve.

    python benchmarks/install_time.py [--reference REV] [--pure-only] [--record]

For the working tree and for a reference commit (default ``HEAD``), each in a fresh copy
(``git archive``) with a fresh virtual environment and no pip cache (as a fresh clone
meets it), this runs what the README says::

    python3 -m venv .venv && . .venv/bin/activate && pip install -e . && playbench serve

once as it stands and once with ``PLAYBENCH_PURE_PYTHON=1`` (no compiled modules), and
prints side by side: the wall time until ``/readyz`` answers, the CPU time of the install
(all its child processes, ``resource.RUSAGE_CHILDREN``), the number of packages
installed, and the ratio of the working tree's wall time to the reference's. The target:
at most 120 s of wall time on a quiet two-core machine. The machine's load (``uptime``)
is printed beside the figures. Every step is bounded (``--timeout``, default 900 s).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 120.0


def _copy(rev: str | None, into: Path) -> Path:
    """The tree at ``rev`` (or the working tree, tracked files with their edits) in ``into``."""
    into.mkdir(parents=True)
    if rev is None:
        files = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True
        ).stdout.split(b"\0")
        for name in filter(None, files):
            source = ROOT / name.decode()
            if source.is_file():
                target = into / name.decode()
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
        return into
    archive = subprocess.run(
        ["git", "archive", "--format=tar", rev], cwd=ROOT, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _wait_ready(url: str, server: subprocess.Popen, deadline: float) -> None:
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"playbench serve exited with {server.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer in time")


def measure(tree: Path, pure: bool, timeout: float) -> dict[str, float]:
    """Install ``tree`` as the README says and serve it; the figures of that one run."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PIP_NO_CACHE_DIR"] = "1"
    env.pop("PLAYBENCH_PURE_PYTHON", None)
    if pure:
        env["PLAYBENCH_PURE_PYTHON"] = "1"
    venv = tree / ".venv"
    cpu_before = _cpu_of_children()
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env)
    subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", "-e", "."],
        cwd=tree,
        check=True,
        env=env,
        timeout=timeout,
    )
    installed = time.monotonic() - started
    cpu = _cpu_of_children() - cpu_before
    port = _free_port()
    server = subprocess.Popen(
        [str(venv / "bin" / "playbench"), "serve", "--port", str(port), "--data", str(tree / "d")],
        cwd=tree,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_ready(f"http://127.0.0.1:{port}/readyz", server, time.monotonic() + 120)
        serving = time.monotonic() - started
    finally:
        server.terminate()
        server.wait(timeout=30)
    listed = subprocess.run(
        [str(venv / "bin" / "pip"), "list", "--format=freeze"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.split()
    return {"install": installed, "serving": serving, "cpu": cpu, "packages": len(listed)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reference", default="HEAD", help="the commit to compare with")
    parser.add_argument("--pure-only", action="store_true", help="only PLAYBENCH_PURE_PYTHON=1")
    parser.add_argument(
        "--only", choices=("reference", "tree"), help="measure one side only (no ratio)"
    )
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds for one install")
    args = parser.parse_args()
    modes = [True] if args.pure_only else [False, True]
    with tempfile.TemporaryDirectory(prefix="install-time-") as scratch:
        rows = []
        for pure in modes:
            figures = {}
            sides = (("reference", args.reference), ("this tree", None))
            if args.only:
                sides = sides[:1] if args.only == "reference" else sides[1:]
            for label, rev in sides:
                tree = _copy(rev, Path(scratch) / f"{label.replace(' ', '-')}-{int(pure)}")
                figures[label] = measure(tree, pure, args.timeout)
                shutil.rmtree(tree, ignore_errors=True)
            rows.append((pure, figures))
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"machine: {os.cpu_count()} cores; {load}")
    print(f"target: serving in at most {TARGET_SECONDS:.0f} s of wall time")
    header = f"{'build':<8} {'tree':<10} {'installed s':>11} {'serving s':>9} {'CPU s':>7} "
    print(header + f"{'packages':>8} {'wall vs ref':>11}")
    for pure, figures in rows:
        reference = figures.get("reference", {}).get("serving")
        for label, one in figures.items():
            ratio = f"{one['serving'] / reference:>11.2f}" if reference else f"{'-':>11}"
            print(
                f"{'pure' if pure else 'compiled':<8} {label:<10} {one['install']:>11.1f} "
                f"{one['serving']:>9.1f} {one['cpu']:>7.1f} {one['packages']:>8d} {ratio}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
