"""Launch the visual-stories workflow: one campaign per stage, chained, with the defaults of Huang et al. (2016).

    tell (2 per album, $0.30) -> retell (3 per album, $0.25) -> dii (describe_image, 3 per photo, $0.05)
                                                             -> dis (describe_sequence, 3 per sequence, $0.07)
                                                             -> rate (rate_story, 5 per story), optional

Every stage setting can be overridden: `settings={"retell": {"assignments_per_hit": 5},
"tell": {"options": {"discard_after_skips": 1}}}`."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import transaction

from mturk.models import Campaign
from mturk.services.campaigns import CampaignError, create_campaign, publish_campaign

from ..models import Album

STAGES: dict[str, dict[str, Any]] = {
    "tell": {"task_kind": "tell_story", "source": None},
    "retell": {"task_kind": "retell_story", "source": "tell"},
    "dii": {"task_kind": "describe_image", "source": "retell", "reward": Decimal("0.05"), "assignments_per_hit": 3,
            "title": "Describe a photo in one sentence"},
    "dis": {"task_kind": "describe_sequence", "source": "retell"},
    "rate": {"task_kind": "rate_story", "source": "retell"},
}
SETTABLE = {"reward", "assignments_per_hit", "time_limit_seconds", "instructions", "title", "description",
            "budget_cap", "max_assignments_per_worker", "options", "qualifications", "tasks_per_submission"}


def create_story_workflow(
    name: str,
    albums: list[Album],
    *,
    ratings: bool = False,
    provider: str = "local",
    settings: dict[str, dict[str, Any]] | None = None,
    publish: bool = False,
    is_simulated: bool = False,
    created_by: Any = None,
) -> dict[str, Campaign]:
    """Create (and optionally publish) the chained campaigns; returns them by stage name."""
    settings = settings or {}
    wanted = [s for s in STAGES if s != "rate" or ratings]
    unknown = sorted(set(settings) - set(wanted))
    if unknown:
        raise CampaignError(f"unknown stage(s) {', '.join(unknown)} (stages: {', '.join(wanted)})")
    for stage, values in settings.items():
        bad = sorted(set(values) - SETTABLE)
        if bad:
            raise CampaignError(
                f"stage {stage}: unknown setting(s) {', '.join(bad)} (settable: {', '.join(sorted(SETTABLE))})"
            )
    if not albums:
        raise CampaignError("a story workflow needs at least one album")
    campaigns: dict[str, Campaign] = {}
    with transaction.atomic():
        for stage in wanted:
            spec = {k: v for k, v in STAGES[stage].items() if k not in ("task_kind", "source")}
            spec.update(settings.get(stage, {}))
            campaigns[stage] = create_campaign(
                name=f"{name} · {stage}",
                task_kind=STAGES[stage]["task_kind"],
                provider=provider,
                source_stage=campaigns.get(STAGES[stage]["source"] or ""),
                items=[{"album": album.pk} for album in albums] if stage == "tell" else None,
                is_simulated=is_simulated,
                created_by=created_by,
                **spec,
            )
    if publish:
        for campaign in campaigns.values():
            publish_campaign(campaign)
            campaign.refresh_from_db()
    return campaigns
