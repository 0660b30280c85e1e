"""Pooled judging: the union of the submitted systems' top-k pairs not judged yet, queued to a judge_caption
campaign (placeholder, filled in by the ranking work)."""
from __future__ import annotations

from ..models_ranking import RankingSubmission


def queue_pooled_pairs(submission: RankingSubmission) -> int:
    """Queue the submission's top-k pairs not judged or queued yet; returns how many pairs were queued."""
    return 0
