"""A job's run (mturk.jobs.running): claimed, its lease held while the block runs, then done, or failed with the
reason when the block raises (raised again); a job done, failed or running under another run's live lease yields
nothing and is left as it is."""
from __future__ import annotations

import pytest
from django.utils import timezone

from mturk.jobs import running
from mturk.jobs.lease import claim
from mturk.models import QualityJob
from mturk.models.imports import ImportJob
from tests.factories import make_campaign

pytestmark = pytest.mark.django_db


def quality_job() -> QualityJob:
    return QualityJob.objects.create(campaign=make_campaign(images=1))


def test_a_run_that_returns_is_done_with_its_fields():
    job = quality_job()
    with running(job) as run:
        assert run is not None and (job.status, job.attempts) == ("running", 1)
        run.done(result={"gold": 3})
    job.refresh_from_db()
    assert (job.status, job.result, job.error, job.attempts) == ("done", {"gold": 3}, "", 1)
    assert job.finished_at is not None


def test_a_run_that_returns_without_ending_is_done():
    job = quality_job()
    with running(job) as run:
        assert run is not None
    job.refresh_from_db()
    assert job.status == "done" and job.finished_at is not None


def test_a_run_that_raises_is_failed_with_the_reason_and_raised_again(caplog):
    job = ImportJob.objects.create(importer="images", file="imports/x.zip", original_name="x.zip", report={"old": 1})
    with pytest.raises(ValueError, match="no such column"), \
            running(job, error_prefix="the import stopped: ", done=0, report={}) as run:
        assert run is not None
        run.keep("done")
        job.done = 7  # the progress reached
        raise ValueError("no such column")
    job.refresh_from_db()
    assert (job.status, job.error) == ("failed", "the import stopped: ValueError: no such column")
    assert (job.done, job.report) == (7, {}) and job.finished_at is not None
    assert f"import job {job.pk} failed" in caplog.text


def test_a_run_that_ends_itself_failed_is_not_marked_done():
    job = quality_job()
    with running(job) as run:
        assert run is not None
        run.failed("the campaign has no gold", result={})
    job.refresh_from_db()
    assert (job.status, job.error) == ("failed", "the campaign has no gold")


@pytest.mark.parametrize("status", ["done", "failed"])
def test_a_job_already_ended_yields_nothing_and_stays_as_it_is(status):
    job = QualityJob.objects.create(campaign=make_campaign(images=1), status=status, error="before",
                                    finished_at=timezone.now())
    with running(job) as run:
        assert run is None
    job.refresh_from_db()
    assert (job.status, job.error, job.attempts) == (status, "before", 0)


def test_a_job_under_another_runs_live_lease_yields_nothing():
    job = quality_job()
    assert claim(QualityJob.objects.get(pk=job.pk))  # another run holds it
    with running(job) as run:
        assert run is None
    job.refresh_from_db()
    assert (job.status, job.attempts, job.finished_at) == ("running", 1, None)
