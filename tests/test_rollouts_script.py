"""benchmarks/rollouts.py at a small count: episodes in flight over OpenEnv's HTTP and
WebSocket against one real ``playbench serve``, none dropped or mixed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "rollouts.py"


def test_the_rollout_benchmark_drops_and_mixes_no_episode(tmp_path: Path) -> None:
    figures = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--episodes", "24", "--steps", "3", "--json", str(figures)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "dropped: 0  mixed: 0" in done.stdout
    held = json.loads(figures.read_text())
    assert held["episodes"] == 24 and held["dropped"] == 0 and held["mixed"] == 0
    assert held["steps"] == 24 * 3
