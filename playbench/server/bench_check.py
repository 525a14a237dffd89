"""A bench folder re-simulated in a process of its own, under a CPU budget:

    python -m playbench.server.bench_check FOLDER CPU_SECONDS

It lowers its own priority (``nice`` 10) and caps its CPU time (``RLIMIT_CPU``: the
kernel stops it past the budget), then writes the problems
:func:`playbench.server.bench_derive.derive_problems` finds (every figure recomputed from
the re-simulated replays of the suite's episodes) as a JSON list on its standard output.
The shelf (:mod:`playbench.server.bench`) runs it, so that no upload's simulation runs in
the server's own processes or takes more than its budget.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from pathlib import Path

from playbench.server.bench_derive import derive_problems


def main(argv: list[str]) -> int:
    folder, seconds = Path(argv[0]), int(argv[1])
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    os.nice(10)
    sys.stdout.write(json.dumps(derive_problems(folder)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
