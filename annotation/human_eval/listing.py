"""Reads of the write side: the evaluations with their counts (one query for a page), one evaluation's systems,
and the test sets each source offers now."""
from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet

from .models import EvaluatedSystem, HumanEvaluation
from .registry import get_test_set_source, test_set_source_names


def evaluation_rows() -> QuerySet[HumanEvaluation]:
    """Every evaluation, newest first, with its items and systems (the attention checks' not counted)."""
    return HumanEvaluation.objects.annotate(
        item_count=Count("items", distinct=True),
        system_count=Count("systems", filter=~Q(systems__role=EvaluatedSystem.Role.ATTENTION), distinct=True),
    ).order_by("-created_at", "-id")


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
