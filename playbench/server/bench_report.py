"""A verified bench result's report drawn in a process of its own:

    python -m playbench.server.bench_report FOLDER CPU_SECONDS

It takes the lowest priority (``nice`` 19) and caps its CPU time (``RLIMIT_CPU``), then
draws ``playbench report`` of ``FOLDER`` into a draft beside it, renamed to
``FOLDER/report`` when whole. It exits 0 once drawn; on a failure it writes the reason
on its standard output and exits 1. The shelf (:mod:`playbench.server.bench`) runs it,
so that matplotlib never holds a server process's interpreter while its event loop has
other clients to answer (as the re-simulation runs in :mod:`playbench.server.bench_check`).
"""

from __future__ import annotations

import os
import resource
import shutil
import sys
import tempfile
from pathlib import Path

from playbench.runner.report import ReportError, write_report

REPORT = "report"
REPORT_DRAFT = ".report-draft-"


def draw(folder: Path) -> None:
    """``playbench report`` of ``folder`` into a draft beside it, renamed into place."""
    if (folder / REPORT).exists():
        raise ReportError(f"{REPORT} is there but holds no index.html: move it away")
    for stale in folder.glob(f"{REPORT_DRAFT}*"):
        shutil.rmtree(stale, ignore_errors=True)
    draft = Path(tempfile.mkdtemp(prefix=REPORT_DRAFT, dir=folder))
    try:
        write_report([folder], draft)
        draft.rename(folder / REPORT)
    finally:
        shutil.rmtree(draft, ignore_errors=True)


def main(argv: list[str]) -> int:
    folder, seconds = Path(argv[0]), int(argv[1])
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    os.nice(19)
    try:
        draw(folder)
    except Exception as error:  # the reason is the result's, shown on its row
        sys.stdout.write(str(error) or type(error).__name__)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
