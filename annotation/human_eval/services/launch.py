"""Launching a human evaluation: its HITs planned (plan.py) and made into one crowd campaign through the crowd
core's services (mturk.services.campaigns.create_campaign), its attention checks as the core's gold items mixed in
at the evaluation's attention rate (Campaign.gold_rate, services.gold), and the evaluation marked launched.

The checks are gold items of the evaluation's scope (GoldItem.scope, TaskKind.gold_scope): the campaign takes
its own evaluation's checks and no other. The campaign is a draft unless `publish`: the researcher
publishes it as any other (budget cap, fees)."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import transaction

from mturk.models import Campaign
from mturk.services.campaigns import CampaignError, create_campaign, publish_campaign
from mturk.services.gold import GoldError, create_gold_item

from ..models import HumanEvaluation
from .evaluations import EvaluationError
from .plan import plan_evaluation


def campaign_name(evaluation: HumanEvaluation) -> str:
    return f"Human evaluation: {evaluation.name}"[:200]


def launch_evaluation(evaluation: HumanEvaluation, *, provider: str = "local", reward: Decimal | None = None,
                      created_by: Any = None, publish: bool = False) -> Campaign:
    """The evaluation's campaign (a draft, or published with `publish`); EvaluationError (nothing changed) when the
    evaluation is not a draft, has fewer than 2 judged systems, or the core refuses the campaign."""
    user = created_by if getattr(created_by, "is_authenticated", False) else None
    with transaction.atomic():
        evaluation = HumanEvaluation.objects.select_for_update().get(pk=evaluation.pk)
        if evaluation.status != HumanEvaluation.Status.DRAFT:
            raise EvaluationError(f"evaluation '{evaluation.name}' is launched already")
        plan = plan_evaluation(evaluation)
        try:
            gold = [create_gold_item(task_kind=plan.task_kind, items=items, answer=answer, user=user,
                                     note=f"attention check of human evaluation {evaluation.pk}",
                                     options=plan.options) for items, answer in plan.attention]
            campaign = create_campaign(
                name=campaign_name(evaluation), task_kind=plan.task_kind, provider=provider, reward=reward,
                assignments_per_hit=evaluation.judges, options=plan.options, items=plan.hits,
                gold_rate=evaluation.attention_rate if gold else 0.0, created_by=user)
        except (CampaignError, GoldError) as exc:
            raise EvaluationError(f"the campaign cannot be made: {exc}") from None
        except LookupError as exc:  # an unknown provider, or the task kind not installed
            raise EvaluationError(f"the campaign cannot be made: {exc.args[0] if exc.args else exc}") from None
        evaluation.campaign, evaluation.status = campaign, HumanEvaluation.Status.LAUNCHED
        evaluation.save(update_fields=["campaign", "status"])
    if publish:
        publish_campaign(campaign)
        campaign.refresh_from_db()
    return campaign
