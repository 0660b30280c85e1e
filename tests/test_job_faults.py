"""Fault tests of the job queue on PostgreSQL with real Celery worker processes on Redis: the whole worker killed
(kill -9 of its process group) in the middle of an import or an export, then a new worker: the job is taken up again and
finishes, run twice in all, never at once; the broker down when an export is asked for: 202 and the job stored,
then the broker back: the sweeper hands it off and a worker builds it."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.utils import timezone

from config.celery import app
from mturk.datasets.services.exports import request_export
from mturk.datasets.services.imports import request_import
from mturk.jobs import sweep
from mturk.jobs.sweeper import HANDOFF_GRACE
from mturk.models import DatasetExport
from mturk.models.imports import ImportJob
from tests.celery_process import ROOT, database_url
from tests.factories import make_campaign

from . import job_fault_fakes

pytestmark = [
    pytest.mark.celery_worker,
    pytest.mark.skipif(not os.environ.get("CELERY_BROKER_URL"), reason="set CELERY_BROKER_URL to use a real worker"),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the worker processes need a shared database"),
]
LEASE_SECONDS = 2


@pytest.fixture
def worker_env(transactional_db, media_root, tmp_path, settings) -> dict[str, str]:
    settings.JOB_LEASE_SECONDS = LEASE_SECONDS
    app.conf.task_always_eager = False  # restored by the celery_in_process fixture
    app.control.purge()
    return {**os.environ, "DATABASE_URL": database_url(), "MEDIA_ROOT": str(media_root),
            "DJANGO_SETTINGS_MODULE": "config.settings", "JOB_LEASE_SECONDS": str(LEASE_SECONDS),
            "JOB_SWEEP_SECONDS": "1", "JOB_FAULT_RUNS": str(tmp_path / "runs.txt")}


@contextmanager
def worker(env: dict[str, str], log: Path) -> Iterator[subprocess.Popen]:
    """A worker with its embedded beat (the sweeper every second), in a process group of its own."""
    name = f"faults-{os.getpid()}-{time.monotonic_ns()}@localhost"
    with log.open("a") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "--loglevel=INFO", "-B",
             "-s", str(log.with_suffix(".beat")), "-I", "tests.job_fault_fakes", "--without-gossip",
             "--without-mingle", "-n", name],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not app.control.ping(destination=[name], timeout=0.5):
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the Celery worker did not answer within 60 s"
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)


def wait_for(condition: Callable[[], bool], what: str, log: Path, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {seconds} s; worker log:\n{log.read_text()[-4000:]}"
        time.sleep(0.1)


def test_a_worker_killed_mid_import_leaves_the_job_to_the_next_worker(worker_env, tmp_path):
    log = tmp_path / "worker.log"
    upload = SimpleUploadedFile("steps.txt", b"10\n", content_type="text/plain")
    with worker(worker_env, log) as first:
        job = request_import(job_fault_fakes.SLOW.name, [upload])
        wait_for(lambda: ImportJob.objects.get(pk=job.pk).done >= 2, "the first worker made no progress", log)
        os.killpg(first.pid, signal.SIGKILL)  # the whole worker: main process and its beat
        first.wait(timeout=10)
    stuck = ImportJob.objects.get(pk=job.pk)
    assert (stuck.status, stuck.attempts) == ("running", 1) and 2 <= stuck.done < 10
    with worker(worker_env, log):
        wait_for(lambda: ImportJob.objects.get(pk=job.pk).status == "done", "the job did not finish", log)
    job.refresh_from_db()
    assert (job.status, job.attempts, job.done, job.total, job.report) == ("done", 2, 10, 10, {"imported": 10})
    runs = Path(worker_env["JOB_FAULT_RUNS"]).read_text().split()
    assert runs[0::2] == ["start", "start", "end"]  # the first run never ended; the second ran once, to the end
    assert "its worker stopped (run 1 of 3); queued again" in log.read_text()


def test_a_worker_killed_mid_export_leaves_the_job_to_the_next_worker(worker_env, tmp_path):
    log = tmp_path / "worker.log"
    with worker(worker_env, log) as first:
        export = request_export(job_fault_fakes.SLOW_EXPORT.name, [])
        wait_for(lambda: DatasetExport.objects.get(pk=export.pk).progress_done >= 2, "the first worker made no "
                 "progress", log)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
    stuck = DatasetExport.objects.get(pk=export.pk)
    assert (stuck.status, stuck.attempts) == ("running", 1) and not stuck.file
    with worker(worker_env, log):
        wait_for(lambda: DatasetExport.objects.get(pk=export.pk).status == "done", "the export was not built", log)
    export.refresh_from_db()
    assert (export.status, export.attempts, export.records, export.error) == ("done", 2, 10, "")
    assert export.file.name.endswith(".zip")
    runs = Path(worker_env["JOB_FAULT_RUNS"]).read_text().split()
    assert runs[0::2] == ["start", "start", "end"]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def broker_url(url: str) -> Iterator[None]:
    """This process's connection to the broker, pointed at `url` (the app forgets its pools, before and after;
    kombu keeps one per broker URL)."""
    previous = app.conf.broker_write_url

    def reset(to: str) -> None:
        app._pool = None
        app.amqp._producer_pool = None
        app.conf.broker_url = app.conf.broker_write_url = to

    reset(url)
    try:
        yield
    finally:
        reset(previous)


def test_an_export_asked_for_while_the_broker_is_down_is_built_once_it_is_back(worker_env, tmp_path, api):
    log = tmp_path / "worker.log"
    campaign = make_campaign(images=1, assignments=1)
    with broker_url(f"redis://127.0.0.1:{closed_port()}/3"):
        started = time.monotonic()
        response = api.post("/api/exports/", {"format": "assignments-jsonl", "campaigns": [campaign.pk]},
                            format="json")
        print(f"export asked for with the broker down: {response.status_code} in "
              f"{time.monotonic() - started:.2f} s")
    assert response.status_code == 202 and response.json()["status"] == "queued"
    export = DatasetExport.objects.get()
    assert (export.status, export.handed_off_at) == ("queued", None)
    with worker(worker_env, log):
        assert sweep(now=timezone.now() + HANDOFF_GRACE).sent == [f"DatasetExport {export.pk}"]
        wait_for(lambda: DatasetExport.objects.get(pk=export.pk).status == "done", "the export was not built", log)
    export.refresh_from_db()
    assert (export.attempts, export.records, export.error) == (1, 0, "")
    assert export.handed_off_at is not None and export.file.name.endswith(".zip")
