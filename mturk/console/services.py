"""The campaign wizard's writes: what the wizard would create, worked out by creating it for real in a
transaction that is rolled back (the same services, the same checks, the same figures as the estimate
endpoint: preview_publication), then creating it for good."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Q

from ..models import Campaign
from ..selectors.publication import PublicationPreview, preview_publication
from ..services.campaigns import CampaignError, PublicationFailed, PublishResult, publish_campaign

Creator = Callable[[], dict[str, Campaign]]  # creates the campaign(s), by stage ("" for a single campaign)


@dataclass(frozen=True)
class StagePlan:
    stage: str
    campaign: Campaign  # as it would be created (its row is gone: display only)
    hit_count: int  # real and gold HITs (the estimate's), not the onboarding HITs
    preview: PublicationPreview
    gold_hits: int = 0  # of hit_count, gold items mixed in
    onboarding_hits: int = 0  # qualifying HITs each worker does first (cost what workers take of them)


def dry_run(create: Creator) -> list[StagePlan]:
    """What `create` would create and what publishing it would cost, with nothing kept. Raises what `create`
    raises (CampaignError: a refusal, nothing created)."""
    with transaction.atomic():
        campaigns = create()
        plans = [_plan(stage, campaign) for stage, campaign in campaigns.items()]
        transaction.set_rollback(True)
    return plans


def _plan(stage: str, campaign: Campaign) -> StagePlan:
    counts = campaign.hits.aggregate(
        queued=Count("pk", filter=Q(onboarding=False)),
        gold=Count("pk", filter=Q(onboarding=False, gold_item__isnull=False)),
        onboarding=Count("pk", filter=Q(onboarding=True)),
    )
    return StagePlan(stage, campaign, counts["queued"], preview_publication(campaign), counts["gold"],
                     counts["onboarding"])


@dataclass(frozen=True)
class Created:
    campaigns: dict[str, Campaign]
    published: list[PublishResult]
    publish_error: str | None  # created, but publishing was refused: the rest stay drafts
    published_here: bool = False  # the refusal came after publishing here: the marketplace's job failed


def create_and_maybe_publish(create: Creator, publish: bool) -> Created:
    """Create for good; with `publish`, publish every campaign in chain order as the workflows' own `publish`
    does. A refusal to publish keeps what was created (as drafts) and is reported."""
    campaigns = create()
    results: list[PublishResult] = []
    if publish:
        for campaign in campaigns.values():
            try:
                results.append(publish_campaign(campaign))
            except PublicationFailed as exc:  # in-process: the marketplace's job failed (recorded on the campaign)
                return Created(campaigns, results, str(exc), published_here=True)
            except CampaignError as exc:
                return Created(campaigns, results, str(exc))
    return Created(campaigns, results, None)
