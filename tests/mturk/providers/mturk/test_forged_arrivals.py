"""Forged MTurk iframe arrivals: `workerId` and `assignmentId` in the task URL are signed by no one.

A visitor who knows a worker's id and a HIT's ExternalURL can open the page as that worker with a
made-up assignment id. Whatever they do, the real worker's own arrival, submission and hand-off win,
and what the sync, payment, qualifications and dataset see is the real worker's work only."""
from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.db.models import QuerySet

from annotation.models import Description
from mturk.models import Assignment, Campaign, QualificationGrant, Worker
from mturk.providers.registry import get_provider
from mturk.selectors.campaigns import campaign_assignments, campaigns_with_progress
from mturk.services.participation import qualification_for
from mturk.services.review import ReviewError, approve_assignment, approve_submitted, grant_bonus
from mturk.states import AssignmentStatus
from mturk.work.services.marketplace_sync import sync_campaign
from tests.factories import GOOD_TEXT

from .builders import hits_of, json_answer, published_mturk_campaign, remote
from .helpers import iframe_link, page_token, qual_id, stub_assignments, stub_sync_listings

pytestmark = pytest.mark.django_db

VICTIM = "A2VICTIMWORKER"
REAL_ID = "3REALASSIGNMENT0000000000000001"
MADE_UP = "3MADEUP0000000000000000000001"
FORGED_TEXT = "An advertisement for a shop that sells cheap watches online today."


def arrive(client, hit, worker_id: str, assignment_id: str) -> str:
    response = client.get(iframe_link(hit, worker_id, assignment_id))
    assert response.status_code == 200, response.content.decode()[:500]
    return page_token(response)


def submit(client, token: str, text: str):
    return client.post("/task/submit/", data=json.dumps({"token": token, "answer": {"text": text}}),
                       content_type="application/json")


def of_victim(campaign: Campaign) -> QuerySet[Assignment]:
    return Assignment.objects.filter(hit__campaign=campaign, worker__external_id=VICTIM)


def test_a_forger_who_submits_first_never_pre_empts_the_real_worker(client, stub):
    campaign = published_mturk_campaign(images=1, assignments=1)
    [hit] = hits_of(campaign)

    forged = submit(client, arrive(client, hit, VICTIM, MADE_UP), FORGED_TEXT)
    assert forged.status_code == 201
    real = submit(client, arrive(client, hit, VICTIM, REAL_ID), GOOD_TEXT)

    body = real.json()
    assert (real.status_code, body["status"]) == (201, "stored")  # not "already_stored"
    assert body["answer"] == {"text": GOOD_TEXT}  # the page hands the victim's own answer to MTurk
    assert of_victim(campaign).get(external_id=REAL_ID).answer == {"text": GOOD_TEXT}

    stub_sync_listings(stub, [])
    stub_assignments(stub, hit, [remote(REAL_ID, VICTIM, hit, answer=json_answer(GOOD_TEXT))])
    sync_campaign(campaign)
    confirmed = of_victim(campaign).get(confirmed=True)
    assert (confirmed.external_id, confirmed.answer) == (REAL_ID, {"text": GOOD_TEXT})
    assert of_victim(campaign).get(confirmed=False).answer == {"text": FORGED_TEXT}


def test_only_confirmed_work_is_approved_paid_and_becomes_a_dataset_record(client, stub):
    campaign = published_mturk_campaign(images=1, assignments=1)
    [hit] = hits_of(campaign)
    submit(client, arrive(client, hit, VICTIM, MADE_UP), FORGED_TEXT)
    submit(client, arrive(client, hit, VICTIM, REAL_ID), GOOD_TEXT)
    forged = of_victim(campaign).get(external_id=MADE_UP)
    stub_sync_listings(stub, [])
    stub_assignments(stub, hit, [remote(REAL_ID, VICTIM, hit, answer=json_answer(GOOD_TEXT))])
    sync_campaign(campaign)
    stub.add_response("approve_assignment", {}, {"AssignmentId": REAL_ID})

    result = approve_submitted(campaign)

    assert result.approved == 1
    assert list(Description.objects.values_list("text", flat=True)) == [GOOD_TEXT]
    with pytest.raises(ReviewError, match="not been reported by the marketplace"):
        approve_assignment(forged)
    with pytest.raises(ReviewError, match="not been reported by the marketplace"):
        grant_bonus(forged, Decimal("0.50"), "thanks")
    assert [a.external_id for a in campaign_assignments(campaign)] == [REAL_ID]
    forged.refresh_from_db()
    assert forged.status == AssignmentStatus.SUBMITTED


def test_fifty_forged_worker_ids_on_a_one_assignment_hit_count_for_nothing(client, stub, settings):
    settings.ARRIVAL_RATE = "100/m"  # from many addresses, say: the rate limit is tested below
    campaign = published_mturk_campaign(images=1, assignments=1)
    [hit] = hits_of(campaign)
    for n in range(50):
        submit(client, arrive(client, hit, f"A{n:02d}FORGED", f"3FORGED{n:023d}"), FORGED_TEXT)

    progress = campaigns_with_progress().get(pk=campaign.pk)
    assert (progress.answered, progress.pending_review, progress.in_progress, progress.unconfirmed) == (0, 0, 0, 50)
    real = submit(client, arrive(client, hit, VICTIM, REAL_ID), GOOD_TEXT)  # the HIT is not "full"
    assert real.json()["status"] == "stored"
    assert not campaign_assignments(campaign).exists()


def test_the_campaign_page_counts_unconfirmed_visits_apart(client, researcher_client, stub):
    campaign = published_mturk_campaign(images=1, assignments=1)
    [hit] = hits_of(campaign)
    submit(client, arrive(client, hit, VICTIM, MADE_UP), FORGED_TEXT)

    html = researcher_client.get(f"/campaigns/{campaign.pk}/").content.decode()

    assert "0 / 1 submitted (0 to review, 0 approved, 0 rejected, 0 in progress)" in html
    assert "1 page visit(s) the marketplace has not confirmed (not counted)" in html
    assert FORGED_TEXT not in html


def test_a_forged_submission_never_locks_the_real_worker_out(client, stub):
    campaign = published_mturk_campaign(images=2, assignments=3, max_assignments_per_worker=1)
    first, second = hits_of(campaign)
    submit(client, arrive(client, first, VICTIM, MADE_UP), FORGED_TEXT)

    response = client.get(iframe_link(second, VICTIM, REAL_ID))

    assert response.status_code == 200 and "data-token=" in response.content.decode()
    assert not QualificationGrant.objects.exists()  # no "took part" qualification for a forged submission
    assert not Worker.objects.get(external_id=VICTIM).blocked


def test_the_participation_qualification_is_earned_when_the_marketplace_reports_the_submission(
        client, stub, django_capture_on_commit_callbacks):
    campaign = published_mturk_campaign(images=1, assignments=3, max_assignments_per_worker=1)
    [hit] = hits_of(campaign)
    stub.add_response("create_qualification_type", {"QualificationType": {"QualificationTypeId": qual_id(1)}})
    qualification_for(f"campaign:{campaign.pk}", get_provider("mturk"), False)
    submit(client, arrive(client, hit, VICTIM, REAL_ID), GOOD_TEXT)
    assert not QualificationGrant.objects.exists()  # the page visit alone earns nothing

    stub_sync_listings(stub, [])
    stub_assignments(stub, hit, [remote(REAL_ID, VICTIM, hit, answer=json_answer(GOOD_TEXT))])
    stub.add_response("associate_qualification_with_worker", {}, {
        "QualificationTypeId": qual_id(1), "WorkerId": VICTIM, "IntegerValue": 1, "SendNotification": False})
    with django_capture_on_commit_callbacks(execute=True):
        sync_campaign(campaign)

    grant = QualificationGrant.objects.select_related("worker").get()
    assert (grant.worker.external_id, grant.granted) == (VICTIM, True)


def test_arrivals_from_one_client_are_rate_limited_and_a_refused_one_stores_nothing(client, stub, settings):
    settings.ARRIVAL_RATE = "3/m"
    campaign = published_mturk_campaign(images=1, assignments=1)
    [hit] = hits_of(campaign)
    for n in range(3):
        arrive(client, hit, f"A{n:02d}FORGED", f"3FORGED{n:023d}")

    refused = client.get(iframe_link(hit, VICTIM, REAL_ID))

    assert refused.status_code == 429
    assert refused["Retry-After"] == "60"
    assert "try again" in refused.content.decode()
    assert not of_victim(campaign).exists() and not Worker.objects.filter(external_id=VICTIM).exists()
    preview = client.get(iframe_link(hit, VICTIM, "ASSIGNMENT_ID_NOT_AVAILABLE"))
    assert preview.status_code == 200  # previews take nothing and are not counted
