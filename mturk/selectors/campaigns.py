"""Reads for the dashboard, the API and the CLI. Each list is built in a constant number of queries."""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypedDict

from django.db.models import (
    Case,
    Count,
    DecimalField,
    IntegerField,
    OuterRef,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Coalesce

from ..models import HIT, Assignment, Bonus, Campaign
from ..providers.base import money
from ..providers.registry import get_provider, provider_names
from ..states import ANSWERED, AssignmentStatus, CampaignStatus, HITStatus
from .compiled_query import CompiledQuery
from .quality import crowd_quality
from .worker_pay import with_current_decisions, worker_tallies


class ProgressCounts(TypedDict):
    """What campaigns_with_progress annotates each campaign with."""

    hit_count: int
    required: int
    answered: int
    pending_review: int
    approved: int
    rejected: int
    in_progress: int
    unconfirmed: int
    bonus_total: Decimal
    pending_creation: int


if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

    CampaignWithProgress = WithAnnotations[Campaign, ProgressCounts]
else:
    CampaignWithProgress = Campaign


def _count(queryset: QuerySet, group: str) -> Coalesce:
    sub = queryset.order_by().values(group).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(sub, output_field=IntegerField()), Value(0))


def campaigns_with_progress() -> QuerySet[CampaignWithProgress]:
    """Campaigns annotated with HIT and assignment counts and bonus totals, in one query.

    `pending_creation`: published HITs a marketplace job has not created yet (always 0 without a marketplace,
    whose published HITs never get a marketplace id)."""
    marketplaces = [name for name in provider_names() if get_provider(name).has_marketplace]
    pending = _count(
        HIT.objects.filter(campaign=OuterRef("pk"), status=HITStatus.PUBLISHED, external_id=""), "campaign")
    of_campaign = Assignment.objects.filter(hit__campaign=OuterRef("pk"), confirmed=True)
    required = (  # onboarding HITs take every worker who comes: no part of the work to be done
        HIT.objects.filter(campaign=OuterRef("pk"), onboarding=False).order_by().values("campaign")
        .annotate(n=Sum("max_assignments")).values("n")
    )
    bonuses = (
        Bonus.objects.filter(assignment__hit__campaign=OuterRef("pk")).order_by()
        .values("assignment__hit__campaign").annotate(s=Sum("amount")).values("s")
    )
    return Campaign.objects.select_related("prolific_study").annotate(
        hit_count=_count(HIT.objects.filter(campaign=OuterRef("pk")), "campaign"),
        required=Coalesce(Subquery(required, output_field=IntegerField()), Value(0)),
        answered=_count(of_campaign.filter(status__in=ANSWERED), "hit__campaign"),
        pending_review=_count(of_campaign.filter(status=AssignmentStatus.SUBMITTED), "hit__campaign"),
        approved=_count(of_campaign.filter(status=AssignmentStatus.APPROVED), "hit__campaign"),
        rejected=_count(of_campaign.filter(status=AssignmentStatus.REJECTED), "hit__campaign"),
        in_progress=_count(of_campaign.filter(status=AssignmentStatus.ACCEPTED), "hit__campaign"),
        unconfirmed=_count(Assignment.objects.filter(hit__campaign=OuterRef("pk"), confirmed=False), "hit__campaign"),
        bonus_total=Coalesce(
            Subquery(bonuses, output_field=DecimalField(max_digits=10, decimal_places=2)),
            Value(Decimal("0")), output_field=DecimalField(max_digits=10, decimal_places=2),
        ),
        pending_creation=Case(When(provider__in=marketplaces, then=pending), default=Value(0),
                              output_field=IntegerField()),
    )


@dataclass(frozen=True)
class CampaignProgress:
    """Progress and cost of an annotated campaign (see campaigns_with_progress)."""

    required: int
    answered: int
    pending_review: int
    approved: int
    rejected: int
    in_progress: int
    cost_so_far: Decimal
    max_cost: Decimal
    fees_known: bool = True  # False: the marketplace's fees are not known yet and are left out of the costs
    # The status as the console shows it: "Completed" for a closed campaign whose work was done (every required
    # assignment answered, none waiting for review or in progress), else the status's own label.
    status_label: str = ""

    @property
    def percent(self) -> int:
        return 0 if not self.required else min(100, round(100 * self.answered / self.required))


COMPLETED = "Completed"


def _status_label(campaign: CampaignWithProgress) -> str:
    done = (campaign.required > 0 and campaign.answered >= campaign.required and not campaign.pending_review
            and not campaign.in_progress)
    return COMPLETED if campaign.status == CampaignStatus.CLOSED and done else campaign.get_status_display()


def progress_of(campaign: CampaignWithProgress) -> CampaignProgress:
    """Progress and cost from our database only: a fee the marketplace has not told us yet is left out
    (`fees_known`), never asked for on a page view."""
    provider = get_provider(campaign.provider)
    fees_known = provider.fees_known(campaign)
    per_assignment = campaign.reward + (money(provider.assignment_fee(campaign)) if fees_known else Decimal("0"))
    payable = campaign.answered - campaign.rejected  # submitted work is owed unless rejected
    bonus_total = Decimal(campaign.bonus_total)
    bonus_fees = money(provider.bonus_fee(bonus_total)) if bonus_total and fees_known else Decimal("0")
    return CampaignProgress(
        required=campaign.required,
        answered=campaign.answered,
        pending_review=campaign.pending_review,
        approved=campaign.approved,
        rejected=campaign.rejected,
        in_progress=campaign.in_progress,
        cost_so_far=money(per_assignment * payable + bonus_total + bonus_fees),
        max_cost=money(per_assignment * campaign.required),
        fees_known=fees_known,
        status_label=_status_label(campaign),
    )


def campaign_assignments(campaign: Campaign, status: str | None = None) -> QuerySet[Assignment]:
    """The campaign's confirmed assignments (unconfirmed marketplace arrivals are not reviewable)."""
    queryset = Assignment.objects.filter(hit__campaign=campaign, confirmed=True).select_related("worker", "hit")
    if status:
        queryset = queryset.filter(status=status)
    return queryset.order_by("-submitted_at", "-id")


FOR_PAGE: CompiledQuery[Assignment] = CompiledQuery(
    lambda pk: Assignment.objects.select_related("hit__campaign", "worker").filter(pk=pk))


def assignment_for_page(assignment_id: int) -> Assignment | None:
    """The task page's assignment with its HIT, campaign and worker (one query, compiled once per thread)."""
    return FOR_PAGE.first(assignment_id)


def campaign_by_name_or_id(name_or_id: str) -> Campaign | None:
    campaign = Campaign.objects.filter(name=name_or_id).first()
    if campaign is None and name_or_id.isdigit():
        campaign = Campaign.objects.filter(pk=int(name_or_id)).first()
    return campaign


@dataclass(frozen=True)
class CrowdStatistics:
    """How a campaign's crowd worked: for the dataset card and the crowd report."""

    campaign: str
    task_kind: str
    provider: str
    reward: str
    assignments_per_hit: int
    workers: int
    answered: int
    approved: int
    rejected: int
    approval_rate: float | None  # approved / decided
    assignments_per_worker_mean: float | None
    assignments_per_worker_max: int
    median_seconds_on_task: float | None
    effective_hourly_pay: float | None  # rewards of answered work / hours spent on it (None if simulated)
    cost_so_far: str
    simulated: bool
    # Worker quality (selectors_quality.crowd_quality): measure, overall figures, per (pseudonymised) worker
    # items, gold accuracy, agreement, time on task and pay; status "not computed" when never computed.
    quality: dict[str, Any] = field(default_factory=dict)


def time_and_pay(campaign: Campaign, seconds: list[float]) -> tuple[float | None, float | None]:
    """Median seconds on task and effective hourly pay (rewards of the timed answers / hours spent on them;
    None if simulated: generated results took no one's time) of a campaign's answered work."""
    from statistics import median

    hours = sum(seconds) / 3600
    return (median(seconds) if seconds else None,
            round(float(campaign.reward) * len(seconds) / hours, 2) if hours and not campaign.is_simulated else None)


def crowd_statistics(campaigns: list[Campaign]) -> list[CrowdStatistics]:
    """Per campaign, in six queries plus one per campaign for the answered rows' times. The worker rows of the
    quality section carry each worker's approved, rejected and pay as they are now (the campaign figures beside
    them are counted so too), not as the last quality computation found them."""
    annotated = {c.pk: c for c in campaigns_with_progress().filter(pk__in=[c.pk for c in campaigns])}
    quality = crowd_quality(list(annotated))
    tallies = worker_tallies(list(annotated.values()))
    stats = []
    for campaign in sorted(annotated.values(), key=lambda c: c.name):
        rows = list(
            Assignment.objects.filter(hit__campaign=campaign, status__in=ANSWERED, confirmed=True).values_list(
                "worker_id", "time_on_task"
            )
        )
        per_worker: dict[int, int] = {}
        for worker, _ in rows:
            per_worker[worker] = per_worker.get(worker, 0) + 1
        seconds = [t.total_seconds() for _, t in rows if t is not None]
        median_seconds, hourly_pay = time_and_pay(campaign, seconds)
        decided = campaign.approved + campaign.rejected
        stats.append(CrowdStatistics(
            campaign=campaign.name, task_kind=campaign.task_kind, provider=campaign.provider,
            reward=str(campaign.reward), assignments_per_hit=campaign.assignments_per_hit,
            workers=len(per_worker), answered=campaign.answered, approved=campaign.approved,
            rejected=campaign.rejected, approval_rate=(campaign.approved / decided) if decided else None,
            assignments_per_worker_mean=(len(rows) / len(per_worker)) if per_worker else None,
            assignments_per_worker_max=max(per_worker.values(), default=0),
            median_seconds_on_task=median_seconds,
            effective_hourly_pay=hourly_pay,
            cost_so_far=str(progress_of(campaign).cost_so_far),
            simulated=campaign.is_simulated,
            quality=with_current_decisions(quality[campaign.pk], tallies[campaign.pk]),
        ))
    return stats


def stage_chain(campaign: Campaign) -> list[tuple[Campaign, CampaignProgress]]:
    """Every campaign of the campaign's stage chain (from the first stage down, breadth first), each
    with its progress. A few queries whatever the chain's length: one per chain level."""
    root = campaign
    seen = {root.pk}
    while root.source_stage_id and root.source_stage_id not in seen:
        seen.add(root.source_stage_id)
        root = Campaign.objects.only("pk", "source_stage_id").get(pk=root.source_stage_id)
    order, level = [root.pk], [root.pk]
    while level:
        children = Campaign.objects.filter(source_stage_id__in=level).order_by("pk").values_list("pk", flat=True)
        level = [pk for pk in children if pk not in order]
        order += level
    if len(order) == 1:
        return []
    annotated = campaigns_with_progress().in_bulk(order)
    return [(annotated[pk], progress_of(annotated[pk])) for pk in order]
