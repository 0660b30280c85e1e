"""The confirmation steps of an MTurk campaign's page actions: the cost with MTurk's fees, the fee tier a HIT
enters at 10 assignments, what deleting decided HITs does; a confirmation never calls MTurk."""
from __future__ import annotations

import pytest
from django.urls import reverse

from mturk.models import HIT, Campaign

from .builders import hits_of, mturk_campaign, published_mturk_campaign
from .helpers import record_calls

pytestmark = pytest.mark.django_db


def step(client, name: str, campaign: Campaign, params: dict | None = None) -> str:
    response = client.get(reverse(name, args=[campaign.pk]), params or {})
    assert response.status_code == 200
    return response.content.decode()


def test_publish_confirmation_keeps_the_chosen_environment_and_shows_mturk_fees(researcher_client, stub):
    campaign = mturk_campaign(images=3, assignments=2)
    calls = record_calls(stub)
    page = step(researcher_client, "campaign-page-publish", campaign, {"environment": "sandbox"})
    assert calls == []
    assert '<input type="hidden" name="environment" value="sandbox">' in page
    assert "3 HIT(s) are offered to workers on MTurk (sandbox), which may cost up to $0.72 with fees." in page
    assert '<dd data-estimate="fees">$0.12 ($0.02 per assignment)</dd>' in page
    assert "MTurk charges 20% of the reward" in page
    assert ">Publish for $0.72</button>" in page


def test_add_assignments_warns_about_the_fee_tier_and_offers_to_try_anyway(researcher_client, stub):
    campaign = published_mturk_campaign(images=2, assignments=8)
    calls = record_calls(stub)
    page = step(researcher_client, "campaign-page-add-assignments", campaign, {"count": "3"})
    assert calls == []
    # per HIT: 11 × ($0.10 + 40%) − 8 × ($0.10 + 20%) = $1.54 − $0.96; two HITs
    assert "<dt>Extra cost with fees</dt><dd>$1.16</dd>" in page
    assert "2 HIT(s) would reach 10 or more assignments: the fee per assignment rises" in page
    assert '<input type="checkbox" name="confirm_fee_increase" value="1"> Try anyway, with the higher fee' in page
    assert set(HIT.objects.filter(campaign=campaign).values_list("max_assignments", flat=True)) == {8}


def test_delete_decided_confirmation_says_it_cannot_be_undone(researcher_client, stub):
    campaign = published_mturk_campaign(images=2)
    first, _ = hits_of(campaign)
    HIT.objects.filter(pk=first.pk).update(status="expired")
    calls = record_calls(stub)
    page = step(researcher_client, "campaign-page-delete-decided", campaign)
    assert calls == []
    assert "Of the 1 expired HIT(s), those whose work is all decided are deleted from the marketplace" in page
    assert "this cannot be undone" in page and ">Delete decided HITs</button>" in page
    assert first.status == "published" and HIT.objects.get(pk=first.pk).status == "expired"


def test_a_closed_campaigns_hits_can_still_be_expired_on_mturk(researcher_client, stub):
    campaign = published_mturk_campaign(images=1)
    Campaign.objects.filter(pk=campaign.pk).update(status="closed")
    page = researcher_client.get(reverse("campaign-page", args=[campaign.pk])).content.decode()
    assert f'action="{reverse("campaign-page-expire", args=[campaign.pk])}" data-confirm' in page
    assert "1 published HIT(s) are taken off offer now." in step(researcher_client, "campaign-page-expire", campaign)
