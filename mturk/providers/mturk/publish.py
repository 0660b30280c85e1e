"""Creating published HITs on a marketplace: the background half of publishing.

`publish_campaign` marks HITs published in our database (the intent). This job then creates each
HIT that has no marketplace id yet, with a request token derived from the HIT's id: killed half-way
and run again, it finds the HITs the marketplace already has instead of creating duplicates.

A job lost with its worker (`kill -9` of the whole Celery worker: the broker redelivers it only after
its visibility timeout) is picked up again by re-running `publish_campaign` (`resume_creation`) and by the
periodic sync, which creates whatever published HIT still has no marketplace id."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from ...jobs import send_after_commit
from ...models import HIT, Campaign, MarketplaceHITType
from ...services.participation import in_stage_chain, participation_scopes, qualification_for
from ...states import HITStatus
from ..base import ProviderError, PublishOutcome
from ..registry import get_provider
from .notifications import configure_hit_type
from .qualifications import not_participated

CREATE_MARKETPLACE_HITS = "mturk.tasks.create_marketplace_hits"  # the task that creates a campaign's pending HITs


@dataclass
class CreationReport:
    created: int = 0
    pending: int = 0
    error: str = ""


def pending_hits(campaign: Campaign):
    return HIT.objects.filter(campaign=campaign, status=HITStatus.PUBLISHED, external_id="").order_by("position", "id")


def resume_creation(campaign: Campaign) -> PublishOutcome:
    """Queue the creation job again for published HITs the marketplace does not have yet: how many, and the job."""
    pending = pending_hits(campaign).count()
    job = send_after_commit(CREATE_MARKETPLACE_HITS, campaign.pk) if pending else None
    return PublishOutcome(published=pending, job=job)


def _config_hash(params: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()


class _HITTypes:
    """HIT types by configuration: one create_hit_type per distinct configuration, remembered in the DB."""

    def __init__(self, campaign: Campaign, provider) -> None:
        self.campaign = campaign
        self.provider = provider
        known = MarketplaceHITType.objects.filter(campaign=campaign).values_list("config_hash", "external_id")
        self.known = dict(known)

    def id_for(self, params: dict[str, Any]) -> str:
        key = _config_hash(params)
        if key not in self.known:
            external = self.provider.create_hit_type(self.campaign, params)
            if settings.MTURK_EVENTS_QUEUE_URL:  # events make new work show up before the periodic sync
                configure_hit_type(external, settings.MTURK_EVENTS_QUEUE_URL, self.campaign.sandbox)
            MarketplaceHITType.objects.get_or_create(campaign=self.campaign, config_hash=key,
                                                     defaults={"external_id": external})
            self.known[key] = external
            if not self.campaign.external_id:
                Campaign.objects.filter(pk=self.campaign.pk).update(external_id=external)
                self.campaign.external_id = external
        return self.known[key]


def create_pending_hits(campaign: Campaign, limit: int | None = None) -> CreationReport:
    """Create the campaign's published-but-not-yet-created HITs on its marketplace (at most `limit`)."""
    provider = get_provider(campaign.provider)
    report = CreationReport()
    if not provider.has_marketplace:
        return report
    hit_types = _HITTypes(campaign, provider)
    qualifications: dict[str, str] = {}
    now = timezone.now()
    lifetime = timedelta(seconds=campaign.lifetime_seconds)
    in_chain = in_stage_chain(campaign)
    hits = pending_hits(campaign)
    if limit is not None:
        hits = hits[:limit]
    try:
        for hit in hits.iterator(chunk_size=500):
            hit.campaign = campaign
            extra = []
            for scope in participation_scopes(campaign, hit, in_chain):
                if scope not in qualifications:
                    qualifications[scope] = qualification_for(scope, provider, campaign.sandbox)
                extra.append(not_participated(qualifications[scope]))
            type_id = hit_types.id_for(provider.hit_type_params(campaign, extra))
            external, expiration = provider.create_hit(hit, provider.hit_params(hit, type_id))
            HIT.objects.filter(pk=hit.pk).update(
                external_id=external, hit_type_id=type_id, expires_at=expiration or now + lifetime)
            report.created += 1
    except ProviderError as exc:
        report.error = str(exc)
        Campaign.objects.filter(pk=campaign.pk).update(marketplace_error=report.error)
        raise
    finally:
        report.pending = pending_hits(campaign).count()
    Campaign.objects.filter(pk=campaign.pk).exclude(marketplace_error="").update(marketplace_error="")
    return report
