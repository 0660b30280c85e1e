"""The researcher pages of marketplace campaigns: environment, HITs waiting to be created, the last
marketplace error, cost with fees, and the Sync / Approve passing / Expire / Delete decided / Message
forms. A page view never calls MTurk."""
from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from mturk.models import HIT, Assignment, Campaign
from tests.factories import make_campaign
from tests.queries import queries_for

from .builders import hits_of, mturk_campaign, published_mturk_campaign, remote, reported
from .helpers import (
    ANSWERED,
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


def page_of(client, campaign: Campaign) -> str:
    response = client.get(reverse("campaign-page", args=[campaign.pk]))
    assert response.status_code == 200
    return response.content.decode()


def post(client, name: str, campaign: Campaign, data: dict | None = None) -> str:
    """POST a campaign form; the page it redirects to (with the flash messages)."""
    response = client.post(reverse(name, args=[campaign.pk]), data or {}, follow=True)
    assert response.redirect_chain == [(reverse("campaign-page", args=[campaign.pk]), 302)]
    return response.content.decode()


def test_draft_page_shows_environment_cost_with_fees_and_forms_without_calling_mturk(researcher_client, stub):
    campaign = mturk_campaign(images=3, assignments=2, budget_cap=Decimal("0.50"))
    calls = record_calls(stub)
    page = page_of(researcher_client, campaign)
    assert calls == []
    assert '<dd id="environment">production (settled at the first publication)</dd>' in page
    assert 'name="environment" value="sandbox"' in page and 'value="production" checked' in page
    assert f'action="/campaigns/{campaign.pk}/publish/"' in page  # the page's route, not the API's
    assert '<dd id="pending-creation">0</dd>' in page
    assert '<dd id="marketplace-error">none</dd>' in page
    assert "$0.12 per assignment (reward $0.10 + fee $0.02); MTurk charges 20% of the reward" in page
    assert ("3 draft HIT(s): $0.72 with fees (rewards $0.60 + fees $0.12); the budget cap lets 2 through ($0.48), "
            "1 would stay in draft") in page
    assert "publish-problem" not in page
    assert f'action="{reverse("campaign-page-sync", args=[campaign.pk])}"' in page and "Sync now" in page
    # approving is offered (in the danger zone, after a confirmation) only when work waits for review
    assert f'action="{reverse("campaign-approve-all", args=[campaign.pk])}"' not in page
    for name in ("campaign-page-expire", "campaign-page-delete-decided"):  # a draft has nothing on offer yet
        assert f'action="{reverse(name, args=[campaign.pk])}"' not in page
    assert f'action="{reverse("campaign-page-message", args=[campaign.pk])}"' in page
    assert 'name="subject"' in page and 'name="text"' in page
    assert "balance" not in page.lower()


def test_live_page_shows_sandbox_pending_hits_and_the_last_error_escaped(researcher_client, sandbox_stub):
    campaign = published_mturk_campaign(images=3)
    HIT.objects.filter(pk__in=[h.pk for h in hits_of(campaign)[1:]]).update(external_id="")
    Campaign.objects.filter(pk=campaign.pk).update(sandbox=True,
                                                   marketplace_error="MTurk refused <CreateHIT>: no funds")
    calls = record_calls(sandbox_stub)
    page = page_of(researcher_client, campaign)
    assert calls == []
    assert '<dd id="environment">sandbox</dd>' in page
    assert "2 (a background job creates them on the marketplace)" in page
    assert "<strong>MTurk refused &lt;CreateHIT&gt;: no funds</strong>" in page
    assert 'name="environment"' not in page  # the environment is fixed once published
    for name, label in (("campaign-page-expire", "Expire all HITs"),
                        ("campaign-page-delete-decided", "Delete decided HITs")):
        assert f'action="{reverse(name, args=[campaign.pk])}" data-confirm' in page and label in page


def test_page_names_what_mturk_would_refuse(researcher_client, stub):
    campaign = mturk_campaign(images=1, auto_approval_delay_seconds=31 * 24 * 3600)
    page = page_of(researcher_client, campaign)
    assert ('<dd id="publish-problem"><strong>mturk: auto-approval delay is 2678400 s; MTurk allows 0 s to '
            "2592000 s</strong></dd>") in page


def test_local_campaign_page_has_no_marketplace_section(researcher_client):
    campaign = make_campaign(images=1)
    page = page_of(researcher_client, campaign)
    assert 'id="marketplace"' not in page and "Sync now" not in page


def test_publish_to_the_sandbox_from_the_page(researcher_client, sandbox_stub, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=1, assignments=2)
    (hit,) = hits_of(campaign)
    stub_publication(sandbox_stub, hit, 5, max_assignments=2)
    with django_capture_on_commit_callbacks(execute=True):
        page = post(researcher_client, "campaign-page-publish", campaign, {"environment": "sandbox"})
    assert "Published 1 HIT(s), cost up to $0.24." in page
    assert "queued" not in page  # without a broker the creation ran as the publication committed
    campaign.refresh_from_db()
    assert campaign.sandbox and campaign.hits.get().external_id == hit_id(5)
    assert '<dd id="environment">sandbox</dd>' in page_of(researcher_client, campaign)


def test_sync_now(researcher_client, stub):
    campaign = published_mturk_campaign(images=1)
    (hit,) = hits_of(campaign)
    stub_sync_listings(stub, [])
    stub.add_response("list_assignments_for_hit", {"Assignments": [remote("ASG1", "W1", hit, "Submitted")]},
                      {"HITId": hit_id(1), "MaxResults": 100, "AssignmentStatuses": ANSWERED})
    page = post(researcher_client, "campaign-page-sync", campaign)
    assert ("Synced 1 HIT(s) (0 more with nothing new): 1 new submission(s), 0 approved and 0 rejected on the "
            "marketplace, 0 returned, 0 HIT(s) expired, 0 approved by the campaign&#x27;s rules.") in page
    assert Assignment.objects.get().status == "submitted"
    stub_hit_list(stub)
    add_request_error(stub, "list_reviewable_hits", "Rate exceeded for this account.", "AWS.MechanicalTurk.Denied",
                      {"HITTypeId": type_id(1), "Status": "Reviewable", "MaxResults": 100})
    page = post(researcher_client, "campaign-page-sync", campaign)
    assert "Sync stopped: MTurk refused list_reviewable_hits: Rate exceeded for this account." in page


def test_approve_passing(researcher_client, stub):
    campaign = published_mturk_campaign(images=1)
    (hit,) = hits_of(campaign)
    good = reported(hit, "W1", "ASG1")
    flagged = reported(hit, "W2", "ASG2", flags=("repeated_words",))
    stub.add_response("approve_assignment", {}, {"AssignmentId": "ASG1"})
    page = post(researcher_client, "campaign-approve-all", campaign, {"passing": "1"})
    assert "1 assignment(s) approved. 1 flagged by the checks are left for you." in page
    assert dict(Assignment.objects.values_list("pk", "status")) == {good.pk: "approved", flagged.pk: "submitted"}


def test_expire_all_then_delete_decided(researcher_client, stub):
    campaign = published_mturk_campaign(images=2)
    first, second = hits_of(campaign)
    reported(second, "W1", "ASG1")
    stub.add_response("update_expiration_for_hit", {}, {"HITId": hit_id(1), "ExpireAt": EXPIRE_NOW})
    stub.add_response("update_expiration_for_hit", {}, {"HITId": hit_id(2), "ExpireAt": EXPIRE_NOW})
    page = post(researcher_client, "campaign-page-expire", campaign)
    assert "Expired 2 HIT(s). Workers who already accepted one may still submit until their deadline." in page
    stub.add_response("delete_hit", {}, {"HITId": hit_id(1)})
    page = post(researcher_client, "campaign-page-delete-decided", campaign)
    assert "Deleted 1 HIT(s) whose work is all decided. 1 kept (work still undecided or in progress)." in page
    assert dict(campaign.hits.values_list("pk", "status")) == {first.pk: "disposed", second.pk: "expired"}


def test_expire_refused_is_shown(researcher_client, stub):
    campaign = published_mturk_campaign(images=1)
    add_request_error(stub, "update_expiration_for_hit", "Hit does not exist.", "AWS.MechanicalTurk.HITDoesNotExist",
                      {"HITId": hit_id(1), "ExpireAt": EXPIRE_NOW})
    page = post(researcher_client, "campaign-page-expire", campaign)
    assert "Expiring stopped: MTurk refused update_expiration_for_hit: Hit does not exist." in page
    assert campaign.hits.get().status == "published"


def test_message_workers(researcher_client, stub):
    campaign = published_mturk_campaign(images=1)
    (hit,) = hits_of(campaign)
    reported(hit, "W1", "ASG1")
    reported(hit, "W2", "ASG2")
    stub.add_response("notify_workers", {"NotifyWorkersFailureStatuses": [
        {"NotifyWorkersFailureCode": "SoftFailure", "NotifyWorkersFailureMessage": "Try later", "WorkerId": "W1"}]},
        {"Subject": "Bonus round", "MessageText": "New images are up.", "WorkerIds": ["W1", "W2"]})
    page = post(researcher_client, "campaign-page-message", campaign, {"subject": "Bonus round",
                                                                  "text": "New images are up."})
    assert "The message did not reach 1 worker(s): W1" in page
    calls = record_calls(stub)
    page = post(researcher_client, "campaign-page-message", campaign, {"subject": "", "text": "New images are up."})
    assert "Message not sent: A message needs a subject and a text." in page
    assert calls == []


def test_new_forms_need_a_staff_login(client, stub):
    campaign = published_mturk_campaign(images=1)
    calls = record_calls(stub)
    for name in ("campaign-page-sync", "campaign-page-expire", "campaign-page-delete-decided", "campaign-page-message"):
        response = client.post(reverse(name, args=[campaign.pk]), {"subject": "s", "text": "t"})
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
        assert client.get(reverse(name, args=[campaign.pk])).status_code in (302, 405)
    assert calls == [] and campaign.hits.get().status == "published"


def test_marketplace_page_queries_do_not_grow_and_never_call_mturk(researcher_client, stub):
    campaign = published_mturk_campaign(images=12, assignments=3)
    hits = hits_of(campaign)
    reported(hits[0], "W0", "ASG0")
    calls = record_calls(stub)
    url = reverse("campaign-page", args=[campaign.pk])
    few = queries_for(researcher_client, url)
    for n in range(1, 21):
        reported(hits[n % 12], f"W{n}", f"ASG{n}")
    many = queries_for(researcher_client, url)
    assert few == many and calls == []


def test_dashboard_marks_sandbox_pending_and_failing_campaigns_in_constant_queries(researcher_client, stub):
    make_campaign(images=1)
    few = queries_for(researcher_client, reverse("dashboard"))
    sandboxed = make_campaign(images=2, provider="mturk", name="In the sandbox")  # published, creation queued
    Campaign.objects.filter(pk=sandboxed.pk).update(sandbox=True, marketplace_error="MTurk refused: no funds")
    for _ in range(3):
        make_campaign(images=2, provider="mturk")
    calls = record_calls(stub)
    many = queries_for(researcher_client, reverse("dashboard"))
    assert few == many <= 6 and calls == []
    page = researcher_client.get(reverse("dashboard")).content.decode()
    assert "mturk (sandbox)<br><small>2 HIT(s) waiting to be created</small>" in page
    assert '<small class="error" title="MTurk refused: no funds">marketplace error</small>' in page
