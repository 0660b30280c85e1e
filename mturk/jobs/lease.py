"""Leases on running jobs: a run claims its job in one UPDATE (queued, or running with the lease run out), then
renews the lease while it works: from the job's progress callback (`touch`) and from a timer thread. A run whose
worker dies stops renewing, and the sweeper takes the job up again once the lease runs out."""
from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import connection
from django.db.models import F, Q
from django.utils import timezone

from .models import BackgroundJob, JobStatus

log = logging.getLogger(__name__)


def lease_seconds() -> int:
    return max(1, int(settings.JOB_LEASE_SECONDS))


def lease_expired_before(now: datetime | None = None) -> datetime:
    """A running job whose heartbeat is older than this has lost its lease."""
    return (now or timezone.now()) - timedelta(seconds=lease_seconds())


def lost_lease(now: datetime | None = None) -> Q:
    """Running jobs whose run stopped renewing its lease (or never wrote one)."""
    return Q(status=JobStatus.RUNNING) & (Q(heartbeat_at__lt=lease_expired_before(now)) | Q(heartbeat_at__isnull=True))


def claim(job: BackgroundJob, **resets: Any) -> bool:
    """Take the job for this run, atomically: from queued, or from running when its lease ran out (its worker
    died), within settings.JOB_MAX_ATTEMPTS runs. `resets` are fields set at the same time (progress back to 0).
    False, and nothing written, when the job is done, failed, or running under a live lease: a job delivered
    twice runs once. The job is reloaded either way."""
    model = type(job)
    now = timezone.now()
    takeable = Q(status=JobStatus.QUEUED) | (lost_lease(now) & Q(attempts__lt=settings.JOB_MAX_ATTEMPTS))
    claimed = model._default_manager.filter(takeable, pk=job.pk).update(
        status=JobStatus.RUNNING, heartbeat_at=now, attempts=F("attempts") + 1, error="", finished_at=None,
        **resets)
    job.refresh_from_db()
    return bool(claimed)


def finish(job: BackgroundJob, fields: list[str]) -> bool:
    """Write the run's end (the `fields`, set on `job` already: status, result, error, finished_at...) only while
    the job is still this run's: a run that stalled past its lease, and whose job another run took over, leaves
    the other run's work alone (logged). False when the job was not this run's any more."""
    model = type(job)
    values = {name: getattr(job, name) for name in fields}
    if "updated_at" in values:
        values["updated_at"] = timezone.now()  # update() does not fill auto_now fields
    if "file" in values:
        values["file"] = values["file"].name
    written = model._default_manager.filter(pk=job.pk, status=JobStatus.RUNNING, attempts=job.attempts).update(
        **values)
    if not written:
        log.warning("%s %s: run %s ended after another run took the job over; its end is not written",
                    model.__name__, job.pk, job.attempts)
    return bool(written)


def touch(job: BackgroundJob) -> None:
    """Renew this run's lease (only while the job is still this run's)."""
    type(job)._default_manager.filter(pk=job.pk, status=JobStatus.RUNNING, attempts=job.attempts).update(
        heartbeat_at=timezone.now())


class _Heartbeat(threading.Thread):
    def __init__(self, job: BackgroundJob, interval: float) -> None:
        super().__init__(name=f"heartbeat-{type(job).__name__}-{job.pk}", daemon=True)
        self.job, self.interval, self.stopped = job, interval, threading.Event()

    def run(self) -> None:
        try:
            while not self.stopped.wait(self.interval):
                try:
                    touch(self.job)
                except Exception:  # the database away for a moment: the next beat tries again
                    log.warning("heartbeat of %s %s not written", type(self.job).__name__, self.job.pk,
                                exc_info=True)
        finally:
            connection.close()


@contextmanager
def lease(job: BackgroundJob, timer: bool | None = None) -> Iterator[None]:
    """Hold the claimed job's lease while the block runs: a timer renews it every quarter of the lease.
    `timer` defaults to on with a broker (off for in-process tasks, which run inside the request asking)."""
    if timer is None:
        timer = not current_app.conf.task_always_eager
    beat = _Heartbeat(job, lease_seconds() / 4) if timer else None
    if beat is not None:
        beat.start()
    try:
        yield
    finally:
        if beat is not None:
            beat.stopped.set()
            beat.join()
