"""Background jobs of the crowd layer (thin: each calls a service)."""
from __future__ import annotations

from celery import shared_task

from .jobs import BY_THE_SYNC, CampaignTask
from .models import Campaign
from .providers.base import ProviderUnavailable
from .services.campaigns import publish_campaign


@shared_task(base=CampaignTask, autoretry_for=(ConnectionError, TimeoutError), retry_backoff=True, max_retries=5,
             label="Publishing the HITs the earlier stage added",
             recovery="publish the campaign to publish its draft HITs (`manage.py publish_campaign` or the Publish "
                      "button)")
def publish_new_hits(campaign_id: int) -> int:
    """Publish the draft HITs a stage gained (within the budget cap)."""
    campaign = Campaign.objects.get(pk=campaign_id)
    if campaign.status != "active":
        return 0
    return publish_campaign(campaign).published


@shared_task(acks_late=True, autoretry_for=(ProviderUnavailable,), retry_backoff=60, max_retries=5)
def sync_marketplace(campaign_id: int | None = None) -> dict:
    """Pull submissions and decisions from the marketplaces (one campaign, or every open one)."""
    from dataclasses import asdict

    from .services.marketplace_sync import sync_all, sync_campaign

    report = sync_all() if campaign_id is None else sync_campaign(Campaign.objects.get(pk=campaign_id))
    return asdict(report)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def build_dataset_export(export_id: int) -> str:
    """Build a requested export (acks late: a worker killed mid-way gets the job redelivered)."""
    from .models import DatasetExport
    from .services.exports import build_export

    return build_export(DatasetExport.objects.get(pk=export_id)).status


@shared_task(base=CampaignTask, acks_late=True, autoretry_for=(ProviderUnavailable,), retry_backoff=60,
             max_retries=5, label="Granting the participation qualifications on the marketplace",
             recovery=BY_THE_SYNC)
def grant_participation(campaign_id: int) -> int:
    """Grant the campaign's stored participation qualifications on its marketplace (silently)."""
    from .services.participation import grant_pending

    return grant_pending(Campaign.objects.get(pk=campaign_id))


@shared_task(acks_late=True, reject_on_worker_lost=True)
def run_import_job(job_id: int) -> str:
    """Run a researcher's import (acks late: a worker killed mid-way gets the job redelivered and it starts over)."""
    from .models_imports import ImportJob
    from .services.imports import run_import

    return run_import(ImportJob.objects.get(pk=job_id)).status


@shared_task(acks_late=True)
def apply_review_rules() -> dict:
    """Apply the enabled review rule of every active or paused campaign (quality computed first). One campaign
    failing does not stop the others; decisions already made are never made twice (see services.review_rules)."""
    from .services.review_rules.applying import apply_enabled_rules

    return apply_enabled_rules()


@shared_task(acks_late=True, reject_on_worker_lost=True)
def compute_campaign_quality(job_id: int) -> str:
    """Compute a campaign's quality as a researcher asked (acks late: a worker killed mid-way gets the job
    redelivered and it computes again)."""
    from .models import QualityJob
    from .services.quality_jobs import run_quality_job

    return run_quality_job(QualityJob.objects.select_related("campaign").get(pk=job_id)).status


@shared_task
def release_idle_tasks() -> int:
    """Give back the slots of local tasks left idle (no activity for TASK_INACTIVITY_SECONDS; see services.activity)."""
    from .services.activity import release_idle_assignments

    return release_idle_assignments()


@shared_task
def sweep_background_jobs() -> dict:
    """The job queue's sweeper (celery beat, every JOB_SWEEP_SECONDS): sends the jobs the broker never took, takes
    up those whose worker died (see mturk.jobs)."""
    from dataclasses import asdict

    from .jobs import sweep

    return asdict(sweep())
