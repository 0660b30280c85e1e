"""What every background job row holds (exports, imports): its status, its error, who asked and when."""
from __future__ import annotations

from django.conf import settings
from django.db import models


class JobStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class BackgroundJob(models.Model):
    Status = JobStatus

    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]
