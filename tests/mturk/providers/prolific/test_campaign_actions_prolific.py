"""The confirmation steps of a prolific campaign's page actions: Prolific's fees are asked for only when the
researcher presses the button; closing says the study is stopped; expiring is not offered (and why)."""
from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from mturk.selectors.publication import preview_publication
from tests.factories import make_campaign

from .study_helpers import published_campaign

pytestmark = pytest.mark.django_db


def step(client, name: str, campaign, params: dict | None = None) -> str:
    response = client.get(reverse(name, args=[campaign.pk]), params or {})
    assert response.status_code == 200
    return response.content.decode()


def test_publish_asks_prolific_for_its_fees_only_on_the_button(prolific_fake, researcher_client):
    campaign = make_campaign(images=4, publish=False, assignments=1, provider="prolific", tasks_per_submission=2,
                             reward=Decimal("0.50"), qualifications={"estimated_minutes": 2})
    page = step(researcher_client, "campaign-page-publish", campaign)
    assert prolific_fake.received() == []
    assert "Prolific&#x27;s fees are not known until its cost calculator is asked" in page
    assert ">Ask Prolific's cost calculator</button>" in page
    assert '<input type="hidden" name="ask_fees" value="1">' in page
    assert "Publish for" not in page and 'method="post"' not in page.split('id="confirm-action"')[1]
    page = step(researcher_client, "campaign-page-publish", campaign, {"ask_fees": "1"})
    assert len(prolific_fake.received("POST", "study-cost-calculator/")) >= 1
    preview = preview_publication(campaign)
    assert preview.fee_per_assignment > 0
    assert f">Publish for {preview.within_budget.total}</button>" in page
    assert f'<dd data-estimate="fees">{preview.all_drafts.fees} ({preview.fee_per_assignment} per assignment)' in page
    assert "Amounts are in the currency of your Prolific account." in page
    assert "(production)" not in page.split("which may cost")[0]  # Prolific has no sandbox to tell apart
    assert campaign.hits.filter(status="draft").count() == 4
    run = researcher_client.get(reverse("campaign-page", args=[campaign.pk])).content.decode()
    assert 'name="environment"' not in run


def test_close_stops_the_study_and_expire_is_not_offered(prolific_fake, researcher_client,
                                                          django_capture_on_commit_callbacks):
    campaign = published_campaign(prolific_fake, images=2, assignments=1,
                                  django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    page = researcher_client.get(reverse("campaign-page", args=[campaign.pk])).content.decode()
    assert "Expire all HITs: on Prolific the whole study is the offer" in page
    assert f'action="{reverse("campaign-page-expire", args=[campaign.pk])}"' not in page
    calls = len(prolific_fake.received())
    page = step(researcher_client, "campaign-page-status", campaign)
    assert "Its Prolific study is stopped." in page and ">Close campaign for good</button>" in page
    page = step(researcher_client, "campaign-page-add-assignments", campaign, {"count": "2"})
    assert "(the study gets 4 more place(s))" in page
    assert len(prolific_fake.received()) == calls  # the study's fee share is known: no call
