"""Publishing on Prolific says what actually happens, against the fake Prolific: nothing to publish is refused and
the campaign stays a draft; without a task queue (in-process tasks) a 503 while the study is created ends the
command with one line naming the cause, the campaign page and the API show it, the job log records the job as
failed with its reason, and publishing again once Prolific is back creates the study."""
from __future__ import annotations

import logging
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from mturk.models import Campaign
from mturk.providers.prolific.models import ProlificStudy
from mturk.services.campaigns import create_campaign
from tests.factories import make_campaign

CANNOT = ("Prolific refused POST studies/ (503): Service Unavailable: Injected server error.; not tried again "
          "(tasks run in-process, without a task queue): publish the campaign again to retry")


def prolific_draft(images: int = 3, **fields) -> Campaign:
    return make_campaign(images=images, publish=False, assignments=2, provider="prolific", tasks_per_submission=2,
                         reward=Decimal("0.50"), qualifications={"estimated_minutes": 2}, **fields)


@pytest.mark.django_db(transaction=True)  # the publication commits: its in-process job runs inside the command
def test_a_503_on_creating_the_study_is_one_line_shown_everywhere_and_publishing_again_creates_it(
        prolific_fake, researcher_client, api, caplog):
    campaign = prolific_draft()
    prolific_fake.fail("studies/", "503", method="POST")
    caplog.set_level(logging.INFO)

    with pytest.raises(CommandError) as failed:
        call_command("publish_campaign", campaign.name, stdout=StringIO())

    message = str(failed.value)
    assert "\n" not in message and "Retry" not in message
    assert message.startswith(f"campaign '{campaign.name}' is published here, but creating or updating the Prolific "
                              "study failed: ")
    assert CANNOT in message
    assert prolific_fake.studies == {}
    campaign.refresh_from_db()
    assert campaign.status == "active" and CANNOT in campaign.marketplace_error
    # the job log: failed, with its reason (not "finished: unknown")
    finished = [r.getMessage() for r in caplog.records if "prolific_publish finished" in r.getMessage()]
    assert finished == ["job mturk.tasks.prolific_publish finished: failure (Prolific refused POST studies/ (503): "
                        "Service Unavailable: Injected server error.)"]
    # the campaign page and the API show the failure, not "being created"
    page = researcher_client.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert "being created" not in page
    assert "not created: the last attempt failed" in page and "Injected server error" in page
    assert CANNOT in api.get(f"/api/campaigns/{campaign.pk}/").json()["marketplace_error"]

    out = StringIO()
    call_command("publish_campaign", campaign.name, stdout=out)  # Prolific answers again: the study is created, once
    assert "is not" not in out.getvalue() and "queued" not in out.getvalue()
    assert "3 published HIT(s) were not on prolific yet" in out.getvalue()
    study = ProlificStudy.objects.get(campaign=campaign)
    assert list(prolific_fake.studies) == [study.external_id] and study.status == "ACTIVE"
    campaign.refresh_from_db()
    assert campaign.marketplace_error == ""
    page = researcher_client.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert study.external_id in page and "not created" not in page


@pytest.mark.django_db(transaction=True)
def test_the_api_answers_502_with_the_cause(prolific_fake, api):
    campaign = prolific_draft()
    prolific_fake.fail("studies/", "503", method="POST")
    response = api.post(f"/api/campaigns/{campaign.pk}/publish/", {}, format="json")
    assert response.status_code == 502
    assert CANNOT in response.json()["detail"]
    assert CANNOT in api.get(f"/api/campaigns/{campaign.pk}/").json()["marketplace_error"]


@pytest.mark.django_db
def test_a_campaign_with_nothing_to_publish_is_refused_and_stays_a_draft(prolific_fake, api):
    campaign = prolific_draft(images=0)
    with pytest.raises(CommandError, match=f"^publishing '{campaign.name}' would be refused: campaign "
                                           f"'{campaign.name}' has no HIT to publish"):
        call_command("publish_campaign", campaign.name, "--dry-run", stdout=StringIO())
    assert "has no HIT to publish" in api.get(f"/api/campaigns/{campaign.pk}/estimate/").json()["error"]
    refused = api.post(f"/api/campaigns/{campaign.pk}/publish/", {}, format="json")
    assert refused.status_code == 400 and "has no HIT to publish" in refused.json()["detail"]
    with pytest.raises(CommandError, match=f"^campaign '{campaign.name}' has no HIT to publish: add HITs first"):
        call_command("publish_campaign", campaign.name, stdout=StringIO())
    campaign.refresh_from_db()
    assert (campaign.status, campaign.published_at) == ("draft", None)
    assert not ProlificStudy.objects.exists() and prolific_fake.received("POST", "studies/") == []


@pytest.mark.django_db
def test_a_stage_with_no_hit_yet_says_it_waits_for_its_source(prolific_fake, django_capture_on_commit_callbacks):
    source = prolific_draft(images=1)
    stage = create_campaign(name="Later stage", task_kind="describe_image", provider="prolific", source_stage=source,
                            reward=Decimal("0.50"), qualifications={"estimated_minutes": 2})
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("publish_campaign", stage.name, stdout=out)
    assert out.getvalue() == (f"'Later stage' is active with no HIT yet: its HITs are added and published as "
                              f"'{source.name}' approves results.\n")
    stage.refresh_from_db()
    assert stage.status == "active" and prolific_fake.received("POST", "studies/") == []


@pytest.mark.django_db
def test_an_active_campaign_with_no_draft_has_nothing_to_publish(prolific_fake, django_capture_on_commit_callbacks):
    campaign = prolific_draft(images=2)
    with django_capture_on_commit_callbacks(execute=True):
        call_command("publish_campaign", campaign.name, stdout=StringIO())
    calls = len(prolific_fake.calls)
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        call_command("publish_campaign", campaign.name, stdout=out)
    assert out.getvalue() == f"Nothing to publish: every HIT of '{campaign.name}' is published already.\n"
    assert callbacks == [] and len(prolific_fake.calls) == calls


@pytest.mark.django_db
def test_with_a_broker_the_study_job_is_said_to_be_queued_and_the_study_row_says_so(
        prolific_fake, monkeypatch, researcher_client, django_capture_on_commit_callbacks):
    from config.celery import app
    from mturk.providers.prolific.tasks import prolific_publish

    campaign = prolific_draft()
    app.conf.task_always_eager = False  # restored by the celery_in_process fixture
    sent: list[tuple] = []
    monkeypatch.setattr(prolific_publish, "apply_async", lambda args=None, **options: sent.append(tuple(args)))
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("publish_campaign", campaign.name, stdout=out)
    assert sent == [(campaign.pk,)]
    assert out.getvalue().splitlines()[1:] == [
        "Queued on the task queue: Creating or updating the Prolific study. Follow it on the campaign page or with "
        "`sync_assignments`."]
    page = researcher_client.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert "being created (a background job creates and publishes it)" in page


@pytest.mark.django_db(transaction=True)
def test_the_wizard_says_the_study_failed_after_creating_and_publishing(prolific_fake, researcher_client):
    from tests.factories import make_image

    make_image("one.png")
    prolific_fake.fail("studies/", "503", method="POST")
    response = researcher_client.post("/campaigns/new/", {
        "step": "publish", "flow": "campaign", "kind": "describe_image", "source": "all_images",
        "provider": "prolific", "name": "Wizard study", "reward": "0.50", "tasks_per_submission": "1",
        "qualifications-estimated_minutes": "2"}, follow=True)
    page = response.content.decode()
    assert "Created: campaign &#x27;Wizard study&#x27; is published here, but creating or updating the Prolific " \
           "study failed: Prolific refused POST studies/ (503)" in page
    assert "not created: the last attempt failed" in page
