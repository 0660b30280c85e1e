"""Reads of measured quality: a campaign's workers and items, a worker across campaigns and kinds, the rule's
audit, the gold items with their use.

Every function reads a constant number of queries, whatever the campaign's size."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Avg, Count, F, Q, QuerySet

from ..models import (
    HIT,
    Assignment,
    Campaign,
    CampaignQuality,
    GoldItem,
    ItemAggregate,
    QualityDecision,
    QualityJob,
    QualityRule,
    Worker,
    WorkerScore,
)
from ..task_kinds import UnknownTaskKind, get_task_kind


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


def worker_scores(campaign: Campaign) -> list[WorkerScore]:
    """The campaign's WorkerScores with .worker loaded, best gold accuracy then agreement first (unmeasured
    last), in one query."""
    return list(
        WorkerScore.objects.filter(campaign=campaign).select_related("worker")
        .order_by(F("gold_accuracy").desc(nulls_last=True), F("agreement").desc(nulls_last=True), "worker_id")
    )


WORKER_SORTS = ("gold_accuracy", "agreement", "items")


def sorted_worker_scores(campaign: Campaign, sort: str = "gold_accuracy",
                         descending: bool = True) -> QuerySet[WorkerScore]:
    """The campaign's WorkerScores with .worker loaded, by one column (WORKER_SORTS), a worker without a value last
    either way, ties by worker id: sorted and paged by the database."""
    if sort not in WORKER_SORTS:
        raise ValueError(f"unknown sort {sort!r} (one of {', '.join(WORKER_SORTS)})")
    column = F(sort).desc(nulls_last=True) if descending else F(sort).asc(nulls_last=True)
    return WorkerScore.objects.filter(campaign=campaign).select_related("worker").order_by(column, "worker_id")


def campaign_quality(campaign: Campaign, *, with_workers: bool = True) -> CampaignQualityView:
    """The campaign's quality summary, rule and workers (four queries; three without the workers, for a page that
    reads them sorted and paged: sorted_worker_scores)."""
    summary = CampaignQuality.objects.filter(campaign=campaign).first()
    rule = QualityRule.objects.filter(campaign=campaign).first()
    counts = HIT.objects.filter(campaign=campaign).aggregate(
        gold=Count("pk", filter=Q(gold_item__isnull=False, onboarding=False)),
        onboarding=Count("pk", filter=Q(onboarding=True)),
    )
    gold_answers = Assignment.objects.filter(
        hit__campaign=campaign, confirmed=True, gold_score__isnull=False,
    ).filter(Q(hit__gold_item__isnull=False) | Q(hit__onboarding=True)).count()
    return CampaignQualityView(
        campaign=campaign, summary=summary, rule=rule, workers=worker_scores(campaign) if with_workers else [],
        gold_hits=counts["gold"] or 0, onboarding_hits=counts["onboarding"] or 0, gold_answers=gold_answers,
    )


def _summary(task_kind: str, answer: dict[str, Any] | None) -> str:
    try:
        return get_task_kind(task_kind).summary(answer)
    except UnknownTaskKind:
        return "" if answer is None else str(answer)


def item_rows(campaign: Campaign, page: int = 1, per_page: int = 50) -> Page:
    """A page of the campaign's aggregated items (ItemRow), lowest agreement first (the adjudication queue)."""
    aggregates = (ItemAggregate.objects.filter(hit__campaign=campaign)
                  .order_by(F("agreement").asc(nulls_last=True), "hit__position", "hit_id")
                  .values_list("hit_id", "hit__position", "support", "agreement", "method", "answer", "details"))
    paginated = Paginator(aggregates, per_page).get_page(page)
    rows: list[Any] = [
        ItemRow(hit_id=hit_id, position=position, answers=support, agreement=agreement, method=method,
                summary=_summary(campaign.task_kind, answer), details=details or {})
        for hit_id, position, support, agreement, method, answer, details in paginated.object_list
    ]
    paginated.object_list = rows
    return paginated


def worker_quality(worker: Worker) -> list[WorkerScore]:
    """The worker's scores in every campaign, with .campaign loaded, newest campaign first."""
    return list(WorkerScore.objects.filter(worker=worker).select_related("campaign", "worker")
                .order_by("-campaign__created_at", "-campaign_id"))


def decisions(campaign: Campaign, page: int = 1, per_page: int = 50) -> Page:
    """A page of the campaign's QualityDecisions (audit), newest first, with worker and assignment loaded."""
    rows = (QualityDecision.objects.filter(campaign=campaign).select_related("worker", "assignment")
            .order_by("-created_at", "-id"))
    return Paginator(rows, per_page).get_page(page)


NOT_COMPUTED = "not computed"


def worker_pseudonym(provider: str, external_id: str) -> str:
    """A worker's id in the crowd report: a keyed hash of the provider's id (15 letters and digits), the same in
    every export of this installation and never the marketplace's own id."""
    import base64
    import hashlib
    import hmac

    from django.conf import settings

    key = hashlib.sha256(("crowd-worker-id:" + settings.SECRET_KEY).encode()).digest()
    mac = hmac.new(key, f"{provider}:{external_id}".encode(), hashlib.sha256).digest()
    return base64.b32encode(mac).decode()[:15]


def _money(value: Any) -> str:
    return str(value)


def crowd_quality(campaign_ids: list[int]) -> dict[int, dict[str, Any]]:
    """The quality section of the crowd report per campaign id (two queries for any number of campaigns): the
    measure, campaign-wide figures and per worker (pseudonymised) items, gold accuracy, agreement, skill, time
    on task and pay; "not computed" for a campaign whose quality was never computed."""
    summaries = {q.campaign_id: q for q in CampaignQuality.objects.filter(campaign_id__in=campaign_ids)}
    workers: dict[int, list[dict[str, Any]]] = {pk: [] for pk in campaign_ids}
    scores = (WorkerScore.objects.filter(campaign_id__in=campaign_ids).select_related("worker")
              .order_by("campaign_id", F("gold_accuracy").desc(nulls_last=True), F("agreement").desc(nulls_last=True),
                        "worker_id"))
    for score in scores:
        workers[score.campaign_id].append({
            "worker": worker_pseudonym(score.worker.provider, score.worker.external_id), "items": score.items,
            "compared_items": score.compared_items, "gold_items": score.gold_items,
            "gold_accuracy": score.gold_accuracy, "agreement": score.agreement, "skill": score.skill,
            "median_seconds": score.median_seconds, "pay": _money(score.pay), "approved": score.approved,
            "rejected": score.rejected,
        })
    report: dict[int, dict[str, Any]] = {}
    for pk in campaign_ids:
        summary = summaries.get(pk)
        if summary is None:
            report[pk] = {"status": NOT_COMPUTED, "measure": None, "overall": {}, "computed_at": None, "workers": []}
            continue
        report[pk] = {"status": "computed", "measure": summary.measure, "overall": summary.overall,
                      "computed_at": summary.computed_at.replace(microsecond=0).isoformat(), "workers": workers[pk]}
    return report


def gold_item_rows(*, task_kind: str = "", purpose: str = "", active: bool | None = None,
                   item: int | None = None) -> QuerySet[GoldItem]:
    """Gold items by kind, purpose and activity (or one item), each with the HITs that use it, the answers scored
    against it and their mean score (one aggregate query per page)."""
    queryset = GoldItem.objects.all()
    if task_kind:
        queryset = queryset.filter(task_kind=task_kind)
    if purpose:
        queryset = queryset.filter(purpose=purpose)
    if active is not None:
        queryset = queryset.filter(active=active)
    if item is not None:
        queryset = queryset.filter(pk=item)
    scored = Q(hits__assignments__gold_score__isnull=False)
    return queryset.annotate(
        hit_count=Count("hits", distinct=True),
        scored=Count("hits__assignments", filter=scored),
        mean_score=Avg("hits__assignments__gold_score", filter=scored),
        source_campaign=F("source_assignment__hit__campaign_id"),
    ).order_by("task_kind", "pk")


def _kind_label(task_kind: str) -> str:
    try:
        return get_task_kind(task_kind).label
    except LookupError:
        return task_kind


@dataclass
class KindTotals:
    """A worker's scores in every campaign of one task kind, added up: gold accuracy weighted by gold items,
    agreement by compared items (a campaign whose answers nobody else did counts once)."""

    task_kind: str
    label: str
    campaigns: int = 0
    items: int = 0
    gold_items: int = 0
    gold_accuracy: float | None = None
    agreement: float | None = None
    approved: int = 0
    rejected: int = 0
    pay: Decimal = Decimal("0")


def _weighted(pairs: list[tuple[float, int]]) -> float | None:
    weight = sum(w for _, w in pairs)
    return sum(value * w for value, w in pairs) / weight if weight else None


def kind_totals(scores: Iterable[WorkerScore]) -> list[KindTotals]:
    """Totals per task kind, in the order the kinds first appear (no query: .campaign is loaded)."""
    totals: dict[str, KindTotals] = {}
    gold: dict[str, list[tuple[float, int]]] = {}
    agreement: dict[str, list[tuple[float, int]]] = {}
    for score in scores:
        kind = score.campaign.task_kind
        row = totals.setdefault(kind, KindTotals(kind, _kind_label(kind)))
        row.campaigns += 1
        row.items += score.items
        row.gold_items += score.gold_items
        row.approved += score.approved
        row.rejected += score.rejected
        row.pay += score.pay
        if score.gold_accuracy is not None and score.gold_items:
            gold.setdefault(kind, []).append((score.gold_accuracy, score.gold_items))
        if score.agreement is not None:
            agreement.setdefault(kind, []).append((score.agreement, score.compared_items or 1))
    for kind, row in totals.items():
        row.gold_accuracy = _weighted(gold.get(kind, []))
        row.agreement = _weighted(agreement.get(kind, []))
    return list(totals.values())


def latest_answers(worker: Worker) -> QuerySet[Assignment]:
    """The worker's submitted answers (confirmed by the marketplace: those the review shows), newest first."""
    return (Assignment.objects.filter(worker=worker, confirmed=True, submitted_at__isnull=False)
            .select_related("hit__campaign").order_by("-submitted_at", "-id"))


def latest_quality_job(campaign: Campaign) -> QualityJob | None:
    """The campaign's latest quality computation asked for (one query)."""
    return QualityJob.objects.filter(campaign=campaign).order_by("-created_at", "-id").first()
