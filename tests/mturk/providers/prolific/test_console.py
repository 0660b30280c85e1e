"""A prolific campaign from the campaign page, the API and the CLI: the study's facts, rejection categories,
pause and close, more assignments (places), and a constant number of queries. Against the fake Prolific."""
from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from mturk.models import HIT, Assignment
from mturk.states import AssignmentStatus
from mturk.work.services.marketplace_sync import sync_campaign
from tests.queries import queries_for

from .study_helpers import WHY, published_campaign, study_of, tasks_of, work

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(prolific_fake, django_capture_on_commit_callbacks):
    return published_campaign(prolific_fake, images=6, assignments=1, tasks=2,
                              django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)


def test_the_campaign_page_shows_the_study_as_last_synced(prolific_fake, campaign, researcher_client):
    work(prolific_fake, campaign)
    nobody = prolific_fake.start(study_of(campaign).external_id)
    prolific_fake.complete(nobody.id)  # entered the code without doing any task here
    sync_campaign(campaign)
    calls = len(prolific_fake.calls)
    page = researcher_client.get(reverse("campaign-page", args=[campaign.pk])).content.decode()
    assert len(prolific_fake.calls) == calls  # a page view never calls Prolific
    study = study_of(campaign)
    assert study.external_id in page and study.completion_code in page
    assert "2 awaiting review" in page
    assert "1 awaiting review with no answer stored here" in page
    assert "Prolific approves unreviewed submissions after 21 days" in page
    assert "Review submitted work" in page  # rejected with a category on the review page (test_review_page_bulk)
    assert "the study: fees 33.33%, VAT 20.0%" in page  # as Prolific reported them for the study
    assert f"total GBP {study.costs['total_cost'] / 100:.2f}" in page  # in major units


def test_the_campaign_page_queries_do_not_grow_with_submissions(prolific_fake, campaign, researcher_client):
    work(prolific_fake, campaign)
    sync_campaign(campaign)
    url = reverse("campaign-page", args=[campaign.pk])
    few = queries_for(researcher_client, url)
    for _ in range(2):
        work(prolific_fake, campaign)
    sync_campaign(campaign)
    assert queries_for(researcher_client, url) == few


def test_rejecting_from_the_page_sends_the_category(prolific_fake, campaign, researcher_client,
                                                    django_capture_on_commit_callbacks):
    session = work(prolific_fake, campaign, tasks=1)
    sync_campaign(campaign)
    [task] = tasks_of(session)
    url = reverse("assignment-review", args=[campaign.pk, task.pk])
    with django_capture_on_commit_callbacks(execute=True):
        researcher_client.post(url, {"action": "reject", "feedback": WHY, "category": "FAILED_INSTRUCTIONS"})
    assert prolific_fake.submission(session.submission_id).rejection_category == "FAILED_INSTRUCTIONS"
    short = work(prolific_fake, campaign, tasks=1)
    sync_campaign(campaign)
    [other] = tasks_of(short)
    response = researcher_client.post(reverse("assignment-review", args=[campaign.pk, other.pk]),
                                      {"action": "reject", "feedback": "No.", "category": "LOW_EFFORT"}, follow=True)
    assert "at least 100 characters" in response.content.decode()
    assert Assignment.objects.get(pk=other.pk).status == AssignmentStatus.SUBMITTED


def test_the_api_rejects_with_a_category_and_refuses_without(prolific_fake, campaign, api,
                                                            django_capture_on_commit_callbacks):
    session = work(prolific_fake, campaign, tasks=1)
    sync_campaign(campaign)
    [task] = tasks_of(session)
    url = f"/api/assignments/{task.pk}/reject/"
    refused = api.post(url, {"feedback": WHY}, format="json")
    assert refused.status_code == 400 and "rejection category" in refused.json()["detail"]
    with django_capture_on_commit_callbacks(execute=True):
        done = api.post(url, {"feedback": WHY, "category": "LOW_EFFORT"}, format="json")
    assert done.status_code == 200 and done.json()["status"] == "rejected"
    assert prolific_fake.submission(session.submission_id).status == "REJECTED"


def test_the_cli_decides_with_a_category(prolific_fake, campaign, django_capture_on_commit_callbacks):
    session = work(prolific_fake, campaign, tasks=1)
    sync_campaign(campaign)
    [task] = tasks_of(session)
    with pytest.raises(CommandError, match="rejection category"):
        call_command("decide_assignment", task.pk, "--reject", "--feedback", WHY)
    with django_capture_on_commit_callbacks(execute=True):
        call_command("decide_assignment", task.pk, "--reject", "--feedback", WHY, "--category", "NO_DATA",
                     stdout=StringIO())
    assert prolific_fake.submission(session.submission_id).rejection_category == "NO_DATA"


def test_pause_and_close_from_the_cli_move_the_study(prolific_fake, campaign, django_capture_on_commit_callbacks):
    external = study_of(campaign).external_id
    with django_capture_on_commit_callbacks(execute=True):
        call_command("set_campaign_status", campaign.name, "pause", stdout=StringIO())
    assert prolific_fake.studies[external]["status"] == "PAUSED"
    with django_capture_on_commit_callbacks(execute=True):
        call_command("set_campaign_status", str(campaign.pk), "close", stdout=StringIO())
    assert prolific_fake.studies[external]["status"] in ("AWAITING REVIEW", "COMPLETED")


def test_more_assignments_everywhere_become_places_in_one_update(prolific_fake, campaign, researcher_client,
                                                                 django_capture_on_commit_callbacks):
    external = study_of(campaign).external_id
    assert prolific_fake.studies[external]["total_available_places"] == 3
    with django_capture_on_commit_callbacks(execute=True):
        researcher_client.post(reverse("campaign-page-add-assignments", args=[campaign.pk]), {"count": "2"})
    assert set(HIT.objects.filter(campaign=campaign).values_list("max_assignments", flat=True)) == {3}
    assert prolific_fake.studies[external]["total_available_places"] == 9  # 18 slots in bundles of 2
    assert len(prolific_fake.received("PATCH", f"studies/{external}/")) == 1
    with django_capture_on_commit_callbacks(execute=True):
        call_command("add_assignments", "1", "--campaign", campaign.name, stdout=StringIO())
    assert prolific_fake.studies[external]["total_available_places"] == 12


def test_more_assignments_are_refused_past_the_budget_cap(prolific_fake, campaign, api):
    campaign.budget_cap = study_of(campaign).campaign.reward * 20
    campaign.save(update_fields=["budget_cap"])
    response = api.post(f"/api/campaigns/{campaign.pk}/add-assignments/", {"count": 50}, format="json")
    assert response.status_code == 400 and "budget cap" in response.json()["detail"]
    assert set(HIT.objects.filter(campaign=campaign).values_list("max_assignments", flat=True)) == {1}


def test_the_dry_run_shows_prolifics_fees_and_calls_only_the_calculator(prolific_fake):
    from decimal import Decimal

    from tests.factories import make_campaign

    draft = make_campaign(images=3, publish=False, assignments=2, provider="prolific", tasks_per_submission=2,
                          reward=Decimal("0.50"), qualifications={"estimated_minutes": 2})
    out = StringIO()
    call_command("publish_campaign", draft.name, "--dry-run", stdout=out)
    text = out.getvalue()
    assert "only Prolific's cost calculator is asked" in text
    assert "Prolific's fees and VAT, from its cost calculator" in text and "bundle of 2 task(s)" in text
    assert "participant_group_blocklist" in text
    assert {c.path for c in prolific_fake.calls} == {"study-cost-calculator"}
    assert prolific_fake.studies == {}


def test_pages_of_a_campaign_whose_fees_are_not_known_ask_prolific_nothing(prolific_fake, researcher_client, api):
    from decimal import Decimal

    from tests.factories import make_campaign

    draft = make_campaign(images=2, publish=False, assignments=1, provider="prolific", reward=Decimal("0.50"),
                          qualifications={"estimated_minutes": 2})
    dashboard = researcher_client.get(reverse("dashboard")).content.decode()
    page = researcher_client.get(reverse("campaign-page", args=[draft.pk])).content.decode()
    listed = api.get("/api/campaigns/").json()
    assert prolific_fake.calls == []  # not even the cost calculator
    assert "fees not known yet" in dashboard and "without the marketplace's fees" in page
    [entry] = [c for c in listed["results"] if c["id"] == draft.pk]
    assert entry["progress"]["fees_known"] is False and entry["progress"]["max_cost"] == "1.00"
    call_command("publish_campaign", draft.name, "--dry-run", stdout=StringIO())  # the dry run asks the calculator
    page = researcher_client.get(reverse("campaign-page", args=[draft.pk])).content.decode()
    assert "without the marketplace's fees" not in page  # now known (remembered by this process)
