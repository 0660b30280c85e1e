"""Reads of the write side: the evaluations with their counts (one query for a page), one evaluation's systems,
and the test sets each source offers now."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Count, Q, QuerySet

from mturk.selectors.campaigns import COMPLETED, campaigns_with_progress, progress_of
from mturk.states import CampaignStatus

from .models import EvaluatedSystem, HumanEvaluation
from .registry import get_test_set_source, test_set_source_names

SIMULATED = "the judgements were generated for demonstration, not collected from people"  # said where it shows


def evaluation_rows() -> QuerySet[HumanEvaluation]:
    """Every evaluation, newest first, with its items and systems (the attention checks' not counted) and its
    campaign."""
    return HumanEvaluation.objects.select_related("campaign").annotate(
        item_count=Count("items", distinct=True),
        system_count=Count("systems", filter=~Q(systems__role=EvaluatedSystem.Role.ATTENTION), distinct=True),
    ).order_by("-created_at", "-id")


def status_labels(evaluations: Iterable[HumanEvaluation]) -> dict[int, str]:
    """Each evaluation's status as the console shows it (one query): "Collecting outputs" before its launch; then
    as its campaign stands: "Launched" (judging), "Launched, paused", "Completed" (every judgement in, campaign
    closed) or "Launched, closed before every judgement was in"."""
    evaluations = list(evaluations)
    campaigns = campaigns_with_progress().in_bulk([e.campaign_id for e in evaluations if e.campaign_id])
    labels = {}
    for evaluation in evaluations:
        campaign = campaigns.get(evaluation.campaign_id) if evaluation.campaign_id else None
        label = evaluation.get_status_display()
        if evaluation.status == HumanEvaluation.Status.LAUNCHED and campaign is not None:
            shown = progress_of(campaign).status_label
            if shown == COMPLETED:
                label = COMPLETED
            elif campaign.status == CampaignStatus.PAUSED:
                label += ", paused"
            elif campaign.status == CampaignStatus.CLOSED:
                label += ", closed before every judgement was in"
        labels[evaluation.pk] = label
    return labels


def is_simulated(evaluation: HumanEvaluation) -> bool:
    """Whether the evaluation's judgements were generated (its campaign is simulated, as the demo's are)."""
    return evaluation.campaign is not None and evaluation.campaign.is_simulated


def find_evaluation(name_or_id: str) -> HumanEvaluation | None:
    """An evaluation by its name, else by its id."""
    found = HumanEvaluation.objects.filter(name=name_or_id).first()
    if found is None and name_or_id.isdigit():
        found = HumanEvaluation.objects.filter(pk=int(name_or_id)).first()
    return found


def test_sets() -> list[dict[str, Any]]:
    """Each source with its test sets now: [{"source", "label", "output_kind", "description", "choices": [{"key",
    "label", "test_set"}]}]."""
    rows = []
    for name in test_set_source_names():
        source = get_test_set_source(name)
        rows.append({"source": name, "label": source.label, "output_kind": source.output_kind,
                     "description": source.description,
                     "choices": [{"key": key, "label": label, "test_set": f"{name}:{key}"}
                                 for key, label in source.choices()]})
    return rows
