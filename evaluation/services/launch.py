"""Launching a human evaluation: its HITs planned (plan.py) and made into one crowd campaign through the crowd
core's services (mturk.services.campaigns.create_campaign), its attention checks as the core's gold items mixed in
at the evaluation's attention rate (Campaign.gold_rate, services.gold), and the evaluation marked launched.

The checks are gold items of the evaluation's scope (GoldItem.scope, TaskKind.gold_scope): the campaign takes
its own evaluation's checks and no other. The campaign is a draft unless `publish`: the researcher
publishes it as any other (budget cap, fees).

`settings` are the campaign's settings an evaluation does not fix (LAUNCH_SETTINGS): a marketplace's own, such as
Prolific's bundle of tasks per submission and its estimated minutes (qualifications), the time limit, a budget cap.
The evaluation fixes the rest (the task kind's options, judges per HIT, the attention rate)."""
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

# create_campaign's arguments a launch may set; the others come from the evaluation (or `reward`).
LAUNCH_SETTINGS = frozenset({"qualifications", "tasks_per_submission", "time_limit_seconds", "budget_cap",
                             "max_assignments_per_worker", "title", "description", "instructions"})


class LaunchedNotPublished(Exception):
    """The evaluation is launched and its campaign published here, but the marketplace's half failed (run
    in-process, without a task queue): the failure is recorded on the campaign, and publishing it again retries.
    Not an EvaluationError: the launch is not undone."""

    def __init__(self, message: str, campaign: Campaign) -> None:
        super().__init__(message)
        self.campaign = campaign


def campaign_name(evaluation: HumanEvaluation) -> str:
    return f"Human evaluation: {evaluation.name}"[:200]


def launch_evaluation(evaluation: HumanEvaluation, *, provider: str | None = None, reward: Decimal | None = None,
                      created_by: Any = None, publish: bool = False,
                      settings: dict[str, Any] | None = None) -> Campaign:
    """The evaluation's campaign (a draft, or published with `publish`); EvaluationError (nothing changed) when the
    evaluation is not a draft, has fewer than 2 judged systems, a setting is not one of LAUNCH_SETTINGS, or the core
    refuses the campaign (or its publication, e.g. a reward below the marketplace's pay floor).

    The publication's marketplace job (a Prolific study, MTurk HITs) runs when the launch commits: in-process (no
    task queue), its failure raises LaunchedNotPublished naming the cause; the launch itself stands."""
    settings = dict(settings or {})
    unknown = sorted(set(settings) - LAUNCH_SETTINGS)
    if unknown:
        raise EvaluationError(f"unknown launch setting(s) {', '.join(unknown)} "
                              f"(settable: {', '.join(sorted(LAUNCH_SETTINGS))})")
    if isinstance(settings.get("budget_cap"), float):  # 1.20 read as a float is 1.19999…: the amount as written
        settings["budget_cap"] = Decimal(str(settings["budget_cap"]))
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
                gold_rate=evaluation.attention_rate if gold else 0.0, created_by=user, **settings)
        except (CampaignError, GoldError) as exc:
            raise EvaluationError(f"the campaign cannot be made: {exc}") from None
        except LookupError as exc:  # an unknown provider, or the task kind not installed
            raise EvaluationError(f"the campaign cannot be made: {exc.args[0] if exc.args else exc}") from None
        evaluation.campaign, evaluation.status = campaign, HumanEvaluation.Status.LAUNCHED
        evaluation.save(update_fields=["campaign", "status"])
        if publish:  # in the same transaction: a refused publication launches nothing
            try:
                publish_campaign(campaign)
            except CampaignError as exc:
                raise EvaluationError(f"the campaign cannot be published: {exc}") from None
    if publish:
        campaign.refresh_from_db()
        if campaign.marketplace_error:  # a new campaign: the error is this publication's job's
            raise LaunchedNotPublished(
                f"evaluation '{evaluation.name}' is launched and campaign '{campaign.name}' published here, but "
                f"{campaign.marketplace_error[:1].lower()}{campaign.marketplace_error[1:]}", campaign)
    return campaign
