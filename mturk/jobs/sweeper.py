"""The sweeper: nothing requested is left behind. It sends queued jobs the broker never took (it was down) or
lost (handed off longer ago than the visibility timeout), and takes up running jobs whose worker died (lease run
out): queued again, or failed with the reason once settings.JOB_MAX_ATTEMPTS runs have stopped."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from .lease import lease_seconds, lost_lease
from .models import BackgroundJob, JobStatus
from .queue import hand_off, job_models

log = logging.getLogger(__name__)

# A job stored this recently and never run is left to the request that stored it (its hand-off runs when it
# commits); a job taken up again after its worker stopped is sent at once.
HANDOFF_GRACE = timedelta(seconds=10)
# At most this many jobs of each kind per sweep (the next sweep takes the rest).
BATCH = 500


@dataclass
class SweepReport:
    sent: list[str] = field(default_factory=list)  # "ImportJob 12": handed to the broker
    unsent: list[str] = field(default_factory=list)  # still waiting for the broker
    requeued: list[str] = field(default_factory=list)  # taken up after their worker stopped
    failed: list[str] = field(default_factory=list)  # given up after JOB_MAX_ATTEMPTS runs


def given_up_message(attempts: int) -> str:
    return (f"the worker running it stopped {attempts} times (no sign of life for {lease_seconds()} s each time); "
            "the job was given up. The worker's log may say why (killed for memory, for example); ask again to "
            "start a new one.")


def _take_up(model: type[BackgroundJob], now: datetime, report: SweepReport) -> None:
    expired = lost_lease(now)
    for pk, attempts in model._default_manager.filter(expired).order_by("pk").values_list("pk", "attempts")[:BATCH]:
        label = f"{model.__name__} {pk}"
        if attempts >= settings.JOB_MAX_ATTEMPTS:
            if model._default_manager.filter(expired, pk=pk, attempts=attempts).update(
                    status=JobStatus.FAILED, error=given_up_message(attempts), finished_at=now):
                log.error("%s failed: %s", label, given_up_message(attempts))
                report.failed.append(label)
        elif model._default_manager.filter(expired, pk=pk, attempts=attempts).update(
                status=JobStatus.QUEUED, handed_off_at=None, heartbeat_at=None):
            log.warning("%s: its worker stopped (run %s of %s); queued again", label, attempts,
                        settings.JOB_MAX_ATTEMPTS)
            report.requeued.append(label)


def _send(model: type[BackgroundJob], now: datetime, report: SweepReport) -> None:
    lost_after = timedelta(seconds=settings.JOB_VISIBILITY_TIMEOUT_SECONDS)
    waiting = model._default_manager.filter(
        Q(handed_off_at__isnull=True) & (Q(created_at__lt=now - HANDOFF_GRACE) | Q(attempts__gt=0))
        | Q(handed_off_at__lt=now - lost_after),
        status=JobStatus.QUEUED)
    for pk in waiting.order_by("pk").values_list("pk", flat=True)[:BATCH]:
        label = f"{model.__name__} {pk}"
        (report.sent if hand_off(model, pk) else report.unsent).append(label)


def sweep(now: datetime | None = None) -> SweepReport:
    """One pass over every kind of job (safe to run in several processes at once: each change is conditional)."""
    now = now or timezone.now()
    report = SweepReport()
    for model in job_models():
        _take_up(model, now, report)
        _send(model, now, report)  # with the jobs queued again above
    return report
