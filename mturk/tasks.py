"""Background jobs of the crowd layer (thin: each calls a service)."""
from __future__ import annotations

from dataclasses import asdict

from celery import shared_task

from .datasets.services.exports import build_export
from .datasets.services.imports import run_import
from .jobs import BY_THE_SYNC, sweep
from .models import Campaign, DatasetExport, ImportJob, QualityJob
from .providers.base import ProviderUnavailable
from .quality.services.jobs import run_quality_job
from .quality.services.review_rules.applying import apply_enabled_rules
from .services.campaign_tasks import CampaignTask
from .services.campaigns import publish_campaign
from .services.participation import grant_pending
from .work.services.activity import release_idle_assignments
from .work.services.marketplace_sync import sync_all, sync_campaign


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
    report = sync_all() if campaign_id is None else sync_campaign(Campaign.objects.get(pk=campaign_id))
    return asdict(report)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def build_dataset_export(export_id: int) -> str:
    """Build a requested export (acks late: a worker killed mid-way gets the job redelivered)."""
    return build_export(DatasetExport.objects.get(pk=export_id)).status


@shared_task(base=CampaignTask, acks_late=True, autoretry_for=(ProviderUnavailable,), retry_backoff=60,
             max_retries=5, label="Granting the participation qualifications on the marketplace",
             recovery=BY_THE_SYNC)
def grant_participation(campaign_id: int) -> int:
    """Grant the campaign's stored participation qualifications on its marketplace (silently)."""
    return grant_pending(Campaign.objects.get(pk=campaign_id))


@shared_task(acks_late=True, reject_on_worker_lost=True)
def run_import_job(job_id: int) -> str:
    """Run a researcher's import (acks late: a worker killed mid-way gets the job redelivered and it starts over)."""
    return run_import(ImportJob.objects.get(pk=job_id)).status


@shared_task(acks_late=True)
def apply_review_rules() -> dict:
    """Apply the enabled review rule of every active or paused campaign (quality computed first). One campaign
    failing does not stop the others; decisions already made are never made twice (see services.review_rules)."""
    return apply_enabled_rules()


@shared_task(acks_late=True, reject_on_worker_lost=True)
def compute_campaign_quality(job_id: int) -> str:
    """Compute a campaign's quality as a researcher asked (acks late: a worker killed mid-way gets the job
    redelivered and it computes again)."""
    return run_quality_job(QualityJob.objects.select_related("campaign").get(pk=job_id)).status


@shared_task
def release_idle_tasks() -> int:
    """Give back the slots of local tasks left idle (no activity for TASK_INACTIVITY_SECONDS; see services.activity)."""
    return release_idle_assignments()


@shared_task
def sweep_background_jobs() -> dict:
    """The job queue's sweeper (celery beat, every JOB_SWEEP_SECONDS): sends the jobs the broker never took, takes
    up those whose worker died (see mturk.jobs)."""
    return asdict(sweep())
