"""Reads of measured quality: a campaign's workers and items, a worker across campaigns, the rule's audit.

(Interface fixed; bodies to be written.) Every function reads a constant number of queries."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page

from .models import Campaign, CampaignQuality, QualityRule, Worker, WorkerScore


@dataclass
class CampaignQualityView:
    campaign: Campaign
    summary: CampaignQuality | None  # None: never computed
    rule: QualityRule | None
    workers: list[WorkerScore]  # with .worker loaded, best gold accuracy then agreement first
    gold_hits: int  # the campaign's gold HITs
    onboarding_hits: int
    gold_answers: int  # answers to gold HITs scored


@dataclass
class ItemRow:
    hit_id: int
    position: int
    answers: int
    agreement: float | None
    method: str
    summary: str  # the aggregated answer as TaskKind.summary writes it
    details: dict[str, Any]


def campaign_quality(campaign: Campaign) -> CampaignQualityView:
    raise NotImplementedError


def item_rows(campaign: Campaign, page: int = 1, per_page: int = 50) -> Page:
    """A page of the campaign's aggregated items (ItemRow), lowest agreement first (the adjudication queue)."""
    raise NotImplementedError


def worker_quality(worker: Worker) -> list[WorkerScore]:
    """The worker's scores in every campaign, with .campaign loaded, newest campaign first."""
    raise NotImplementedError


def decisions(campaign: Campaign, page: int = 1, per_page: int = 50) -> Page:
    """A page of the campaign's QualityDecisions (audit), newest first, with worker and assignment loaded."""
    raise NotImplementedError
