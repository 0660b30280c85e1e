"""Reads for the dashboard's totals and the charts of the dashboard and the campaign page.

Aggregated in the database (submissions grouped by day or hour in the project's time zone), each in one query
whatever the number of campaigns and assignments."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from django.db.models import Count, QuerySet
from django.db.models.functions import TruncDate, TruncHour
from django.utils import timezone

from .models import Assignment, Campaign
from .selectors import CampaignProgress, CampaignWithProgress
from .states import ANSWERED, CampaignStatus

DASHBOARD_DAYS = 30  # the dashboard plots at most the last 30 days with submissions
HOURLY_UP_TO = timedelta(hours=48)  # a campaign whose submissions span less is plotted per hour


def _answered(campaign: Campaign | None = None) -> QuerySet[Assignment]:
    queryset = Assignment.objects.filter(confirmed=True, status__in=ANSWERED)
    return queryset.filter(hit__campaign=campaign) if campaign is not None else queryset


@dataclass(frozen=True)
class Totals:
    """The dashboard's totals over every campaign."""

    campaigns: int
    by_status: list[tuple[str, int]]  # (status label, campaigns) of the statuses that have campaigns, in order
    submissions: int
    to_review: int
    workers: int  # distinct workers with at least one submission (generated ones left out)
    spent: Decimal  # simulated campaigns left out: their results were generated, no one was paid
    committed: Decimal  # the most every campaign can cost (its required assignments)
    fees_known: bool
    simulated: int  # campaigns left out of the money


def dashboard_totals(rows: Sequence[tuple[CampaignWithProgress, CampaignProgress]]) -> Totals:
    """Totals from the dashboard's annotated campaigns, plus one query for the distinct workers."""
    statuses = Counter(campaign.status for campaign, _ in rows)
    paid = [progress for campaign, progress in rows if not campaign.is_simulated]
    return Totals(
        campaigns=len(rows),
        by_status=[(label, statuses[value]) for value, label in CampaignStatus.choices if statuses[value]],
        submissions=sum(progress.answered for _, progress in rows),
        to_review=sum(progress.pending_review for _, progress in rows),
        workers=_answered().filter(is_simulated=False).values("worker").distinct().count() if rows else 0,
        spent=sum((progress.cost_so_far for progress in paid), Decimal("0.00")),
        committed=sum((progress.max_cost for progress in paid), Decimal("0.00")),
        fees_known=all(progress.fees_known for progress in paid),
        simulated=len(rows) - len(paid),
    )


@dataclass(frozen=True)
class Series:
    """Submissions counted per period (a day or an hour), every period of the span listed, empty ones too."""

    unit: str  # "day" or "hour"
    counts: list[tuple[datetime | date, int]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(count for _, count in self.counts)

    @property
    def busiest(self) -> tuple[datetime | date, int] | None:
        return max(self.counts, key=lambda pair: pair[1], default=None) if self.total else None


def _days(counts: dict[date, int], first: date, last: date) -> list[tuple[datetime | date, int]]:
    return [(first + timedelta(days=n), counts.get(first + timedelta(days=n), 0))
            for n in range((last - first).days + 1)]


def submissions_per_day(days: int = DASHBOARD_DAYS) -> Series:
    """Submissions of every campaign per day (the project's time zone): the `days` days up to the last day with
    a submission (today while there are recent ones)."""
    rows = dict(_answered().exclude(submitted_at=None).annotate(day=TruncDate("submitted_at")).order_by()
                .values("day").annotate(n=Count("pk")).values_list("day", "n"))
    if not rows:
        return Series("day")
    today = timezone.localdate()
    last = today if max(rows) > today - timedelta(days=days) else max(rows)
    first = max(min(rows), last - timedelta(days=days - 1))
    return Series("day", _days(rows, first, last))


def campaign_submissions(campaign: Campaign) -> Series:
    """A campaign's submissions over its whole span: per hour when they span less than two days, else per
    day (the project's time zone)."""
    rows = dict(_answered(campaign).exclude(submitted_at=None).annotate(hour=TruncHour("submitted_at")).order_by()
                .values("hour").annotate(n=Count("pk")).values_list("hour", "n"))
    if not rows:
        return Series("day")
    first, last = min(rows), max(rows)
    if last - first < HOURLY_UP_TO:  # aware datetimes: the arithmetic is done in UTC, the labels are local
        start = first.astimezone(UTC)
        hours = [start + timedelta(hours=n) for n in range(int((last - first) / timedelta(hours=1)) + 1)]
        return Series("hour", [(timezone.localtime(hour), rows.get(hour, 0)) for hour in hours])
    per_day: Counter[date] = Counter()
    for hour, count in rows.items():
        per_day[timezone.localtime(hour).date()] += count
    return Series("day", _days(per_day, min(per_day), max(per_day)))


def seconds_on_task(campaign: Campaign) -> list[float]:
    """Time on task of the campaign's answered assignments, in seconds (those without a time left out): the
    values `selectors.time_and_pay` takes, as `crowd_statistics` reads them."""
    durations = _answered(campaign).exclude(time_on_task=None).values_list("time_on_task", flat=True)
    return [duration.total_seconds() for duration in durations if duration is not None]
