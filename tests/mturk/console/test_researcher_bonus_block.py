"""Bonus and block/unblock forms on the review page (local provider)."""
from decimal import Decimal

import pytest
from django.urls import reverse

from mturk.models import Bonus
from tests.factories import make_campaign, submitted

pytestmark = pytest.mark.django_db


def bonus_url(assignment):
    return reverse("campaign-assignment-bonus", args=[assignment.hit.campaign_id, assignment.pk])


def block_url(campaign, worker):
    return reverse("campaign-worker-block", args=[campaign.pk, worker.pk])


def test_forms_appear_for_a_submitted_assignment(researcher_client):
    campaign = make_campaign(images=1)
    assignment = submitted(campaign)
    page = researcher_client.get(reverse("campaign-review", args=[campaign.pk])).content.decode()
    assert bonus_url(assignment) == f"/campaigns/{campaign.pk}/assignments/{assignment.pk}/bonus/"  # not the API's
    assert f'action="{bonus_url(assignment)}"' in page
    assert f'action="{block_url(campaign, assignment.worker)}"' in page
    assert "Block worker" in page and "Unblock" not in page


def test_bonus_is_paid_and_shown(researcher_client):
    campaign = make_campaign(images=1)
    assignment = submitted(campaign)
    response = researcher_client.post(bonus_url(assignment), {"amount": "0.25", "reason": "Great detail"},
                                      follow=True)
    assert response.redirect_chain[-1][0] == reverse("campaign-page", args=[campaign.pk])
    assert f"Bonus of $0.25 for assignment {assignment.pk} paid." in response.content.decode()
    bonus = Bonus.objects.get()
    assert (bonus.assignment_id, bonus.amount, bonus.reason, bonus.paid) == (
        assignment.pk, Decimal("0.25"), "Great detail", True)


@pytest.mark.parametrize(("amount", "reason", "error"), [
    ("abc", "Great detail", "bonus amount must be a number"),
    ("0.001", "Great detail", "bonus amount must be a number"),
    ("NaN", "Great detail", "bonus amount must be a number"),
    ("-1", "Great detail", "A bonus must be positive."),
    ("0.25", "   ", "A bonus needs a reason"),
])
def test_bad_bonus_is_refused_and_nothing_stored(researcher_client, amount, reason, error):
    campaign = make_campaign(images=1)
    assignment = submitted(campaign)
    response = researcher_client.post(bonus_url(assignment), {"amount": amount, "reason": reason}, follow=True)
    assert error in response.content.decode()
    assert not Bonus.objects.exists()


def test_block_then_unblock(researcher_client):
    campaign = make_campaign(images=1)
    assignment = submitted(campaign)
    worker = assignment.worker
    response = researcher_client.post(block_url(campaign, worker), {"reason": ""}, follow=True)
    assert "Blocking a worker needs a reason." in response.content.decode()
    worker.refresh_from_db()
    assert not worker.blocked
    review = reverse("campaign-review", args=[campaign.pk])
    response = researcher_client.post(block_url(campaign, worker),
                                      {"action": "block", "reason": "Copy-pasted", "next": review}, follow=True)
    assert response.redirect_chain[-1][0] == review  # back to the review page the form was on
    page = response.content.decode()
    assert f"Worker {worker.external_id} blocked." in page and f"Unblock worker {worker.external_id}" in page
    worker.refresh_from_db()
    assert (worker.blocked, worker.block_reason) == (True, "Copy-pasted")
    response = researcher_client.post(block_url(campaign, worker), {"action": "unblock"}, follow=True)
    assert f"Worker {worker.external_id} unblocked." in response.content.decode()
    worker.refresh_from_db()
    assert (worker.blocked, worker.block_reason) == (False, "")


def test_worker_of_another_campaign_is_not_found(researcher_client):
    campaign, other = make_campaign(images=1), make_campaign(images=1)
    submitted(campaign)
    stranger = submitted(other).worker
    response = researcher_client.post(block_url(campaign, stranger), {"reason": "Copy-pasted"})
    assert response.status_code == 404
    stranger.refresh_from_db()
    assert not stranger.blocked
    foreign = submitted(other)
    response = researcher_client.post(reverse("campaign-assignment-bonus", args=[campaign.pk, foreign.pk]),
                                      {"amount": "0.25", "reason": "Great detail"})
    assert response.status_code == 404
    assert not Bonus.objects.exists()


def test_anonymous_user_is_sent_to_login(client):
    campaign = make_campaign(images=1)
    assignment = submitted(campaign)
    for url, data in ((bonus_url(assignment), {"amount": "0.25", "reason": "Great detail"}),
                      (block_url(campaign, assignment.worker), {"reason": "Copy-pasted"})):
        response = client.post(url, data)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assignment.worker.refresh_from_db()
    assert not assignment.worker.blocked and not Bonus.objects.exists()
