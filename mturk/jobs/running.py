"""One run of a background job, from its claim to its end:

    with running(job, done=0) as run:
        if run is None:
            return job  # done, failed, or running under another run's live lease: nothing to do
        ...  # the work; run.done(**fields) or run.failed(error, **fields) to end it with these fields

The run claims the job (lease.claim, with `resets` written at the same time), holds its lease while the block runs
(lease.lease: the heartbeat), and ends it: done when the block returns without having ended it; failed, with
`error_prefix` and the exception as the reason, when the block raises (logged, and raised again). Its end writes
status, error, finished_at (updated_at when the job has one), the fields given to done/failed and the fields the
block named with `run.keep` (their values on the job then). An end is written only while the job is still this
run's (lease.finish)."""
from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.utils import timezone

from .lease import claim, finish, lease
from .models import BackgroundJob, JobStatus

log = logging.getLogger(__name__)


class Run:
    """A claimed job's run: ends it once, done or failed, with the fields the run wrote."""

    def __init__(self, job: BackgroundJob) -> None:
        self.job = job
        self.ended = False
        self.kept: list[str] = []

    def keep(self, *names: str) -> None:
        """Write these fields of the job, as they are then, with the run's end (whichever it is)."""
        self.kept.extend(name for name in names if name not in self.kept)

    def done(self, **fields: Any) -> bool:
        return self._end(JobStatus.DONE, "", fields)

    def failed(self, error: str, **fields: Any) -> bool:
        return self._end(JobStatus.FAILED, error, fields)

    def _end(self, status: str, error: str, fields: dict[str, Any]) -> bool:
        job = self.job
        for name, value in fields.items():
            setattr(job, name, value)
        job.status, job.error, job.finished_at = status, error, timezone.now()
        names = ["status", "error", "finished_at", *fields, *(name for name in self.kept if name not in fields)]
        if _has_field(job, "updated_at"):
            names.append("updated_at")
        self.ended = True
        return finish(job, names)


def _has_field(job: BackgroundJob, name: str) -> bool:
    try:
        job._meta.get_field(name)
    except FieldDoesNotExist:
        return False
    return True


@contextmanager
def running(job: BackgroundJob, *, error_prefix: str = "", timer: bool | None = None,
            **resets: Any) -> Iterator[Run | None]:
    """Claim the job, hold its lease while the block runs, and end it (see the module's docstring). Yields None,
    with nothing written, when the job is not this run's to take."""
    if not claim(job, **resets):
        yield None
        return
    run = Run(job)
    try:
        with lease(job, timer):
            yield run
    except Exception as exc:
        if not run.ended:
            log.exception("%s %s failed", job._meta.verbose_name, job.pk)
            run.failed(f"{error_prefix}{type(exc).__name__}: {exc}")
        raise
    if not run.ended:
        run.done()
