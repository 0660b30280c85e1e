"""Review rules: plan (dry run) and apply a campaign's QualityRule, with an audit of every decision.

A rule decides per worker, from their stored WorkerScore: a worker's submitted work is rejected only when a
reject bound is broken, approved only when every approve bound that is set holds, and left to a person
otherwise. A gold bound counts only once the worker has min_gold_items scored gold answers, an agreement
bound only once min_items of their items were compared with another worker's. The top bonus_top_share of the
workers whose work is (or is about to be) approved get one bonus each per campaign.

Applying stores each decision (QualityDecision, state "planned", unique key) before its marketplace call and
marks it done or failed after: a decision already done is never made twice, and a decision a person made
meanwhile is left as it is."""
from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.forms.models import model_to_dict
from django.utils import timezone

from ..models import Assignment, Campaign, CampaignQuality, QualityDecision, QualityRule, WorkerScore
from ..models_quality import DecisionAction, DecisionState
from ..providers.base import ProviderError, money
from ..providers.registry import get_provider
from ..states import AssignmentStatus
from .campaigns import committed_spend
from .quality import compute_quality
from .review import ReviewError, approve_assignment, grant_bonus, reject_assignment

BOUNDS = ("approve_min_gold", "approve_min_agreement", "reject_below_gold", "reject_below_agreement")
RULE_FIELDS = ("enabled", *BOUNDS, "min_gold_items", "min_items", "reject_message", "reject_category",
               "bonus_top_share", "bonus_amount", "bonus_reason")
SOURCES = ("periodic", "console", "api", "command")
log = logging.getLogger(__name__)


class RuleError(ValueError):
    """A refused rule or rule action; `field` names the rule field at fault (None: the rule as a whole)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


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


@dataclass
class RuleResult:
    done: int
    failed: dict[str, str]  # decision key -> why
    skipped: int  # decided already (by a person or an earlier run)


# ---- saving ----------------------------------------------------------------------------------------------------

_TRUE = {"true", "1", "on", "yes"}
_FALSE = {"false", "0", "off", "no", ""}


def _flag(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise RuleError("must be true or false.", name)


def _bound(name: str, value: Any, low: float, high: float) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise RuleError(f"must be a number from {low:g} to {high:g}.", name)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise RuleError(f"must be a number from {low:g} to {high:g}.", name) from None
    if not low <= number <= high:  # NaN fails too
        raise RuleError(f"must be a number from {low:g} to {high:g} (got {value}).", name)
    return number


def _count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise RuleError("must be a whole number of at least 1.", name)
    try:
        number = int(value)
    except ValueError:
        raise RuleError("must be a whole number of at least 1.", name) from None
    if not 1 <= number <= 32767:
        raise RuleError(f"must be a whole number from 1 to 32767 (got {value}).", name)
    return number


def _amount(name: str, value: Any) -> Decimal | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise RuleError("must be an amount such as 0.50.", name)
    try:
        amount = Decimal(str(value).strip())
    except InvalidOperation:
        raise RuleError("must be an amount such as 0.50.", name) from None
    if not amount.is_finite() or amount < Decimal("0.01") or amount >= Decimal("1000000"):
        raise RuleError(f"must be at least 0.01 and below 1,000,000 (got {value}).", name)
    if amount != amount.quantize(Decimal("0.01")):
        raise RuleError(f"must be in cents, at most 2 decimals (got {value}).", name)
    return amount


def _text(name: str, value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RuleError("must be a text.", name)
    return value.strip()


def _apply_data(rule: QualityRule, data: dict[str, Any]) -> None:
    unknown = sorted(set(data) - set(RULE_FIELDS))
    if unknown:
        raise RuleError(f"unknown rule field(s): {', '.join(unknown)} (known: {', '.join(RULE_FIELDS)}).",
                        unknown[0])
    for name, value in data.items():
        if name == "enabled":
            rule.enabled = _flag(name, value)
        elif name in ("approve_min_agreement", "reject_below_agreement"):
            setattr(rule, name, _bound(name, value, -1.0, 1.0))
        elif name in BOUNDS or name == "bonus_top_share":
            setattr(rule, name, _bound(name, value, 0.0, 1.0))
        elif name in ("min_gold_items", "min_items"):
            setattr(rule, name, _count(name, value))
        elif name == "bonus_amount":
            rule.bonus_amount = _amount(name, value)
        elif name == "reject_category":
            rule.reject_category = _text(name, value).upper()
        else:  # reject_message, bonus_reason
            setattr(rule, name, _text(name, value))


def check_rule(rule: QualityRule) -> None:
    """Refuse (RuleError naming the field) a rule that could not be applied as it stands."""
    campaign = rule.campaign
    for low, high in (("reject_below_gold", "approve_min_gold"), ("reject_below_agreement", "approve_min_agreement")):
        below, above = getattr(rule, low), getattr(rule, high)
        if below is not None and above is not None and below > above:
            raise RuleError(f"is above {high} ({below:g} > {above:g}): a worker could be approved and rejected "
                            "at once.", low)
    rejects = rule.reject_below_gold is not None or rule.reject_below_agreement is not None
    if rejects:
        if not rule.reject_message:
            raise RuleError("a rule that rejects needs the message the worker is sent.", "reject_message")
        try:
            get_provider(campaign.provider).check_rejection(rule.reject_message, rule.reject_category)
        except ProviderError as exc:
            raise RuleError(str(exc), "reject_category" if "category" in str(exc).lower() else "reject_message") \
                from None
    if rule.bonus_top_share or rule.bonus_amount is not None or rule.bonus_reason:
        if not rule.bonus_top_share:
            raise RuleError("a bonus needs the share of the best workers who get it (e.g. 0.1).", "bonus_top_share")
        if rule.bonus_amount is None:
            raise RuleError("a bonus needs an amount.", "bonus_amount")
        if not rule.bonus_reason:
            raise RuleError("a bonus needs a reason shown to the worker.", "bonus_reason")
    try:
        rule.full_clean(exclude=["campaign", "updated_by"])
    except ValidationError as exc:
        name, messages = next(iter(exc.message_dict.items()))
        raise RuleError(" ".join(messages), name) from None


def save_rule(campaign: Campaign, data: dict[str, Any], user: Any = None) -> QualityRule:
    """Create or update the campaign's rule from form/API data; ValueError names the bad field (a rejection
    message the campaign's marketplace would refuse is refused here).

    Fields missing from `data` keep their value (a new rule: the defaults); an empty bound clears it."""
    if not isinstance(data, dict):
        raise RuleError("a rule is an object of fields.")
    rule = QualityRule.objects.filter(campaign=campaign).first() or QualityRule(campaign=campaign)
    _apply_data(rule, data)
    check_rule(rule)
    rule.updated_by = user if getattr(user, "is_authenticated", False) else None
    rule.save()
    return rule


def rule_snapshot(rule: QualityRule) -> dict[str, Any]:
    """The rule as JSON, for the audit."""
    snapshot = model_to_dict(rule)
    snapshot["id"] = rule.pk
    snapshot["bonus_amount"] = None if rule.bonus_amount is None else str(rule.bonus_amount)
    snapshot["updated_at"] = rule.updated_at.isoformat() if rule.updated_at else None
    return snapshot


# ---- planning --------------------------------------------------------------------------------------------------

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


# ---- applying --------------------------------------------------------------------------------------------------

def _record(campaign: Campaign, decision: PlannedDecision, snapshot: dict[str, Any], source: str,
            user: Any) -> tuple[QualityDecision, bool]:
    return QualityDecision.objects.get_or_create(
        key=decision.key,
        defaults={"campaign": campaign, "assignment_id": decision.assignment_id, "worker_id": decision.worker_id,
                  "action": decision.action, "message": decision.message, "amount": decision.amount,
                  "evidence": decision.evidence, "rule": snapshot, "source": source,
                  "decided_by": user if getattr(user, "is_authenticated", False) else None},
    )


def _finish(record: QualityDecision, error: str = "") -> None:
    record.state = DecisionState.FAILED if error else DecisionState.DONE
    record.error = error
    record.done_at = None if error else timezone.now()
    record.save(update_fields=["state", "error", "done_at"])


_RESULT = {DecisionAction.APPROVE: AssignmentStatus.APPROVED, DecisionAction.REJECT: AssignmentStatus.REJECTED}


def _decide(rule: QualityRule, decision: PlannedDecision, record: QualityDecision, created: bool) -> str:
    """Make one approval or rejection; "done", "skipped" or an error text."""
    with transaction.atomic():
        assignment = (Assignment.objects.select_for_update().select_related("hit__campaign", "worker")
                      .filter(pk=record.assignment_id or 0).first())
        if assignment is None:
            return "skipped"
        if assignment.status != AssignmentStatus.SUBMITTED:
            if not created and assignment.status == _RESULT[DecisionAction(decision.action)]:
                return "done"  # made by this decision in a run that stopped before recording it
            return "skipped"
        try:
            if decision.action == DecisionAction.APPROVE:
                approve_assignment(assignment, announce=False)
            else:
                reject_assignment(assignment, rule.reject_message, category=rule.reject_category)
        except ReviewError as exc:
            return str(exc) or "refused"
    return "done"


def _pay(record: QualityDecision) -> str:
    """Pay one bonus under the decision's own request token: a run that stopped after storing it pays the stored
    bonus, never a second one."""
    assignment = (Assignment.objects.select_related("hit__campaign", "worker")
                  .filter(pk=record.assignment_id or 0).first())
    if assignment is None:
        return "skipped"
    try:
        grant_bonus(assignment, record.amount or Decimal("0"), record.message, token=bonus_token(record))
    except ReviewError as exc:
        return str(exc) or "refused"
    return "done"


def bonus_token(record: QualityDecision) -> str:
    """The request token of a rule's bonus (Bonus.unique_token, at most 64 characters): one per decision."""
    return f"rule-{record.pk}"


_LOCK_SPACE = 160_001  # advisory-lock namespace of applying review rules (PostgreSQL)


class RuleBusy(RuleError):
    """The campaign's rule is being applied by another job or request."""


@contextmanager
def _applying(campaign: Campaign) -> Iterator[None]:
    """One application of a campaign's rule at a time (the periodic job, the console and the API may overlap): a
    PostgreSQL session advisory lock, released at the end or when the connection is lost. SQLite, which writes
    one transaction at a time anyway, is not locked."""
    if connection.vendor != "postgresql":
        yield
        return
    key = campaign.pk % 2**31  # the lock's two keys are 32-bit
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [_LOCK_SPACE, key])
        acquired = cursor.fetchone()[0]
    if not acquired:
        raise RuleBusy("The review rule of this campaign is being applied right now; try again in a moment.")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [_LOCK_SPACE, key])


def apply_rule(campaign: Campaign, *, source: str, user: Any = None) -> RuleResult:
    """Apply the plan: each decision stored (planned) before its marketplace call, then done or failed."""
    rule = QualityRule.objects.filter(campaign=campaign).first()
    if rule is None:
        raise RuleError("This campaign has no review rule.")
    if source not in SOURCES:
        raise RuleError(f"unknown source {source!r} (one of {', '.join(SOURCES)}).", "source")
    with _applying(campaign):
        return _apply(campaign, rule, source, user)


def _apply(campaign: Campaign, rule: QualityRule, source: str, user: Any) -> RuleResult:
    compute_quality(campaign)
    plan = plan_rule(campaign, ask_marketplace=True)
    snapshot = rule_snapshot(rule)
    result = RuleResult(done=0, failed={}, skipped=0)
    approved = 0
    ordered = sorted(plan.decisions, key=lambda d: (d.action == DecisionAction.BONUS, d.action != "approve"))
    for decision in ordered:
        record, created = _record(campaign, decision, snapshot, source, user)
        if record.state == DecisionState.DONE:
            result.skipped += 1
            continue
        if decision.action == DecisionAction.BONUS:
            outcome = _pay(record)
        else:
            outcome = _decide(rule, decision, record, created)
        if outcome == "skipped":
            result.skipped += 1
            if created:  # a person decided between the plan and now: nothing was made, nothing to audit
                record.delete()
            else:
                _finish(record, "decided by someone else meanwhile; left as it is")
            continue
        if outcome == "done":
            _finish(record)
            result.done += 1
            approved += decision.action == DecisionAction.APPROVE
        else:
            _finish(record, outcome)
            result.failed[decision.key] = outcome
    if approved:  # one hand-off for the batch (Prolific approves many submissions in one call)
        get_provider(campaign.provider).decisions_recorded(campaign)
    return result


def apply_enabled_rules() -> dict[str, Any]:
    """The periodic review job: every enabled rule of an active or paused campaign, one after another; a campaign
    that fails is logged and reported, and the others go on."""
    from ..states import CampaignStatus

    report: dict[str, Any] = {"campaigns": 0, "done": 0, "failed": 0, "skipped": 0, "errors": {}}
    rules = (QualityRule.objects.filter(enabled=True, campaign__status__in=(CampaignStatus.ACTIVE,
                                                                            CampaignStatus.PAUSED))
             .select_related("campaign").order_by("campaign_id"))
    for rule in rules:
        try:
            result = apply_rule(rule.campaign, source="periodic")
        except Exception as exc:  # one campaign's failure must not stop the others
            log.exception("review rule of campaign %s failed", rule.campaign_id)
            report["errors"][str(rule.campaign_id)] = str(exc) or type(exc).__name__
            continue
        report["campaigns"] += 1
        report["done"] += result.done
        report["failed"] += len(result.failed)
        report["skipped"] += result.skipped
    return report
