"""Reads of the visual review page: the filtered assignments of a campaign and the flags there are."""
from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Count, Q, QuerySet

from .models import Assignment, Campaign, GoldItem
from .selectors import campaign_assignments
from .states import AssignmentStatus

NO_FLAG = "none"
ANY_FLAG = "any"


def review_assignments(campaign: Campaign, status: str | None = None, flag: str | None = None,
                       worker: int | None = None, assignment: int | None = None,
                       hit: int | None = None) -> QuerySet[Assignment]:
    """The campaign's reviewable assignments, newest first, by status, by check flag (a flag's name,
    ANY_FLAG or NO_FLAG), by worker, by assignment and by HIT (ids)."""
    queryset = campaign_assignments(campaign, status)
    if hit is not None:
        queryset = queryset.filter(hit_id=hit)
    if worker is not None:
        queryset = queryset.filter(worker_id=worker)
    if assignment is not None:
        queryset = queryset.filter(pk=assignment)
    if flag == NO_FLAG:
        return queryset.filter(check_flags=[])
    if flag == ANY_FLAG:
        return queryset.exclude(check_flags=[])
    if flag:  # flags are plain identifiers: their quoted name in the JSON list's text (any database)
        return queryset.filter(check_flags__icontains=f'"{flag}"')
    return queryset


def campaign_flags(campaign: Campaign) -> list[str]:
    """Every check flag raised on the campaign's assignments, sorted; one query."""
    lists = campaign_assignments(campaign).exclude(check_flags=[]).order_by().values_list(
        "check_flags", flat=True).distinct()
    return sorted({flag for flags in lists if isinstance(flags, list) for flag in flags if isinstance(flag, str)})


def review_counts(campaign: Campaign) -> dict[str, int]:
    """Assignments per status, and submitted ones with a check flag ("flagged"); one query."""
    rows = campaign_assignments(campaign).order_by().values("status").annotate(
        total=Count("pk"), flagged=Count("pk", filter=~Q(check_flags=[])))
    counts = {row["status"]: row["total"] for row in rows}
    counts["flagged"] = sum(row["flagged"] for row in rows if row["status"] == AssignmentStatus.SUBMITTED)
    return counts



def gold_made_from(assignment_ids: Iterable[int]) -> dict[int, int]:
    """The gold items made from these assignments' answers: assignment id -> gold item id; one query."""
    rows = GoldItem.objects.filter(source_assignment_id__in=list(assignment_ids)).order_by("pk").values_list(
        "source_assignment_id", "pk")
    return {assignment_id: gold_id for assignment_id, gold_id in rows if assignment_id is not None}
