"""Quality computations asked for from the console or the API: stored as a QualityJob first, then run by a
background job (Celery; in-process without a broker), one at a time per campaign. A job whose worker died is
taken up again by the job queue's sweeper (mturk.jobs), or failed with the reason: an open job always ends."""
from __future__ import annotations

import logging
from dataclasses import asdict
from typing import Any

from django.db import transaction
from django.utils import timezone

from ...jobs import claim, dispatch, finish, lease
from ...models import Campaign, QualityJob
from .computation import compute_quality

log = logging.getLogger(__name__)

OPEN = (QualityJob.Status.QUEUED, QualityJob.Status.RUNNING)


def request_quality(campaign: Campaign, user: Any = None) -> QualityJob:
    """The campaign's open computation, or a new one queued once this transaction commits."""
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()  # one request at a time per campaign
        open_job = (QualityJob.objects.filter(campaign=campaign, status__in=OPEN)
                    .order_by("-created_at", "-id").first())
        if open_job is not None:
            return open_job
        job = QualityJob.objects.create(campaign=campaign,
                                        created_by=user if getattr(user, "is_authenticated", False) else None)
        dispatch(job)
    return job


def run_quality_job(job: QualityJob) -> QualityJob:
    """Compute (from queued, or from running when its worker died: computing again is harmless)."""
    if not claim(job):
        return job
    try:
        with lease(job):
            result = compute_quality(job.campaign)
    except Exception as exc:
        log.exception("quality job %s failed", job.pk)
        _finish(job, QualityJob.Status.FAILED, {}, f"{type(exc).__name__}: {exc}")
        raise
    return _finish(job, QualityJob.Status.DONE, asdict(result), "")


def _finish(job: QualityJob, status: str, result: dict[str, Any], error: str) -> QualityJob:
    job.status, job.result, job.error, job.finished_at = status, result, error, timezone.now()
    finish(job, ["status", "result", "error", "finished_at"])
    return job
