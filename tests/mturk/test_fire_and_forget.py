"""Fire-and-forget tasks (mturk.jobs.fire): every one's failure is recorded where the researcher looks (the job log;
a campaign's tasks also on the campaign, shown on its page and in the API). In-process (no broker) the first
failure is final and said so, never a `celery.exceptions.Retry` thrown at whoever committed; run by a worker, the
retry stays, and what is recorded says when it comes, then that it was given up."""
from __future__ import annotations

import logging
import uuid

import pytest
from celery.app.trace import build_tracer

from annotation.tasks import make_thumbnails
from config.celery import app
from mturk.jobs import FireAndForget, send_after_commit
from mturk.models import Campaign
from mturk.providers.base import ProviderUnavailable
from mturk.providers.mturk.tasks import create_marketplace_hits
from mturk.providers.prolific.tasks import prolific_publish, prolific_push_decisions
from mturk.services.campaign_tasks import CampaignTask
from mturk.services.campaigns import CampaignError
from mturk.tasks import grant_participation, publish_new_hits
from tests.factories import make_campaign, make_image

pytestmark = pytest.mark.django_db

DOWN = "the marketplace is down for maintenance"
# task, the function it calls (patched to fail), the error it is retried for with a broker
CAMPAIGN_TASKS = [
    (prolific_publish, "mturk.providers.prolific.tasks.ensure_study", ProviderUnavailable(DOWN)),
    (prolific_push_decisions, "mturk.providers.prolific.tasks.push_decisions", ProviderUnavailable(DOWN)),
    (publish_new_hits, "mturk.tasks.publish_campaign", ConnectionError(DOWN)),
    (grant_participation, "mturk.tasks.grant_pending", ProviderUnavailable(DOWN)),
    (create_marketplace_hits, "mturk.providers.mturk.tasks.create_pending_hits", ProviderUnavailable(DOWN)),
]


def failing(error: BaseException):
    def fail(*args, **kwargs):
        raise error

    return fail


@pytest.mark.parametrize(("task", "target", "error"), CAMPAIGN_TASKS, ids=lambda v: getattr(v, "name", ""))
def test_a_campaign_task_failing_in_process_is_recorded_on_the_campaign_and_not_raised(
        task, target, error, monkeypatch, django_capture_on_commit_callbacks, caplog):
    assert isinstance(task, CampaignTask) and task.label and task.recovery
    campaign = make_campaign(images=1)  # local, active
    monkeypatch.setattr(target, failing(error))
    with django_capture_on_commit_callbacks(execute=True):
        handoff = send_after_commit(task.name, campaign.pk)
    line = (f"{task.label} failed: {DOWN}; not tried again (tasks run in-process, without a task queue): "
            f"{task.recovery}")
    assert (handoff.in_process, handoff.ran, handoff.queued, handoff.error) == (True, False, False, line)
    campaign.refresh_from_db()
    assert campaign.marketplace_error == line
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR] == [f"job {task.name}: {line}"]


def test_a_failure_no_worker_would_retry_is_not_blamed_on_the_missing_task_queue(
        monkeypatch, django_capture_on_commit_callbacks):
    campaign = make_campaign(images=1)
    monkeypatch.setattr("mturk.tasks.publish_campaign", failing(CampaignError("the stage is closed")))
    with django_capture_on_commit_callbacks(execute=True):
        handoff = send_after_commit(publish_new_hits.name, campaign.pk)
    assert handoff.error == (f"Publishing the HITs the earlier stage added failed: the stage is closed; "
                             f"{publish_new_hits.recovery}")


def test_the_campaign_page_shows_a_local_campaigns_background_error(researcher_client, monkeypatch,
                                                                    django_capture_on_commit_callbacks):
    campaign = make_campaign(images=1)
    monkeypatch.setattr("mturk.tasks.publish_campaign", failing(ConnectionError(DOWN)))
    with django_capture_on_commit_callbacks(execute=True):
        send_after_commit(publish_new_hits.name, campaign.pk)
    page = researcher_client.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert "Last background error" in page and f"Publishing the HITs the earlier stage added failed: {DOWN}" in page


def test_a_later_success_of_the_same_task_clears_its_error(monkeypatch, django_capture_on_commit_callbacks):
    campaign = make_campaign(images=1)
    with monkeypatch.context() as patched:
        patched.setattr("mturk.tasks.grant_pending", failing(ProviderUnavailable(DOWN)))
        with django_capture_on_commit_callbacks(execute=True):
            send_after_commit(grant_participation.name, campaign.pk)
    assert Campaign.objects.get(pk=campaign.pk).marketplace_error.startswith(f"{grant_participation.label} failed")
    with django_capture_on_commit_callbacks(execute=True):
        handoff = send_after_commit(grant_participation.name, campaign.pk)
    assert (handoff.ran, handoff.error) == (True, "")
    campaign.refresh_from_db()
    assert campaign.marketplace_error == ""


def test_thumbnails_that_fail_in_process_are_in_the_job_log(monkeypatch, django_capture_on_commit_callbacks,
                                                            caplog):
    assert isinstance(make_thumbnails, FireAndForget) and not isinstance(make_thumbnails, CampaignTask)
    monkeypatch.setattr("annotation.tasks.ensure_thumbnails", failing(OSError("No space left on device")))
    with django_capture_on_commit_callbacks(execute=True):  # the import's thumbnails job runs as it commits
        image = make_image("photo.png")
    assert image.pk is not None
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR] == [
        "job annotation.tasks.make_thumbnails: Making an image's thumbnails failed: No space left on device; not "
        "tried again (tasks run in-process, without a task queue): `manage.py render_images` makes the missing "
        "renditions"]


class Broker:
    """Stands for the broker a worker's retry is sent to."""

    def __init__(self) -> None:
        self.sent: list[dict] = []

    def __call__(self, args=None, kwargs=None, **options):
        self.sent.append({"args": tuple(args or ()), **options})


def run_as_a_worker(task, args: tuple, retries: int):
    """The task as a worker runs it (Celery's tracer, not eager), delivery number `retries` + 1."""
    tracer = build_tracer(task.name, task, eager=False, propagate=False, app=app)
    return tracer(str(uuid.uuid4()), args, {}, {"retries": retries, "is_eager": False, "delivery_info": {}})


def test_with_a_broker_the_retry_stays_and_what_is_recorded_says_when_then_that_it_was_given_up(
        monkeypatch, caplog):
    campaign = make_campaign(images=1)
    app.conf.task_always_eager = False  # restored by the celery_in_process fixture
    broker = Broker()
    monkeypatch.setattr(prolific_publish, "apply_async", broker)
    monkeypatch.setattr("mturk.providers.prolific.tasks.ensure_study", failing(ProviderUnavailable(DOWN)))

    run_as_a_worker(prolific_publish, (campaign.pk,), retries=0)
    [retry] = broker.sent
    assert retry["args"] == (campaign.pk,) and retry["retries"] == 1 and 0 <= retry["countdown"] <= 30
    campaign.refresh_from_db()
    assert campaign.marketplace_error == (
        f"Creating or updating the Prolific study failed: {DOWN} (attempt 1 of 11); tried again automatically in "
        f"{retry['countdown']} s")

    run_as_a_worker(prolific_publish, (campaign.pk,), retries=prolific_publish.max_retries)  # the last delivery
    assert len(broker.sent) == 1  # no retry after the last one
    campaign.refresh_from_db()
    assert campaign.marketplace_error == (
        f"Creating or updating the Prolific study failed: {DOWN}; given up after 11 attempts: publish the campaign "
        "again to retry (`manage.py publish_campaign` or the Publish button)")
    finished = [r.getMessage() for r in caplog.records if "finished" in r.getMessage()]
    assert finished == [f"job mturk.tasks.prolific_publish finished: retry ({DOWN})",
                        f"job mturk.tasks.prolific_publish finished: failure ({DOWN})"]
