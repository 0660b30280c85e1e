"""The job queue's depth as /metrics reports it (settings.QUEUED_JOB_ROWS): queued rows of every background-job
model."""
from __future__ import annotations

import logging

from django.apps import apps
from django.db import DatabaseError

from .models import BackgroundJob, JobStatus

logger = logging.getLogger(__name__)


def queued_job_rows() -> dict[str, int]:
    """Queued rows of each background-job model, by model label; {} if the database fails."""
    counts: dict[str, int] = {}
    try:
        for model in apps.get_models():
            if issubclass(model, BackgroundJob):
                counts[model._meta.label_lower] = model._default_manager.filter(status=JobStatus.QUEUED).count()
    except DatabaseError as exc:
        logger.warning("metrics: the database did not answer the queued-jobs count: %s", exc)
        return {}
    return counts
