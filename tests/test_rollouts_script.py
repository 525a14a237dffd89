"""benchmarks/rollouts.py at a small count: episodes in flight over OpenEnv's HTTP and
WebSocket against one real ``playbench serve``, paced and all at once, none dropped or
mixed, every step timed by the server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "rollouts.py"


def test_the_rollout_benchmark_drops_and_mixes_no_episode(tmp_path: Path) -> None:
    figures = tmp_path / "figures.json"
    done = subprocess.run(
        [
            *(sys.executable, str(SCRIPT), "--episodes", "24", "--steps", "3"),
            *("--think", "0.05", "--json", str(figures)),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "dropped: 0  mixed: 0" in done.stdout
    held = json.loads(figures.read_text())
    assert held["episodes"] == 24 and held["dropped"] == 0 and held["mixed"] == 0
    assert set(held["runs"]) == {"1 in flight", "24 paced", "24 at once"}
    for name, run in held["runs"].items():
        assert run["steps"] == (3 if name == "1 in flight" else 24 * 3), name
        # the server timed the steps it answered
        assert 0 < run["serverP50"] <= run["serverP99"], run
