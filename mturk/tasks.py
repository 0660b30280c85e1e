"""Background jobs of the crowd layer (thin: each calls a service)."""
from __future__ import annotations

from celery import shared_task

from .models import Campaign
from .services.campaigns import publish_campaign


@shared_task(autoretry_for=(ConnectionError, TimeoutError), retry_backoff=True, max_retries=5)
def publish_new_hits(campaign_id: int) -> int:
    """Publish the draft HITs a stage gained (within the budget cap)."""
    campaign = Campaign.objects.get(pk=campaign_id)
    if campaign.status != "active":
        return 0
    return publish_campaign(campaign).published
