"""Review rules: plan (dry run) and apply a campaign's QualityRule, with an audit of every decision.

(Interface fixed; bodies to be written.)"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..models import Campaign, QualityRule


@dataclass(frozen=True)
class PlannedDecision:
    key: str  # QualityDecision.key: approve:<assignment>, reject:<assignment>, bonus:<campaign>:<worker>
    action: str  # approve, reject, bonus
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


@dataclass
class RuleResult:
    done: int
    failed: dict[str, str]  # decision key -> why
    skipped: int  # decided already (by a person or an earlier run)


def save_rule(campaign: Campaign, data: dict[str, Any], user: Any = None) -> QualityRule:
    """Create or update the campaign's rule from form/API data; ValueError names the bad field (a rejection
    message the campaign's marketplace would refuse is refused here)."""
    raise NotImplementedError


def plan_rule(campaign: Campaign) -> RulePlan:
    """What applying the rule now would do, from the stored WorkerScores (nothing is changed)."""
    raise NotImplementedError


def apply_rule(campaign: Campaign, *, source: str, user: Any = None) -> RuleResult:
    """Apply the plan: each decision stored (planned) before its marketplace call, then done or failed."""
    raise NotImplementedError
