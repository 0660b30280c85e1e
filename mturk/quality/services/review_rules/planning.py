"""Review rules: the plan (dry run) of what applying a campaign's rule would do, from the stored WorkerScores."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from ....models import Assignment, Campaign, CampaignQuality, QualityDecision, QualityRule, WorkerScore
from ....models.quality import DecisionAction, DecisionState
from ....providers.base import ProviderError, money
from ....providers.registry import get_provider
from ....services.campaigns import committed_spend
from ....states import AssignmentStatus


@dataclass(frozen=True)
class PlannedDecision:
    key: str  # QualityDecision.key: approve:<assignment>, reject:<assignment>, bonus:<campaign>:<worker>
    action: str  # approve, reject, bonus (and "leave" in RulePlan.leaves)
    worker_id: int
    worker: str  # the worker's external id
    assignment_id: int | None
    message: str  # feedback or bonus reason
    amount: Decimal | None  # bonus amount
    evidence: dict[str, Any]  # gold_accuracy, gold_items, agreement, compared_items, skill, rank...


@dataclass
class RulePlan:
    decisions: list[PlannedDecision]
    approve: int
    reject: int
    bonus: int
    left: int  # submitted assignments the rule leaves to a person
    cost: Decimal  # what applying it would pay out (rewards of approvals and bonuses, fees included)
    problems: list[str] = field(default_factory=list)  # why the rule cannot be applied as it stands, if so
    # The submitted assignments left to a person, each with why (evidence["why"]); action "leave", never applied.
    leaves: list[PlannedDecision] = field(default_factory=list)
    computed_at: datetime | None = None  # when the scores the plan reads were computed (None: never)


def _fmt(value: float | None) -> str:
    return "none" if value is None else f"{value:.2f}"


def _evidence(score: WorkerScore) -> dict[str, Any]:
    return {"gold_accuracy": score.gold_accuracy, "gold_items": score.gold_items, "agreement": score.agreement,
            "compared_items": score.compared_items, "skill": score.skill, "items": score.items,
            "computed_at": score.computed_at.isoformat() if score.computed_at else None}


def verdict(rule: QualityRule, score: WorkerScore | None) -> tuple[str, list[str]]:
    """("approve" | "reject" | "leave", why) for a worker's measured quality."""
    if score is None:
        return "leave", ["not measured yet"]
    # None: the figure does not count (not measured, or on too few items for the rule)
    gold = score.gold_accuracy if score.gold_items >= rule.min_gold_items else None
    agreement = score.agreement if score.compared_items >= rule.min_items else None
    broken = []
    if rule.reject_below_gold is not None and gold is not None and gold < rule.reject_below_gold:
        broken.append(f"gold accuracy {_fmt(gold)} < {rule.reject_below_gold:g}")
    if rule.reject_below_agreement is not None and agreement is not None and agreement < rule.reject_below_agreement:
        broken.append(f"agreement {_fmt(agreement)} < {rule.reject_below_agreement:g}")
    if broken:
        return "reject", broken
    held, unmet = [], []
    if rule.approve_min_gold is not None:
        if gold is None:
            unmet.append(f"{score.gold_items} scored gold item(s), the rule needs {rule.min_gold_items}")
        elif gold >= rule.approve_min_gold:
            held.append(f"gold accuracy {_fmt(gold)} >= {rule.approve_min_gold:g}")
        else:
            unmet.append(f"gold accuracy {_fmt(gold)} < {rule.approve_min_gold:g}")
    if rule.approve_min_agreement is not None:
        if agreement is None:
            unmet.append(f"{score.compared_items} compared item(s), the rule needs {rule.min_items}")
        elif agreement >= rule.approve_min_agreement:
            held.append(f"agreement {_fmt(agreement)} >= {rule.approve_min_agreement:g}")
        else:
            unmet.append(f"agreement {_fmt(agreement)} < {rule.approve_min_agreement:g}")
    if held and not unmet:
        return "approve", held
    return "leave", unmet or ["the rule sets no approve bound"]


def _rank_key(score: WorkerScore) -> tuple[bool, float, bool, float, int]:
    return (score.gold_accuracy is None, -(score.gold_accuracy or 0.0), score.agreement is None,
            -(score.agreement or 0.0), score.worker_id)


def bonus_key(campaign: Campaign, worker_id: int) -> str:
    return f"bonus:{campaign.pk}:{worker_id}"


def _empty(problem: str, computed_at: datetime | None = None) -> RulePlan:
    return RulePlan([], 0, 0, 0, 0, Decimal("0"), [problem], computed_at=computed_at)


def plan_rule(campaign: Campaign, *, ask_marketplace: bool = False) -> RulePlan:
    """What applying the rule now would do, from the stored WorkerScores (nothing is changed).

    A preview never asks the marketplace (its fees, when not known yet, are left out of the cost and said so);
    applying does (`ask_marketplace`)."""
    rule = QualityRule.objects.filter(campaign=campaign).first()
    summary = CampaignQuality.objects.filter(campaign=campaign).only("computed_at").first()
    computed_at = summary.computed_at if summary else None
    if rule is None:
        return _empty("This campaign has no review rule.", computed_at)
    problems: list[str] = []
    if summary is None:
        problems.append("Quality has not been computed yet: every worker is left to a person until it is "
                        "(applying the rule computes it first).")
    scores = {s.worker_id: s for s in WorkerScore.objects.filter(campaign=campaign).select_related("worker")}
    rows = (Assignment.objects
            .filter(hit__campaign=campaign, confirmed=True,
                    status__in=(AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED))
            .order_by("submitted_at", "pk")
            .values_list("pk", "worker_id", "worker__external_id", "status"))
    can_reject = True
    if rule.reject_below_gold is not None or rule.reject_below_agreement is not None:
        try:
            get_provider(campaign.provider).check_rejection(rule.reject_message, rule.reject_category)
        except ProviderError as exc:
            can_reject = False
            problems.append(f"The rule's rejection would be refused by the marketplace ({exc}): nothing is "
                            "rejected until the rule is saved again with a valid message.")
    verdicts: dict[int, tuple[str, list[str]]] = {}
    latest: dict[int, int] = {}  # worker -> their latest approved or to-be-approved assignment
    decisions: list[PlannedDecision] = []
    leaves: list[PlannedDecision] = []
    rejected_workers: set[int] = set()
    for pk, worker_id, external_id, status in rows:
        if worker_id not in verdicts:
            verdicts[worker_id] = verdict(rule, scores.get(worker_id))
        action, why = verdicts[worker_id]
        if status == AssignmentStatus.APPROVED:
            latest[worker_id] = pk
            continue
        score = scores.get(worker_id)
        evidence = {**(_evidence(score) if score else {}), "why": why}
        if action == "reject" and not can_reject:
            action, evidence["why"] = "leave", [*why, "the rule's rejection message is refused by the marketplace"]
        if action == "leave":
            leaves.append(PlannedDecision(f"leave:{pk}", "leave", worker_id, external_id, pk, "", None, evidence))
            continue
        if action == DecisionAction.APPROVE:
            latest[worker_id] = pk
        else:
            rejected_workers.add(worker_id)
        message = rule.reject_message if action == DecisionAction.REJECT else ""
        decisions.append(PlannedDecision(f"{action}:{pk}", action, worker_id, external_id, pk, message, None,
                                         evidence))
    bonuses = _plan_bonuses(campaign, rule, scores, latest, rejected_workers)
    return _costed(campaign, decisions, bonuses, leaves, problems, computed_at, ask_marketplace)


def _plan_bonuses(campaign: Campaign, rule: QualityRule, scores: dict[int, WorkerScore], latest: dict[int, int],
                  rejected_workers: set[int]) -> list[PlannedDecision]:
    if not rule.bonus_top_share or rule.bonus_amount is None:
        return []
    ranked = sorted((scores[w] for w in latest
                     if w in scores and w not in rejected_workers
                     and (scores[w].gold_accuracy is not None or scores[w].agreement is not None)), key=_rank_key)
    top = math.ceil(rule.bonus_top_share * len(ranked) - 1e-9)  # rounded up: one when anyone is eligible
    done = set(QualityDecision.objects.filter(campaign=campaign, action=DecisionAction.BONUS,
                                              state=DecisionState.DONE).values_list("worker_id", flat=True))
    bonuses = []
    for rank, score in enumerate(ranked[:top], start=1):
        if score.worker_id in done:
            continue
        evidence = {**_evidence(score), "rank": rank, "ranked": len(ranked), "top": top,
                    "why": [f"rank {rank} of {len(ranked)} by gold accuracy then agreement (top {top})"]}
        bonuses.append(PlannedDecision(bonus_key(campaign, score.worker_id), DecisionAction.BONUS, score.worker_id,
                                       score.worker.external_id, latest[score.worker_id], rule.bonus_reason,
                                       rule.bonus_amount, evidence))
    return bonuses


def _costed(campaign: Campaign, decisions: list[PlannedDecision], bonuses: list[PlannedDecision],
            leaves: list[PlannedDecision], problems: list[str], computed_at: datetime | None,
            ask_marketplace: bool) -> RulePlan:
    """The plan with its cost; bonuses that would cross the campaign's budget cap are left out (a problem says so)."""
    provider = get_provider(campaign.provider)
    approvals = sum(d.action == DecisionAction.APPROVE for d in decisions)
    if not ask_marketplace and not provider.fees_known(campaign):
        problems.append("The marketplace's fees are not known yet: the cost leaves them out, and the budget cap is "
                        "checked when the rule is applied.")
        approval_cost = campaign.reward * approvals
        bonus_cost = sum((d.amount for d in bonuses if d.amount), Decimal("0"))
        return _plan(decisions + bonuses, approvals, len(bonuses), leaves, approval_cost + bonus_cost, problems,
                     computed_at)
    try:
        approval_cost = (campaign.reward + money(provider.assignment_fee(campaign))) * approvals
        bonus_cost = sum((d.amount + provider.bonus_fee(d.amount) for d in bonuses if d.amount), Decimal("0"))
        spent = committed_spend(campaign, provider) if campaign.budget_cap is not None and bonuses else Decimal("0")
    except ProviderError as exc:
        problems.append(f"The marketplace's fees could not be learnt ({exc}): no cost or budget check possible, "
                        "so no bonus is planned.")
        approval_cost, bonus_cost, bonuses = campaign.reward * approvals, Decimal("0"), []
    else:
        if campaign.budget_cap is not None and bonuses and spent + bonus_cost > campaign.budget_cap:
            problems.append(f"The {len(bonuses)} bonus(es) (${bonus_cost} with fees) would bring the campaign to "
                            f"${spent + bonus_cost}, over its budget cap of ${campaign.budget_cap}: no bonus is "
                            "paid until the cap is raised or the bonus made smaller.")
            bonus_cost, bonuses = Decimal("0"), []
    return _plan(decisions + bonuses, approvals, len(bonuses), leaves, approval_cost + bonus_cost, problems,
                 computed_at)


def _plan(decisions: list[PlannedDecision], approvals: int, bonuses: int, leaves: list[PlannedDecision],
          cost: Decimal, problems: list[str], computed_at: datetime | None) -> RulePlan:
    return RulePlan(
        decisions=decisions, approve=approvals, reject=sum(d.action == DecisionAction.REJECT for d in decisions),
        bonus=bonuses, left=len(leaves), cost=money(cost), problems=problems, leaves=leaves,
        computed_at=computed_at,
    )
