"""Measure a campaign's work: gold accuracy and agreement per worker, agreement and aggregated answer per item.

One pass over the campaign's answered, confirmed assignments (values() rows read in chunks, no model
instances): real HITs become `mturk.measures.Unit`s measured by the kind's KindQuality in one call; gold and
onboarding HITs count for gold accuracy only. Rejected answers are measured with the others (their agreement shows
why they were rejected) but an item's aggregated answer and its agreement come from the answers not rejected (a
second measure of those items, only when there are rejected answers). The figures are stored in a few bulk
statements, replacing the earlier ones."""
from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.db import connection, transaction
from django.db.models import Count, Sum
from django.utils import timezone

from ...measures import Answer, Measurement, Unit, get_quality, has_quality
from ...models import (
    Assignment,
    Bonus,
    Campaign,
    CampaignQuality,
    ItemAggregate,
    WorkerScore,
)
from ...states import AssignmentStatus
from ...task_kinds import get_task_kind

# Answers that count: work a worker handed in, decided or not.
ANSWERED = (AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED, AssignmentStatus.REJECTED)
NO_MEASURE = "no agreement measure for this kind"
REJECTED = AssignmentStatus.REJECTED
_CHUNK = 2000
_BATCH = 1000


@dataclass(frozen=True)
class QualityComputation:
    measure: str
    answers: int
    items: int
    workers: int
    aggregated: int


@dataclass
class _WorkerTally:
    items: int = 0
    compared_items: int = 0
    gold_scores: list[float] = field(default_factory=list)
    agreements: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    approved: int = 0
    rejected: int = 0


def answered_rows(campaign: Campaign) -> Any:
    """The campaign's answered, confirmed assignments as plain rows, HIT by HIT."""
    return (Assignment.objects
            .filter(hit__campaign=campaign, confirmed=True, status__in=ANSWERED, answer__isnull=False)
            .order_by("hit_id", "pk")
            .values_list("pk", "worker_id", "hit_id", "status", "answer", "gold_score", "agreement", "time_on_task",
                         "hit__items", "hit__gold_item_id", "hit__onboarding")
            .iterator(chunk_size=_CHUNK))


def _measure(campaign: Campaign, units: list[Unit]) -> Measurement:
    if not has_quality(campaign.task_kind):
        return Measurement(measure=NO_MEASURE, item_agreement={}, answer_agreement={})
    options = get_task_kind(campaign.task_kind).options(campaign)
    return get_quality(campaign.task_kind).measure(options, units)


def compute_quality(campaign: Campaign) -> QualityComputation:
    """Compute and store WorkerScore, ItemAggregate, Assignment.agreement and CampaignQuality for a campaign
    (idempotent; re-running replaces the figures)."""
    tallies: dict[int, _WorkerTally] = defaultdict(_WorkerTally)
    units: list[Unit] = []
    stored_agreement: dict[int, float | None] = {}  # assignment id -> its agreement as stored now
    answer_worker: dict[int, int] = {}
    statuses: dict[int, str] = {}
    answers = 0
    unit_hit: int | None = None
    unit_items: dict[str, Any] = {}
    unit_answers: list[Answer] = []

    def close_unit() -> None:
        if unit_hit is not None and unit_answers:
            units.append(Unit(hit=unit_hit, items=unit_items, answers=list(unit_answers)))

    for (pk, worker_id, hit_id, status, answer, gold_score, agreement, time_on_task, items, gold_item_id,
         onboarding) in answered_rows(campaign):
        answers += 1
        tally = tallies[worker_id]
        if gold_score is not None:
            tally.gold_scores.append(gold_score)
        if isinstance(time_on_task, timedelta):
            tally.seconds.append(time_on_task.total_seconds())
        tally.approved += status == AssignmentStatus.APPROVED
        tally.rejected += status == AssignmentStatus.REJECTED
        stored_agreement[pk] = agreement
        if gold_item_id is not None or onboarding or not isinstance(answer, dict):
            continue  # gold and onboarding HITs: gold accuracy only, never compared
        tally.items += 1
        answer_worker[pk] = worker_id
        statuses[pk] = status
        if hit_id != unit_hit:
            close_unit()
            unit_hit, unit_items, unit_answers = hit_id, items, []
        unit_answers.append(Answer(assignment=pk, worker=worker_id, answer=answer))
    close_unit()

    for unit in units:
        if len({a.worker for a in unit.answers}) > 1:
            for answer_row in unit.answers:
                tallies[answer_row.worker].compared_items += 1

    measurement = _finite(_measure(campaign, units))
    rejected = {a.assignment for unit in units for a in unit.answers if statuses[a.assignment] == REJECTED}
    aggregated_units = units
    if rejected:  # a rejected answer is measured (it shows why) but has no say in an item's aggregated answer
        aggregated_units = [Unit(hit=u.hit, items=u.items, answers=kept) for u in units
                            if (kept := [a for a in u.answers if a.assignment not in rejected])]
        kept_measurement = _finite(_measure(campaign, aggregated_units))
        measurement.aggregates, measurement.item_agreement = (kept_measurement.aggregates,
                                                              kept_measurement.item_agreement)
    for assignment_id, value in measurement.answer_agreement.items():
        worker_id = answer_worker.get(assignment_id)
        if worker_id is not None and value is not None:
            tallies[worker_id].agreements.append(value)

    pay = _pay(campaign)
    with transaction.atomic():
        started = timezone.now()  # rows stored now are computed at or after it; older ones are gone figures
        _store_answer_agreement(stored_agreement, measurement.answer_agreement)
        aggregated = _store_aggregates(campaign, aggregated_units, measurement, started)
        _store_worker_scores(campaign, tallies, measurement, pay, started)
        CampaignQuality.objects.update_or_create(
            campaign=campaign,
            defaults={"measure": measurement.measure, "overall": _json_numbers(measurement.overall),
                      "answers": answers},
        )
    return QualityComputation(measure=measurement.measure, answers=answers, items=len(units),
                              workers=len(tallies), aggregated=aggregated)


def _pay(campaign: Campaign) -> dict[int, Decimal]:
    """Per worker: rewards of approved work plus bonuses paid or planned (fees excluded), in two queries."""
    pay: dict[int, Decimal] = defaultdict(Decimal)
    approved = (Assignment.objects.filter(hit__campaign=campaign, confirmed=True, status=AssignmentStatus.APPROVED)
                .values("worker_id").annotate(n=Count("pk")).values_list("worker_id", "n"))
    for worker_id, count in approved:
        pay[worker_id] += campaign.reward * count
    bonuses = (Bonus.objects.filter(assignment__hit__campaign=campaign)
               .values("assignment__worker_id").annotate(total=Sum("amount"))
               .values_list("assignment__worker_id", "total"))
    for worker_id, total in bonuses:
        pay[worker_id] += total or Decimal("0")
    return pay


def _store_answer_agreement(stored: dict[int, float | None], measured: dict[int, float]) -> None:
    """Assignment.agreement of every answer, written only where it changed (None where no longer measured).

    One UPDATE ... FROM (VALUES ...) per 1,000 answers (PostgreSQL, and SQLite from 3.33): Django's bulk_update
    builds a CASE per row, which took most of a first computation's time on 50,000 answers."""
    changed = [(pk, measured.get(pk)) for pk, before in stored.items() if measured.get(pk) != before]
    if not changed:
        return
    quote = connection.ops.quote_name
    table, key, column = quote(Assignment._meta.db_table), quote("id"), quote("agreement")
    with connection.cursor() as cursor:
        for start in range(0, len(changed), _BATCH):
            batch = changed[start:start + _BATCH]
            values = ", ".join(["(%s, CAST(%s AS double precision))"] * len(batch))
            cursor.execute(
                f"UPDATE {table} SET {column} = v.column2 FROM (VALUES {values}) AS v "  # noqa: S608 (names quoted)
                f"WHERE {table}.{key} = v.column1",
                [value for row in batch for value in row],
            )


def _store_aggregates(campaign: Campaign, units: list[Unit], measurement: Measurement, started: datetime) -> int:
    rows = []
    for unit in units:
        aggregate = measurement.aggregates.get(unit.hit)
        if aggregate is None:
            continue
        rows.append(ItemAggregate(hit_id=unit.hit, method=aggregate.method[:200], answer=aggregate.answer,
                                  support=aggregate.support, agreement=measurement.item_agreement.get(unit.hit),
                                  details=aggregate.details))
    ItemAggregate.objects.bulk_create(
        rows, batch_size=_BATCH, update_conflicts=True, unique_fields=["hit"],
        update_fields=["method", "answer", "support", "agreement", "details", "computed_at"],
    )
    ItemAggregate.objects.filter(hit__campaign=campaign, computed_at__lt=started).delete()  # no longer aggregated
    return len(rows)


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _store_worker_scores(campaign: Campaign, tallies: dict[int, _WorkerTally], measurement: Measurement,
                         pay: dict[int, Decimal], started: datetime) -> None:
    rows = [
        WorkerScore(
            campaign=campaign, worker_id=worker_id, items=tally.items, compared_items=tally.compared_items,
            gold_items=len(tally.gold_scores), gold_accuracy=_mean(tally.gold_scores),
            agreement=_mean(tally.agreements), skill=measurement.worker_skill.get(worker_id),
            median_seconds=statistics.median(tally.seconds) if tally.seconds else None,
            approved=tally.approved, rejected=tally.rejected, pay=pay.get(worker_id, Decimal("0")),
        )
        for worker_id, tally in sorted(tallies.items())
    ]
    WorkerScore.objects.bulk_create(
        rows, batch_size=_BATCH, update_conflicts=True, unique_fields=["campaign", "worker"],
        update_fields=["items", "compared_items", "gold_items", "gold_accuracy", "agreement", "skill",
                       "median_seconds", "approved", "rejected", "pay", "computed_at"],
    )
    WorkerScore.objects.filter(campaign=campaign, computed_at__lt=started).delete()  # workers without answers now


def _finite(measurement: Measurement) -> Measurement:
    """The measurement without NaN figures (a measure undefined on some answers): they are stored as None."""
    def keep(values: dict[int, Any]) -> dict[int, Any]:
        return {key: value for key, value in values.items() if value is None or math.isfinite(value)}

    measurement.answer_agreement = keep(measurement.answer_agreement)
    measurement.item_agreement = {key: value if value is None or math.isfinite(value) else None
                                  for key, value in measurement.item_agreement.items()}
    measurement.worker_skill = keep(measurement.worker_skill)
    return measurement


def _json_numbers(overall: dict[str, Any]) -> dict[str, Any]:
    """Campaign-wide figures as JSON (NaN, which JSON has no word for, becomes None)."""
    return {key: (None if isinstance(value, float) and not math.isfinite(value) else value)
            for key, value in overall.items()}
