"""Each worker's answers, decisions and pay per campaign as they stand now: what the dataset card's worker table
shows beside the stored quality scores (which are a snapshot of the last quality computation, taken perhaps before
the review)."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db.models import Count, Q, Sum

from ..models import Assignment, Bonus, Campaign
from ..states import ANSWERED, AssignmentStatus
from .quality import worker_pseudonym


@dataclass
class WorkerTally:
    """One worker in one campaign: confirmed answers, approved and rejected ones, and pay (rewards of the approved
    answers plus bonuses granted, fees excluded), as the campaign table counts them."""

    worker: str  # the pseudonym (selectors_quality.worker_pseudonym)
    answered: int = 0
    approved: int = 0
    rejected: int = 0
    pay: Decimal = Decimal("0")


def worker_tallies(campaigns: list[Campaign]) -> dict[int, dict[int, WorkerTally]]:
    """Campaign pk -> worker pk -> its tally, for every worker with a confirmed answer (two queries)."""
    rewards = {c.pk: c.reward for c in campaigns}
    tallies: dict[int, dict[int, WorkerTally]] = {pk: {} for pk in rewards}
    rows = (Assignment.objects.filter(hit__campaign__in=list(rewards), confirmed=True, status__in=ANSWERED)
            .values("hit__campaign_id", "worker_id", "worker__provider", "worker__external_id").order_by()
            .annotate(answered=Count("pk"), approved=Count("pk", filter=Q(status=AssignmentStatus.APPROVED)),
                      rejected=Count("pk", filter=Q(status=AssignmentStatus.REJECTED))))
    for row in rows:
        campaign = row["hit__campaign_id"]
        tallies[campaign][row["worker_id"]] = WorkerTally(
            worker_pseudonym(row["worker__provider"], row["worker__external_id"]), row["answered"], row["approved"],
            row["rejected"], rewards[campaign] * row["approved"])
    bonuses = (Bonus.objects.filter(assignment__hit__campaign__in=list(rewards))
               .values("assignment__hit__campaign_id", "assignment__worker_id").order_by()
               .annotate(total=Sum("amount")))
    for row in bonuses:
        tally = tallies[row["assignment__hit__campaign_id"]].get(row["assignment__worker_id"])
        if tally is not None:
            tally.pay += row["total"] or Decimal("0")
    return tallies


UNSCORED = {"items": None, "compared_items": None, "gold_items": None, "gold_accuracy": None, "agreement": None,
            "skill": None, "median_seconds": None}


def with_current_decisions(quality: dict[str, Any], tallies: dict[int, WorkerTally]) -> dict[str, Any]:
    """The quality section with every worker who answered (the scored ones first, in their order; a worker who
    answered after the last computation has no scores) and each worker's approved, rejected and pay as they are
    now, in place of the snapshot's. A quality never computed is left as it is (no worker table)."""
    if quality.get("status") != "computed":
        return quality
    current = {tally.worker: tally for tally in tallies.values()}
    rows = [row for row in quality.get("workers") or [] if row["worker"] in current]
    scored = {row["worker"] for row in rows}
    rows += [{"worker": name, **UNSCORED} for name in sorted(current) if name not in scored]
    workers = [{**row, "answered": current[row["worker"]].answered, "approved": current[row["worker"]].approved,
                "rejected": current[row["worker"]].rejected, "pay": f"{current[row['worker']].pay:.2f}"}
               for row in rows]
    return {**quality, "workers": workers}
