"""Background jobs of the Prolific provider (thin: each calls a service). Their names are those they were first
registered under, so queued jobs and schedules keep finding them."""
from __future__ import annotations

from dataclasses import asdict

from celery import shared_task

from ...jobs import BY_THE_SYNC
from ...models import Campaign
from ...services.campaign_tasks import CampaignTask
from ..base import ProviderUnavailable
from .decisions import push_decisions
from .events import handle_pending_events
from .studies import ensure_study


@shared_task(name="mturk.tasks.prolific_publish", base=CampaignTask, acks_late=True, reject_on_worker_lost=True,
             autoretry_for=(ProviderUnavailable,), retry_backoff=30, retry_backoff_max=900, max_retries=10,
             label="Creating or updating the Prolific study",
             recovery="publish the campaign again to retry (`manage.py publish_campaign` or the Publish button)")
def prolific_publish(campaign_id: int) -> str:
    """Create (exactly once), publish and size a campaign's Prolific study. Re-running it is harmless."""
    return ensure_study(Campaign.objects.get(pk=campaign_id)).status


@shared_task(name="mturk.tasks.prolific_push_decisions", base=CampaignTask, acks_late=True,
             autoretry_for=(ProviderUnavailable,), retry_backoff=30, max_retries=10,
             label="Sending the review decisions to Prolific",
             recovery=BY_THE_SYNC)
def prolific_push_decisions(campaign_id: int) -> int:
    """Send the stored approve/reject decisions of a campaign's Prolific submissions, then read them back."""
    return push_decisions(Campaign.objects.get(pk=campaign_id))


@shared_task(name="mturk.tasks.prolific_handle_events", acks_late=True)
def prolific_handle_events(limit: int = 500) -> dict:
    """Handle the stored Prolific webhook events (queued by the receiver for each new event; the periodic sync
    handles leftovers). Re-running it is harmless: handled events are skipped."""
    return asdict(handle_pending_events(limit))
