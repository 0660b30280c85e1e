"""Measure a campaign's work: gold accuracy and agreement per worker, agreement and aggregated answer per item.

(Interface fixed; bodies to be written.)"""
from __future__ import annotations

from dataclasses import dataclass

from ..models import Campaign


@dataclass(frozen=True)
class QualityComputation:
    measure: str
    answers: int
    items: int
    workers: int
    aggregated: int


def compute_quality(campaign: Campaign) -> QualityComputation:
    """Compute and store WorkerScore, ItemAggregate, Assignment.agreement and CampaignQuality for a campaign
    (idempotent; re-running replaces the figures)."""
    raise NotImplementedError
