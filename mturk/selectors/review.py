"""Reads of the visual review page: the filtered assignments of a campaign and the flags there are."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q, QuerySet

from ..models import Assignment, Campaign, GoldItem
from ..states import AssignmentStatus
from .campaigns import campaign_assignments

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


@dataclass(frozen=True)
class FlagSummary:
    """How many of some assignments the automatic checks (TaskKind.checks, hit_checks, gold) flagged, and by
    which check: what a bulk approval would approve if it took them all."""
    total: int
    flagged: int
    by_check: tuple[tuple[str, int], ...] = ()  # (flag, assignments it flags), most first

    @property
    def passing(self) -> int:
        return self.total - self.flagged

    def checks_text(self) -> str:
        """E.g. "too_short (3), repeated_words (1)"."""
        return ", ".join(f"{flag} ({count})" for flag, count in self.by_check)


def _summary(rows: Iterable[tuple[Any, int]]) -> FlagSummary:
    total = flagged = 0
    per_check: Counter[str] = Counter()
    for flags, count in rows:
        total += count
        names = {flag for flag in flags if isinstance(flag, str)} if isinstance(flags, list) else set()
        if names:
            flagged += count
            per_check.update(dict.fromkeys(names, count))
    return FlagSummary(total, flagged, tuple(sorted(per_check.items(), key=lambda item: (-item[1], item[0]))))


def selection_flags(campaign: Campaign, assignment_ids: Iterable[int]) -> FlagSummary:
    """The flags of the selected assignments of the campaign (ids of another campaign count for nothing);
    one query."""
    flags = Assignment.objects.filter(hit__campaign=campaign, pk__in=list(assignment_ids)).values_list(
        "check_flags", flat=True)
    return _summary((value, 1) for value in flags)


def submitted_flags(campaign: Campaign) -> FlagSummary:
    """The flags of the submitted work "approve all" would approve (confirmed, as approve_submitted takes it):
    counted per distinct list of flags, so one query of a few rows whatever the number of assignments."""
    rows = Assignment.objects.filter(hit__campaign=campaign, status=AssignmentStatus.SUBMITTED, confirmed=True) \
        .order_by().values("check_flags").annotate(n=Count("pk")).values_list("check_flags", "n")
    return _summary(rows)


def gold_made_from(assignment_ids: Iterable[int]) -> dict[int, int]:
    """The gold items made from these assignments' answers: assignment id -> gold item id; one query."""
    rows = GoldItem.objects.filter(source_assignment_id__in=list(assignment_ids)).order_by("pk").values_list(
        "source_assignment_id", "pk")
    return {assignment_id: gold_id for assignment_id, gold_id in rows if assignment_id is not None}
