"""What the benchmarks that run each step in a fresh process share: the step's child side (Django set up, the
result printed after a marker) and the parent side (the step run as a child process, its result with the whole
process's wall time, CPU time and peak RSS), and the median [min–max] of several runs."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RESULT = "RESULT "


def setup_django() -> None:
    """In a child: Django set up with the environment the parent gave (a throwaway MEDIA_ROOT unless set)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("MEDIA_ROOT", tempfile.mkdtemp())
    import django

    django.setup()


def migrate_empty(sqlite_path: Path) -> dict[str, Any]:
    """In a child: a new, empty SQLite database at `sqlite_path` with every migration applied."""
    sqlite_path.unlink(missing_ok=True)
    setup_django()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return {}


def emit(result: dict[str, Any]) -> None:
    """In a child: the step's result, after the marker the parent looks for."""
    sys.stdout.write(f"\n{RESULT}{json.dumps(result)}\n")


def run_child(script: str, step: str, env: dict[str, str], *extra: str) -> dict[str, Any]:
    """Runs `script --child step` in a fresh process; its result with the process's wall time, CPU time and peak
    RSS (its own and its children's, from wait4)."""
    command = [sys.executable, script, "--child", step, *extra]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env, text=True)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"step {step} failed:\n{stderr[-4000:]}")
    result: dict[str, Any] = json.loads(stdout.rsplit(RESULT, 1)[1])
    result.update(wall_s=wall, cpu_s=usage.ru_utime + usage.ru_stime, rss_mb=usage.ru_maxrss / 1024)
    return result


def spread(values: list[float], unit: str = "s", digits: int = 1) -> str:
    """The median and range of several runs: "12.3 s [11.9–13.0]"."""
    if len(values) == 1:
        return f"{values[0]:.{digits}f} {unit} (1 run)"
    return f"{statistics.median(values):.{digits}f} {unit} [{min(values):.{digits}f}–{max(values):.{digits}f}]"
