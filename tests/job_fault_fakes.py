"""A slow importer for the job queue's fault tests: imported by the test and by the worker processes it starts
(`celery worker -I tests.job_fault_fakes`). The importer's uploaded .txt holds the number of steps, the export
format takes 10; each step takes 0.3 s and reports its progress, and each run appends a line to the file
$JOB_FAULT_RUNS (runs started, runs finished)."""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from mturk.datasets.formats import ExportBundle, ExportFormat, register_format
from mturk.importers import Importer, Progress, register_importer

STEP_SECONDS = 0.3


def _note(line: str) -> None:
    runs = os.environ.get("JOB_FAULT_RUNS")
    if runs:
        with Path(runs).open("a") as out:
            out.write(f"{line} {os.getpid()}\n")


def slow_import(path: Path, options: dict[str, Any], progress: Progress) -> dict[str, Any]:
    steps = int(path.read_text().strip())
    _note("start")
    for done in range(1, steps + 1):
        time.sleep(STEP_SECONDS)
        progress(done, steps)
    _note("end")
    return {"imported": steps}


SLOW = register_importer(Importer(name="slow-test", label="slow test steps", description="Test only.",
                                  extensions=(".txt",), run=slow_import))


EXPORT_STEPS = 10


def slow_export(bundle: ExportBundle, campaigns: list[Any]) -> int:
    _note("start")
    bundle.add_steps(EXPORT_STEPS)
    for _ in range(EXPORT_STEPS):
        time.sleep(STEP_SECONDS)
        bundle.advance()
    with bundle.open_text("steps.txt") as handle:
        handle.write(f"{EXPORT_STEPS}\n")
    _note("end")
    return EXPORT_STEPS


SLOW_EXPORT = register_format(ExportFormat(name="slow-test-export", description="Test only.", write=slow_export,
                                           kinds=("slow-test",)))  # offered for no real campaign
