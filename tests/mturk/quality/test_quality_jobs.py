"""Quality computations asked for from the console: one open job per campaign (a lost one is taken up again by the
job queue's sweeper, then failed after JOB_MAX_ATTEMPTS runs, and a new request starts another), run by the Celery
task; a redelivered job computes again."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from mturk.jobs import sweep
from mturk.models import CampaignQuality, QualityJob
from mturk.quality.services.jobs import request_quality, run_quality_job
from mturk.tasks import compute_campaign_quality

from . import quality_fakes
from .quality_fakes import answer, quality_campaign, real_hits, worker

text_quality = quality_fakes.text_quality  # fixture
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("text_quality")]


def small_campaign():
    campaign = quality_campaign(images=1)
    (hit,) = real_hits(campaign)
    answer(hit, worker("a"), "cat")
    answer(hit, worker("b"), "cat")
    return campaign


def test_one_open_job_per_campaign_until_a_lost_one_is_given_up(django_capture_on_commit_callbacks):
    campaign = small_campaign()
    with django_capture_on_commit_callbacks(execute=False) as queued:
        first = request_quality(campaign)
        assert request_quality(campaign) == first
    assert len(queued) == 1
    # its worker died on the last of its runs: still the open job until the sweeper gives it up
    QualityJob.objects.filter(pk=first.pk).update(status=QualityJob.Status.RUNNING, attempts=3,
                                                  heartbeat_at=timezone.now() - timedelta(hours=1))
    assert request_quality(campaign) == first
    assert sweep().failed == [f"QualityJob {first.pk}"]
    first.refresh_from_db()
    assert first.status == "failed" and first.error.startswith("the worker running it stopped 3 times")
    with django_capture_on_commit_callbacks(execute=False) as queued:
        second = request_quality(campaign)
    assert second != first and len(queued) == 1


def test_the_task_runs_the_job_and_a_redelivered_one_computes_again(django_capture_on_commit_callbacks):
    campaign = small_campaign()
    with django_capture_on_commit_callbacks(execute=False):
        job = request_quality(campaign)
    assert compute_campaign_quality(job.pk) == "done"
    job.refresh_from_db()
    assert (job.status, job.result["answers"], job.result["aggregated"], job.error) == ("done", 2, 1, "")
    assert CampaignQuality.objects.get(campaign=campaign).answers == 2
    QualityJob.objects.filter(pk=job.pk).update(status=QualityJob.Status.RUNNING, heartbeat_at=timezone.now())
    assert run_quality_job(job).status == "running"  # delivered again while another run holds the lease: left alone
    QualityJob.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))  # that run died
    assert run_quality_job(job).status == "done"
    job.refresh_from_db()
    assert job.attempts == 2
    assert run_quality_job(job).status == "done"  # a finished job is not run again
