"""The MTurk side of the REST API: campaign fields, estimate, publish to the sandbox, sync, expire, delete,
notify, HIT extend / add assignments / delete, the account balance. MTurk requests are stubbed exactly."""
from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from mturk.models import HIT, Assignment, Campaign
from tests.factories import make_campaign, make_image
from tests.queries import queries_for

from .builders import hits_of, json_answer, mturk_campaign, published_mturk_campaign, remote, reported, state
from .helpers import (
    ANSWERED,
    EXPIRATION,
    EXPIRE_NOW,
    add_request_error,
    hit_id,
    record_calls,
    stub_hit_list,
    stub_publication,
    stub_sync_listings,
    type_id,
)

pytestmark = pytest.mark.django_db
NOTE = "Workers who already accepted a HIT may still submit until their assignment deadline."


def hit_state() -> list[tuple]:
    return sorted(HIT.objects.values_list("pk", "status", "external_id", "max_assignments", "expires_at"))


# ---- campaigns: fields, list -----------------------------------------------------------------------

def test_create_with_marketplace_fields_and_read_them_back(api):
    image = make_image()
    response = api.post("/api/campaigns/", {
        "name": "turk", "task_kind": "describe_image", "provider": "mturk", "items": [{"image": image.pk}],
        "keywords": "image, caption", "lifetime_seconds": 86400, "auto_approval_delay_seconds": 3600,
        "qualifications": {"approval_rate_min": 95, "locales": ["US"]}, "auto_approve_passing": True,
    }, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert {k: body[k] for k in ("provider", "keywords", "lifetime_seconds", "auto_approval_delay_seconds",
                                 "qualifications", "auto_approve_passing", "sandbox", "marketplace_error",
                                 "pending_creation", "hit_count")} == {
        "provider": "mturk", "keywords": "image, caption", "lifetime_seconds": 86400,
        "auto_approval_delay_seconds": 3600, "qualifications": {"approval_rate_min": 95, "locales": ["US"]},
        "auto_approve_passing": True, "sandbox": False, "marketplace_error": "", "pending_creation": 0,
        "hit_count": 1}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"qualifications": {"approval_rate_min": 101}}, "approval_rate_min must be a whole number from 0 to 100"),
        ({"qualifications": {"colour": "red"}}, "unknown qualification(s): colour"),
    ],
)
def test_bad_qualifications_get_400_with_the_reason(api, extra, message):
    response = api.post("/api/campaigns/", {"name": "x", "task_kind": "describe_image", "provider": "mturk",
                                            **extra}, format="json")
    assert response.status_code == 400 and message in response.json()["detail"]
    assert not Campaign.objects.exists()


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"lifetime_seconds": 10}, "lifetime_seconds"),
        ({"auto_approval_delay_seconds": 31 * 24 * 3600}, "auto_approval_delay_seconds"),
        ({"keywords": "k" * 1001}, "keywords"),
        ({"qualifications": ["US"]}, "qualifications"),
        ({"auto_approve_passing": "perhaps"}, "auto_approve_passing"),
    ],
)
def test_bad_marketplace_fields_get_400(api, extra, field):
    response = api.post("/api/campaigns/", {"name": "x", "task_kind": "describe_image", "provider": "mturk",
                                            **extra}, format="json")
    assert response.status_code == 400 and field in response.json()
    assert not Campaign.objects.exists()


def test_campaign_list_shows_pending_creation_in_constant_queries(api, stub):
    calls = record_calls(stub)
    make_campaign(images=1)  # local: published HITs are never "waiting to be created"
    make_campaign(images=1, provider="mturk")
    few = queries_for(api, "/api/campaigns/")
    for _ in range(4):
        make_campaign(images=3, provider="mturk")  # published; their creation job has not run
        make_campaign(images=2, provider="mturk", publish=False)
    many = queries_for(api, "/api/campaigns/")
    assert few == many
    rows = api.get("/api/campaigns/").json()["results"]
    pending = sorted((row["provider"], row["status"], row["pending_creation"]) for row in rows)
    assert pending == sorted([("local", "active", 0), ("mturk", "active", 1)] + [("mturk", "active", 3)] * 4
                             + [("mturk", "draft", 0)] * 4)
    assert calls == []


# ---- estimate ----------------------------------------------------------------------------------------

def test_estimate_gives_the_cost_with_fees_the_budget_and_requirements(api, stub):
    campaign = mturk_campaign(images=3, assignments=2, budget_cap=Decimal("0.50"),
                              qualifications={"approval_rate_min": 95})
    before = state(campaign)
    calls = record_calls(stub)
    with CaptureQueriesContext(connection) as queries:
        response = api.get(f"/api/campaigns/{campaign.pk}/estimate/")
    assert response.status_code == 200
    assert response.json() == {
        "provider": "mturk", "environment": "production", "sandbox": False, "draft_hits": 3,
        "all_drafts": {"hits": 3, "assignments": 6, "rewards": "0.60", "fees": "0.12", "total": "0.72"},
        "within_budget": {"hits": 2, "assignments": 4, "rewards": "0.40", "fees": "0.08", "total": "0.48"},
        "fee_per_assignment": "0.02",
        "fee_rule": "MTurk charges 20% of the reward (40% on HITs with 10 or more assignments), +5% with Masters, "
                    "at least $0.01 per assignment",
        "budget_cap": "0.50", "committed": "0.00", "stopped_by_budget": True, "left_in_draft": 1,
        "requirements": [{"QualificationTypeId": "000000000000000000L0", "Comparator": "GreaterThanOrEqualTo",
                          "IntegerValues": [95], "ActionsGuarded": "Accept"}],
        "participation": [],
        "error": None,
    }
    assert calls == [] and state(campaign) == before
    assert not [q for q in queries.captured_queries if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE",
                                                                                                "DELETE"))]


def test_estimate_in_the_sandbox_and_its_refusals(api, sandbox_stub):
    campaign = mturk_campaign(images=1, assignments=10, auto_approval_delay_seconds=31 * 24 * 3600)
    body = api.get(f"/api/campaigns/{campaign.pk}/estimate/?sandbox=1").json()
    assert (body["environment"], body["fee_per_assignment"], body["within_budget"]["total"]) == (
        "sandbox", "0.04", "1.40")  # 40% on HITs of 10 or more assignments
    assert body["requirements"] is None
    assert body["error"] == "mturk: auto-approval delay is 2678400 s; MTurk allows 0 s to 2592000 s"
    bad = api.get(f"/api/campaigns/{campaign.pk}/estimate/?sandbox=maybe")
    assert bad.status_code == 400 and "'maybe' is not a boolean" in bad.json()["sandbox"]
    unknown = api.get(f"/api/campaigns/{campaign.pk}/estimate/?provider=nowhere")
    assert unknown.status_code == 400 and "unknown provider 'nowhere'" in unknown.json()["detail"]


# ---- publish -------------------------------------------------------------------------------------------

def test_publish_to_the_sandbox_queues_the_creation(api, sandbox_stub, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=1, assignments=2)
    (hit,) = hits_of(campaign)
    stub_publication(sandbox_stub, hit, 3, max_assignments=2)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/campaigns/{campaign.pk}/publish/", {"sandbox": True}, format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["published"], body["queued"], body["sandbox"], body["status"], body["pending_creation"]) == (
        1, False, True, "active", 1)  # in-process (no broker): not queued; here the body is built before it ran
    assert body["cost"] == {"assignments": 2, "rewards": "0.20", "fees": "0.04", "total": "0.24"}
    after = api.get(f"/api/campaigns/{campaign.pk}/").json()
    assert (after["pending_creation"], after["marketplace_error"]) == (0, "")
    assert HIT.objects.get().external_id == hit_id(3)


def test_publish_refuses_to_move_a_campaign_between_environments(api, stub):
    campaign = published_mturk_campaign(images=1)
    response = api.post(f"/api/campaigns/{campaign.pk}/publish/", {"sandbox": True}, format="json")
    assert response.status_code == 400
    assert response.json()["detail"] == f"campaign '{campaign.name}' is already published in production"
    bad = api.post(f"/api/campaigns/{campaign.pk}/publish/", {"sandbox": "maybe"}, format="json")
    assert bad.status_code == 400 and "sandbox" in bad.json()


# ---- sync ----------------------------------------------------------------------------------------------

def test_sync_now_returns_the_report(api, stub):
    campaign = published_mturk_campaign(images=1)
    (hit,) = hits_of(campaign)
    stub_sync_listings(stub, [])
    stub.add_response("list_assignments_for_hit", {"Assignments": [
        remote("ASG1", "W1", hit, "Submitted"),
        remote("ASG2", "W2", hit, "Rejected", answer=json_answer("dog dog dog dog dog dog dog dog dog dog"))]},
        {"HITId": hit_id(1), "MaxResults": 100, "AssignmentStatuses": ANSWERED})
    response = api.post(f"/api/campaigns/{campaign.pk}/sync/")
    assert response.status_code == 200
    assert response.json() == {"hits_checked": 1, "hits_unchanged": 0, "new_submissions": 2, "approved_elsewhere": 0,
                               "rejected_elsewhere": 1, "returned": 0, "expired_hits": 0, "created_hits": 0,
                               "auto_approved_by_rules": 0, "flagged": []}


def test_sync_failure_is_a_502_with_mturks_message(api, stub):
    campaign = published_mturk_campaign(images=1)
    stub_hit_list(stub)
    add_request_error(stub, "list_reviewable_hits", "You are not authorized.", "AWS.NotAuthorized",
                      {"HITTypeId": type_id(1), "Status": "Reviewable", "MaxResults": 100})
    response = api.post(f"/api/campaigns/{campaign.pk}/sync/")
    assert response.status_code == 502
    assert response.json() == {"detail": "MTurk refused list_reviewable_hits: You are not authorized."}


# ---- expire, delete decided ----------------------------------------------------------------------------

def test_expire_then_delete_decided(api, stub):
    campaign = published_mturk_campaign(images=2)
    first, second = hits_of(campaign)
    reported(second, "W1", "ASG1")
    stub.add_response("update_expiration_for_hit", {}, {"HITId": hit_id(1), "ExpireAt": EXPIRE_NOW})
    stub.add_response("update_expiration_for_hit", {}, {"HITId": hit_id(2), "ExpireAt": EXPIRE_NOW})
    response = api.post(f"/api/campaigns/{campaign.pk}/expire/")
    assert response.status_code == 200 and response.json() == {"expired": 2, "detail": NOTE}
    stub.add_response("delete_hit", {}, {"HITId": hit_id(1)})
    response = api.post(f"/api/campaigns/{campaign.pk}/delete-decided/")
    assert response.status_code == 200
    assert response.json() == {"deleted": 1, "skipped": {
        str(second.pk): f"HIT {second.pk} still has 1 assignment(s) to decide or in progress."}}
    assert dict(campaign.hits.values_list("pk", "status")) == {first.pk: "disposed", second.pk: "expired"}


def test_expire_refused_by_mturk_is_a_400_and_changes_that_hit_nothing(api, stub):
    campaign = published_mturk_campaign(images=1)
    add_request_error(stub, "update_expiration_for_hit", "Hit does not exist.", "AWS.MechanicalTurk.HITDoesNotExist",
                      {"HITId": hit_id(1), "ExpireAt": EXPIRE_NOW})
    before = hit_state()
    response = api.post(f"/api/campaigns/{campaign.pk}/expire/")
    assert response.status_code == 400
    assert response.json() == {"detail": "MTurk refused update_expiration_for_hit: Hit does not exist."}
    assert hit_state() == before


# ---- notify ----------------------------------------------------------------------------------------------

def test_notify_workers_returns_the_ids_not_reached(api, stub):
    campaign = published_mturk_campaign(images=1)
    (hit,) = hits_of(campaign)
    reported(hit, "W1", "ASG1")
    reported(hit, "W2", "ASG2")
    stub.add_response("notify_workers", {"NotifyWorkersFailureStatuses": [
        {"NotifyWorkersFailureCode": "HardFailure", "NotifyWorkersFailureMessage": "Worker not found",
         "WorkerId": "W2"}]}, {"Subject": "New HITs", "MessageText": "More images tomorrow.",
                               "WorkerIds": ["W1", "W2"]})
    response = api.post(f"/api/campaigns/{campaign.pk}/notify/",
                        {"subject": " New HITs ", "text": "More images tomorrow."}, format="json")
    assert response.status_code == 200 and response.json() == {"failed": ["W2"]}
    stub.add_response("notify_workers", {"NotifyWorkersFailureStatuses": []},
                      {"Subject": "Thanks", "MessageText": "Great work.", "WorkerIds": ["W1"]})
    response = api.post(f"/api/campaigns/{campaign.pk}/notify/",
                        {"subject": "Thanks", "text": "Great work.", "worker_ids": ["W1"]}, format="json")
    assert response.json() == {"failed": []}


def test_notify_bad_input_is_a_400_and_calls_nothing(api, stub):
    campaign = published_mturk_campaign(images=1)
    reported(hits_of(campaign)[0], "W1", "ASG1")
    calls = record_calls(stub)
    url = f"/api/campaigns/{campaign.pk}/notify/"
    missing = api.post(url, {"subject": "Hi"}, format="json")
    assert missing.status_code == 400 and "text" in missing.json()
    stranger = api.post(url, {"subject": "Hi", "text": "Hello", "worker_ids": ["W1", "W9"]}, format="json")
    assert stranger.status_code == 400 and stranger.json() == {"detail": "Not workers of this campaign: W9"}
    long = api.post(url, {"subject": "s" * 201, "text": "Hello"}, format="json")
    assert long.status_code == 400 and "subject is 201 characters; MTurk allows at most 200" in long.json()["detail"]
    empty = api.post(url, {"subject": "Hi", "text": "Hello", "worker_ids": []}, format="json")
    assert empty.status_code == 400 and "worker_ids" in empty.json()
    assert calls == []


# ---- HITs: extend, add assignments, delete ----------------------------------------------------------------

def test_extend_a_hit(api, stub):
    campaign = published_mturk_campaign(images=1)
    (hit,) = hits_of(campaign)
    stub.add_response("update_expiration_for_hit", {},
                      {"HITId": hit_id(1), "ExpireAt": EXPIRATION + timedelta(hours=1)})
    response = api.post(f"/api/hits/{hit.pk}/extend/", {"seconds": 3600}, format="json")
    assert response.status_code == 200
    hit.refresh_from_db()
    assert hit.expires_at == EXPIRATION + timedelta(hours=1) and response.json()["status"] == "published"


@pytest.mark.parametrize(("payload", "message"), [({"seconds": 10}, "Extend by 60 seconds to 365 days."),
                                                   ({"seconds": "soon"}, "seconds"), ({}, "seconds")])
def test_extend_bad_input_is_a_400(api, stub, payload, message):
    campaign = published_mturk_campaign(images=1)
    before = hit_state()
    response = api.post(f"/api/hits/{hits_of(campaign)[0].pk}/extend/", payload, format="json")
    assert response.status_code == 400 and message in str(response.json())
    assert hit_state() == before


def test_add_assignments_and_the_fee_tier_confirmation(api, stub):
    campaign = published_mturk_campaign(images=1, assignments=8)
    (hit,) = hits_of(campaign)
    url = f"/api/hits/{hit.pk}/add-assignments/"
    stub.add_response("create_additional_assignments_for_hit", {},
                      {"HITId": hit_id(1), "NumberOfAdditionalAssignments": 1,
                       "UniqueRequestToken": f"t1-more-{hit.pk}-8-1"})
    assert api.post(url, {"count": 1}, format="json").json()["max_assignments"] == 9
    before = hit_state()
    refused = api.post(url, {"count": 2}, format="json")
    assert refused.status_code == 400
    assert refused.json()["detail"].startswith(f"HIT {hit.pk} would have 11 assignments: the fee per assignment "
                                               "rises from $0.02 to $0.04")
    assert hit_state() == before
    stub.add_response("create_additional_assignments_for_hit", {},
                      {"HITId": hit_id(1), "NumberOfAdditionalAssignments": 2,
                       "UniqueRequestToken": f"t1-more-{hit.pk}-9-2"})
    confirmed = api.post(url, {"count": 2, "confirm_fee_increase": True}, format="json")
    assert confirmed.status_code == 200 and confirmed.json()["max_assignments"] == 11
    zero = api.post(url, {"count": 0}, format="json")
    assert zero.status_code == 400 and zero.json() == {"detail": "Add 1 to 1000 assignments."}


def test_delete_a_hit(api, stub):
    campaign = published_mturk_campaign(images=2)
    first, second = hits_of(campaign)
    HIT.objects.filter(pk=first.pk).update(status="expired")
    stub.add_response("delete_hit", {}, {"HITId": hit_id(1)})
    response = api.post(f"/api/hits/{first.pk}/delete/")
    assert response.status_code == 200 and response.json()["status"] == "disposed"
    before = hit_state()
    on_offer = api.post(f"/api/hits/{second.pk}/delete/")
    assert on_offer.status_code == 400 and on_offer.json() == {
        "detail": f"HIT {second.pk} is still on offer; expire it first."}
    assert hit_state() == before
    assert api.delete(f"/api/hits/{second.pk}/").status_code == 405  # not the HTTP verb


# ---- review ------------------------------------------------------------------------------------------------

def test_approving_a_rejected_assignment_overrides_the_rejection(api, stub):
    campaign = published_mturk_campaign(images=1)
    assignment = reported(hits_of(campaign)[0], "W1", "ASG1")
    Assignment.objects.filter(pk=assignment.pk).update(status="rejected", feedback="too short")
    stub.add_response("approve_assignment", {}, {"AssignmentId": "ASG1", "RequesterFeedback": "Sorry, our mistake.",
                                                 "OverrideRejection": True})
    response = api.post(f"/api/assignments/{assignment.pk}/approve/", {"feedback": "Sorry, our mistake."},
                        format="json")
    assert response.status_code == 200 and response.json()["status"] == "approved"


# ---- balance -------------------------------------------------------------------------------------------------

def test_balance_of_production_and_the_sandbox(api, stub, sandbox_stub):
    stub.add_response("get_account_balance", {"AvailableBalance": "1234.50"}, {})
    assert api.get("/api/providers/mturk/balance/").json() == {"provider": "mturk", "sandbox": False,
                                                                "balance": "1234.50"}
    sandbox_stub.add_response("get_account_balance", {"AvailableBalance": "10000.00"}, {})
    assert api.get("/api/providers/mturk/balance/?sandbox=1").json() == {"provider": "mturk", "sandbox": True,
                                                                         "balance": "10000.00"}


def test_balance_errors(api, stub):
    local = api.get("/api/providers/local/balance/")
    assert local.status_code == 400 and local.json() == {"detail": "the local provider has no account, so no balance"}
    unknown = api.get("/api/providers/nowhere/balance/")
    assert unknown.status_code == 404 and "unknown provider 'nowhere'" in unknown.json()["detail"]
    assert api.get("/api/providers/mturk/balance/?sandbox=perhaps").status_code == 400
    add_request_error(stub, "get_account_balance", "Your account is suspended.", "AWS.MechanicalTurk.Suspended", {})
    failed = api.get("/api/providers/mturk/balance/")
    assert failed.status_code == 502
    assert failed.json() == {"detail": "MTurk refused get_account_balance: Your account is suspended."}


def test_balance_needs_a_staff_token(db):
    assert APIClient().get("/api/providers/mturk/balance/").status_code == 401
    user = get_user_model().objects.create_user("bob", password="pw-123456")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    assert client.get("/api/providers/mturk/balance/").status_code == 403


def test_schema_lists_the_new_endpoints(api):
    paths = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()["paths"]
    for path in ("/api/campaigns/{id}/estimate/", "/api/campaigns/{id}/sync/", "/api/campaigns/{id}/expire/",
                 "/api/campaigns/{id}/delete-decided/", "/api/campaigns/{id}/notify/", "/api/hits/{id}/extend/",
                 "/api/hits/{id}/add-assignments/", "/api/hits/{id}/delete/", "/api/providers/{name}/balance/"):
        assert path in paths, path
