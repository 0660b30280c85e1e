"""What a command prints besides its result: log lines as text on a terminal and as JSON elsewhere (LOG_FORMAT's
default), no broker warning without a broker, and the jobs a command runs in-process (no broker) logged at DEBUG,
while a worker's jobs are logged at INFO."""
from __future__ import annotations

import io
import logging
import os
import pty
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from common.observability import celery_signals
from common.observability.logs import default_log_format

ROOT = Path(__file__).resolve().parents[2]
SIGNALS = "common.observability.celery_signals"

PRINT_FORMAT = ("import os, sys; os.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings'; "
                "from django.conf import settings; sys.stdout.write(settings.LOG_FORMAT)")


def _env(var_dir: Path, **overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in {"DEBUG", "LOG_FORMAT", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(VAR_DIR=str(var_dir), DATABASE_URL=f"sqlite:///{var_dir / 'db.sqlite3'}", **overrides)
    return env


def _log_format(var_dir: Path, *, terminal: bool, **overrides: str) -> str:
    """settings.LOG_FORMAT in a new process whose standard error is a terminal (a pseudo-terminal) or a pipe."""
    primary, secondary = pty.openpty() if terminal else (None, subprocess.PIPE)
    try:
        result = subprocess.run([sys.executable, "-c", PRINT_FORMAT], cwd=ROOT, env=_env(var_dir, **overrides),
                                stdout=subprocess.PIPE, stderr=secondary, text=True, timeout=120, check=True)
    finally:
        if primary is not None:
            os.close(primary)
            os.close(secondary)  # type: ignore[arg-type]
    return result.stdout


def test_the_default_log_format_is_text_for_people_and_json_for_collectors():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert default_log_format(False, Terminal()) == "text"
    assert default_log_format(False, io.StringIO()) == "json"  # a pipe, a file, a container's log
    assert default_log_format(True, io.StringIO()) == "text"  # DEBUG


def test_a_command_on_a_terminal_logs_text_and_one_in_production_json(tmp_path):
    assert _log_format(tmp_path, terminal=True) == "text"
    assert _log_format(tmp_path, terminal=False) == "json"
    assert _log_format(tmp_path, terminal=False, DEBUG="1") == "text"
    assert _log_format(tmp_path, terminal=True, LOG_FORMAT="json") == "json"  # the setting, when set, decides
    assert _log_format(tmp_path, terminal=False, LOG_FORMAT="text") == "text"


def test_no_broker_warning_when_no_broker_is_configured(tmp_path):
    """An in-process job (apply_async without a broker) takes a producer from the no-broker transport: kombu
    warned 'No hostname was supplied' on every command that ran one."""
    code = ("import os; os.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings'\n"
            "import django; django.setup()\n"
            "from config.celery import app\n"
            "assert app.conf.task_always_eager\n"
            "with app.producer_or_acquire(None) as producer: print(producer.connection.hostname)\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(tmp_path, LOG_FORMAT="text"),
                            capture_output=True, text=True, timeout=120, check=True)
    assert result.stdout.strip() == "localhost"
    assert result.stderr == ""


def _job(eager: bool) -> SimpleNamespace:
    return SimpleNamespace(name="mturk.tasks.release_idle_tasks",
                           request=SimpleNamespace(is_eager=eager, headers={}))


@pytest.mark.parametrize(("eager", "level"), [(True, logging.DEBUG), (False, logging.INFO)])
def test_a_job_run_in_process_logs_at_debug_and_a_workers_job_at_info(caplog, eager, level):
    caplog.set_level(logging.DEBUG, logger=SIGNALS)
    task = _job(eager)
    celery_signals._job_started(task_id="t-1", task=task)
    celery_signals._job_finished(task_id="t-1", task=task, state="SUCCESS")
    lines = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == SIGNALS]
    assert lines == [(level, "job mturk.tasks.release_idle_tasks started"),
                     (level, "job mturk.tasks.release_idle_tasks finished: success")]


def test_an_in_process_job_that_fails_is_still_logged_at_info(caplog):
    caplog.set_level(logging.INFO, logger=SIGNALS)
    task = _job(True)
    celery_signals._job_started(task_id="t-2", task=task)
    celery_signals._job_finished(task_id="t-2", task=task, state="FAILURE")
    assert [r.getMessage() for r in caplog.records if r.name == SIGNALS] == [
        "job mturk.tasks.release_idle_tasks finished: failure"]


@pytest.mark.django_db
def test_a_command_running_jobs_in_process_logs_nothing_at_info(caplog, tmp_path,
                                                                  django_capture_on_commit_callbacks):
    """import_images makes each image's thumbnails in a job, in-process without a broker: the command's output
    is its result alone, no log line per job."""
    from io import StringIO

    from django.core.management import call_command

    from annotation.models import Image
    from tests.factories import image_bytes

    (tmp_path / "a.png").write_bytes(image_bytes())
    (tmp_path / "b.jpg").write_bytes(image_bytes("JPEG"))
    caplog.set_level(logging.INFO)
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        call_command("import_images", str(tmp_path), stdout=out)
    assert callbacks and "2 imported" in out.getvalue()
    assert Image.objects.filter(thumb_small="").count() == 0  # the jobs ran
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO and r.name.startswith(
        ("common.observability", "kombu", "celery"))] == []
