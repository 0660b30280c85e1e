"""What every background job row holds (imports, exports, quality, parses, evaluations): its status, its error,
who asked and when, and what the job queue (mturk.jobs) needs so that no job is stranded: when it was handed to
the broker, how many times a worker took it up, and the heartbeat of the run holding its lease."""
from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models


class JobStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


OPEN_STATUSES = (JobStatus.QUEUED, JobStatus.RUNNING)


class BackgroundJob(models.Model):
    Status = JobStatus
    # The name of the Celery task that runs a job of this kind, given the job's id (every concrete kind sets it).
    job_task: ClassVar[str] = ""

    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The job queue's bookkeeping (mturk/jobs): when the job was last sent to the broker (empty: never, e.g. the
    # broker was down; the sweeper sends it), how many runs took it up, the last sign of life of the running one.
    handed_off_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]

    @property
    def waiting_for_queue(self) -> bool:
        """Stored and queued, but not yet handed to the broker (it was unreachable): the sweeper will send it."""
        return self.status == JobStatus.QUEUED and self.handed_off_at is None
