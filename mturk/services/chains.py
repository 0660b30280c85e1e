"""Create a chain of campaigns in one go: one campaign per stage, each fed by the stage it names as its source
(services.stages), the first stage with the HITs. Shared by the workflows (visual stories, grounded
descriptions): per-stage settings are checked before anything is created, and everything is created in one
transaction, so a refusal creates nothing."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import transaction

from ..models import Campaign
from .campaigns import CampaignError, create_campaign, publish_campaign

# What a stage's settings may change (create_campaign's arguments).
SETTABLE = frozenset({"reward", "assignments_per_hit", "time_limit_seconds", "instructions", "title", "description",
                      "budget_cap", "max_assignments_per_worker", "options", "qualifications", "tasks_per_submission",
                      "gold_rate", "onboarding_items", "onboarding_pass", "pilot_items", "pilot_assignments"})

MONEY_SETTINGS = ("reward", "budget_cap")  # amounts of money: Decimal, never float


def check_stage_settings(wanted: list[str], settings: dict[str, dict[str, Any]]) -> None:
    unknown = sorted(set(settings) - set(wanted))
    if unknown:
        raise CampaignError(f"unknown stage(s) {', '.join(unknown)} (stages: {', '.join(wanted)})")
    for stage, values in settings.items():
        bad = sorted(set(values) - SETTABLE)
        if bad:
            raise CampaignError(
                f"stage {stage}: unknown setting(s) {', '.join(bad)} (settable: {', '.join(sorted(SETTABLE))})"
            )


def create_chain(
    name: str,
    stages: dict[str, dict[str, Any]],
    items: list[dict[str, Any]],
    *,
    provider: str | None = None,  # None: the default provider (settings.DEFAULT_CROWD_PROVIDER)
    settings: dict[str, dict[str, Any]] | None = None,
    publish: bool = False,
    is_simulated: bool = False,
    created_by: Any = None,
) -> dict[str, Campaign]:
    """`stages`: stage name -> {"task_kind", "source" (an earlier stage or None), default settings...}, in
    chain order; the stages without a source get `items`. Campaigns are named `NAME · stage`; returns them by
    stage (published, one after the other, with `publish`)."""
    settings = settings or {}
    check_stage_settings(list(stages), settings)
    campaigns: dict[str, Campaign] = {}
    with transaction.atomic():
        for stage, spec in stages.items():
            values = {k: v for k, v in spec.items() if k not in ("task_kind", "source")}
            values.update(settings.get(stage, {}))
            for money in MONEY_SETTINGS:  # 1.20 read as a float is 1.19999…: the amount as written
                if isinstance(values.get(money), float):
                    values[money] = Decimal(str(values[money]))
            campaigns[stage] = create_campaign(
                name=f"{name} · {stage}",
                task_kind=spec["task_kind"],
                provider=provider,
                source_stage=campaigns.get(spec["source"] or ""),
                items=items if spec["source"] is None else None,
                is_simulated=is_simulated,
                created_by=created_by,
                **values,
            )
    if publish:
        for campaign in campaigns.values():
            publish_campaign(campaign)
            campaign.refresh_from_db()
    return campaigns
