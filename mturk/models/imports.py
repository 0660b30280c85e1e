"""Import jobs: a file a researcher uploaded in the console, stored first, then read by a background job
through the importer registered for its kind (mturk/importers.py). The crowd core knows no dataset: the
importers live with the data they write (annotation, storyboard)."""
from __future__ import annotations

from django.db import models

from ..jobs.models import BackgroundJob


class ImportJob(BackgroundJob):
    job_task = "mturk.tasks.run_import_job"

    importer = models.CharField(max_length=50, help_text="Name of the registered importer (images, albums, …).")
    file = models.FileField(upload_to="imports/", max_length=255)
    original_name = models.CharField(max_length=255)
    options = models.JSONField(default=dict, blank=True)
    # Progress of the background job: files (or lines, albums…) read so far out of the total, once known.
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(null=True, blank=True)
    # What the job did: {"imported": n, "skipped": n, "refused": [{"name": ..., "reason": ...}], ...}.
    report = models.JSONField(default=dict, blank=True)

    class Meta(BackgroundJob.Meta):
        pass

    def __str__(self) -> str:
        return f"{self.importer} import #{self.pk} ({self.status})"
