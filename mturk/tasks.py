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


@shared_task(acks_late=True, reject_on_worker_lost=True)
def build_dataset_export(export_id: int) -> str:
    """Build a requested export (acks late: a worker killed mid-way gets the job redelivered)."""
    from .models import DatasetExport
    from .services.exports import build_export

    return build_export(DatasetExport.objects.get(pk=export_id)).status
