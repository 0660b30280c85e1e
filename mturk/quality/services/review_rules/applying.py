"""Review rules applied: each decision stored (planned) before its marketplace call, then done or failed; one
application per campaign at a time; the periodic job over every enabled rule."""
from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from ....models import Assignment, Campaign, QualityDecision, QualityRule
from ....models.quality import DecisionAction, DecisionState
from ....providers.registry import get_provider
from ....services.review import ReviewError, approve_assignment, grant_bonus, reject_assignment
from ....states import AssignmentStatus
from ..computation import compute_quality
from .planning import PlannedDecision, plan_rule
from .rule import RuleError, rule_snapshot

SOURCES = ("periodic", "console", "api", "command")
log = logging.getLogger(__name__)


@dataclass
class RuleResult:
    done: int
    failed: dict[str, str]  # decision key -> why
    skipped: int  # decided already (by a person or an earlier run)


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
    from ....states import CampaignStatus

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
