"""Import jobs: a file a researcher uploaded in the console, stored first, then read by a background job
through the importer registered for its kind (mturk/importers.py). The crowd core knows no dataset: the
importers live with the data they write (annotation, storyboard)."""
from __future__ import annotations

from django.conf import settings
from django.db import models


class ImportJob(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    importer = models.CharField(max_length=50, help_text="Name of the registered importer (images, albums, …).")
    file = models.FileField(upload_to="imports/", max_length=255)
    original_name = models.CharField(max_length=255)
    options = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    # Progress of the background job: files (or lines, albums…) read so far out of the total, once known.
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(null=True, blank=True)
    # What the job did: {"imported": n, "skipped": n, "refused": [{"name": ..., "reason": ...}], ...}.
    report = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.importer} import #{self.pk} ({self.status})"
