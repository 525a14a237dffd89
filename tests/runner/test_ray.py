"""``--backend ray`` on a local Ray cluster of two CPUs (Ray is in the test extra): the
same records as the local backend."""

from __future__ import annotations

import json
from pathlib import Path

from playbench.cli import main


def records(folder: Path) -> list[dict]:
    rows = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]
    return sorted(rows, key=lambda row: row["seed"])


def test_ray_and_local_give_the_same_scores_and_fingerprints(tmp_path):
    args = ["run", "cogcrawl", "--agent", "random", "--seeds", "0-5", "--workers", "2"]
    assert main([*args, "--out", str(tmp_path / "local")]) == 0
    assert main([*args, "--backend", "ray", "--out", str(tmp_path / "ray")]) == 0
    strip = lambda row: {k: v for k, v in row.items() if k != "seconds"}  # noqa: E731
    assert [strip(row) for row in records(tmp_path / "ray")] == [
        strip(row) for row in records(tmp_path / "local")
    ]
    assert main(["verify", str(tmp_path / "ray")]) == 0
