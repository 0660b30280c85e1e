"""Background jobs of the stories (thin: each calls a service)."""
from __future__ import annotations

from dataclasses import asdict

from celery import shared_task

from .services.agreement_scores import score_new_stories as score_new
from .services.agreement_scores import score_stories


@shared_task(acks_late=True)
def score_new_stories() -> dict:
    """Score the stories recorded since the last run against the other stories of their sequences (one JVM)."""
    return asdict(score_new())


@shared_task(acks_late=True)
def score_all_stories() -> dict:
    """Compute every missing or stale agreement score (the `score_stories --background` command)."""
    return asdict(score_stories())
