"""Background jobs of the MTurk provider (thin: each calls a service). Their names are those they were first
registered under, so queued jobs and schedules keep finding them."""
from __future__ import annotations

from celery import shared_task

from ...jobs import BY_THE_SYNC
from ...models import Campaign
from ...services.campaign_tasks import CampaignTask
from ..base import ProviderUnavailable


@shared_task(name="mturk.tasks.create_marketplace_hits", base=CampaignTask, acks_late=True,
             reject_on_worker_lost=True, autoretry_for=(ProviderUnavailable, ConnectionError), retry_backoff=30,
             retry_backoff_max=900, max_retries=10, label="Creating the published HITs on MTurk",
             recovery=f"{BY_THE_SYNC}, or publish the campaign again")
def create_marketplace_hits(campaign_id: int) -> int:
    """Create a campaign's published HITs on its marketplace. Re-running it never duplicates a HIT."""
    from .publish import create_pending_hits

    return create_pending_hits(Campaign.objects.get(pk=campaign_id)).created


@shared_task(name="mturk.tasks.poll_marketplace_events", acks_late=True)
def poll_marketplace_events() -> dict:
    """Read MTurk's event notifications from the SQS queue (MTURK_EVENTS_QUEUE_URL) and sync the HITs they name."""
    from dataclasses import asdict

    from django.conf import settings

    from .events import poll_queue

    if not settings.MTURK_EVENTS_QUEUE_URL:
        return {}
    return asdict(poll_queue(settings.MTURK_EVENTS_QUEUE_URL))
