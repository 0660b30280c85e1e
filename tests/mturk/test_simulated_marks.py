"""A simulated campaign (generated results, as the demo's) is marked "(simulated)" once on each page that names it
in a heading, from its flag: its name does not say it (the demo's names said it too, and showed it twice)."""
from __future__ import annotations

import re

import pytest
from django.urls import reverse

from mturk.models import Assignment, Campaign
from tests.factories import make_campaign, submitted

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("page", ["campaign-page", "campaign-review", "campaign-quality-page"])
def test_the_pages_of_a_simulated_campaign_say_so_once(researcher_client, page):
    campaign = make_campaign(images=1, assignments=1, name="Generated captions")
    Assignment.objects.filter(pk=submitted(campaign).pk).update(is_simulated=True)
    Campaign.objects.filter(pk=campaign.pk).update(is_simulated=True)
    body = researcher_client.get(reverse(page, args=[campaign.pk])).content.decode()
    heading = re.search(r"<h1>(.*?)</h1>", body, re.S)
    assert heading is not None and heading.group(1).endswith("Generated captions <em>(simulated)</em>")


def test_a_real_campaign_is_not_marked(researcher_client):
    campaign = make_campaign(images=1, assignments=1, name="Collected captions")
    submitted(campaign)
    for page in ("campaign-page", "campaign-review", "campaign-quality-page"):
        assert "(simulated)" not in researcher_client.get(reverse(page, args=[campaign.pk])).content.decode()


def test_a_simulated_campaign_costs_nothing_on_its_page(researcher_client):
    campaign = make_campaign(images=1, assignments=1, name="Generated captions")
    Assignment.objects.filter(pk=submitted(campaign).pk).update(is_simulated=True)
    Campaign.objects.filter(pk=campaign.pk).update(is_simulated=True)
    body = researcher_client.get(reverse("campaign-page", args=[campaign.pk])).content.decode()
    assert "<dt>Cost</dt><dd>none: the results were generated, no one was paid</dd>" in body
