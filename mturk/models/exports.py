"""A requested dataset export, built by a background job (the export framework is mturk.datasets)."""
from __future__ import annotations

from django.db import models

from ..jobs.models import BackgroundJob
from .campaigns import Campaign


class DatasetExport(BackgroundJob):
    """A requested export, built by a background job into a zip in the default storage."""

    job_task = "mturk.tasks.build_dataset_export"

    format = models.CharField(max_length=50)
    campaigns = models.ManyToManyField(Campaign, blank=True, related_name="exports")
    options = models.JSONField(default=dict, blank=True, help_text="Format options, e.g. {\"images\": true}.")
    file = models.FileField(upload_to="exports/", max_length=255, blank=True)
    records = models.PositiveIntegerField(null=True, blank=True)
    counts = models.JSONField(default=dict, blank=True)
    # Progress of the background job: steps done out of the total, once the format knows it.
    progress_done = models.PositiveIntegerField(default=0, db_default=0)
    progress_total = models.PositiveIntegerField(null=True, blank=True)

    class Meta(BackgroundJob.Meta):
        pass

    def __str__(self) -> str:
        return f"{self.format} export #{self.pk} ({self.status})"

