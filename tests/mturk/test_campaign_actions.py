"""Running a campaign from its page (local crowd): each action that spends money or cannot be undone has a
confirmation step (GET: what will happen and the cost, nothing changed) whose form POSTs the action; the page
offers only what the campaign's status and provider allow; every action ends with a message."""
from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from mturk.models import Campaign
from mturk.services.campaigns import set_campaign_status
from mturk.states import CampaignStatus, HITStatus
from tests.factories import make_campaign
from tests.queries import queries_for

pytestmark = pytest.mark.django_db


def url(name: str, campaign: Campaign) -> str:
    return reverse(name, args=[campaign.pk])


def confirmation(client, name: str, campaign: Campaign, params: dict | None = None) -> str:
    response = client.get(url(name, campaign), params or {})
    assert response.status_code == 200
    return response.content.decode()


def post(client, name: str, campaign: Campaign, data: dict | None = None) -> str:
    """POST the action; the campaign page it redirects to, with its messages."""
    response = client.post(url(name, campaign), data or {}, follow=True)
    assert response.redirect_chain == [(url("campaign-page", campaign), 302)]
    return response.content.decode()


def page_of(client, campaign: Campaign) -> str:
    return client.get(url("campaign-page", campaign)).content.decode()


def status_of(campaign: Campaign) -> str:
    return Campaign.objects.get(pk=campaign.pk).status


def test_publish_confirmation_shows_the_cost_and_changes_nothing(researcher_client):
    campaign = make_campaign(images=3, assignments=2, publish=False)
    page = confirmation(researcher_client, "campaign-page-publish", campaign)
    assert '<dd data-estimate="draft-hits">3 HIT(s), 6 assignment(s)</dd>' in page
    assert '<dd data-estimate="total"><strong>$0.60</strong></dd>' in page
    assert '<dd data-estimate="fee-rule">no fee</dd>' in page
    assert "3 HIT(s) are offered to workers, which may cost up to $0.60 with fees." in page
    assert f'<form method="post" action="{url("campaign-page-publish", campaign)}">' in page
    assert ">Publish for $0.60</button>" in page
    assert f'href="{url("campaign-page", campaign)}" data-confirm-cancel>Cancel</a>' in page
    assert status_of(campaign) == CampaignStatus.DRAFT
    assert set(campaign.hits.values_list("status", flat=True)) == {HITStatus.DRAFT}


def test_publish_confirmation_names_what_the_budget_cap_lets_through(researcher_client):
    campaign = make_campaign(images=3, assignments=2, publish=False, budget_cap=Decimal("0.45"))
    page = confirmation(researcher_client, "campaign-page-publish", campaign)
    assert ("$0.45, of which $0.00 is already committed: it lets 2 HIT(s) through (<strong>$0.40</strong>), "
            "1 would stay in draft") in page
    assert ">Publish for $0.40</button>" in page


def test_publish_then_pause_then_resume_with_messages(researcher_client):
    campaign = make_campaign(images=2, assignments=1, publish=False)
    page = post(researcher_client, "campaign-page-publish", campaign)
    assert "Published 2 HIT(s), cost up to $0.20." in page
    assert status_of(campaign) == CampaignStatus.ACTIVE
    page = post(researcher_client, "campaign-page-status", campaign, {"action": "pause"})
    assert f"Campaign {campaign.name} is paused." in page
    assert ">Resume</button>" in page and ">Publish</button>" not in page and ">Pause</button>" not in page
    resume = confirmation(researcher_client, "campaign-page-publish", campaign)
    assert "Resume campaign" in resume and "resuming costs nothing more" in resume
    assert ">Resume</button>" in resume
    assert status_of(campaign) == CampaignStatus.PAUSED
    page = post(researcher_client, "campaign-page-publish", campaign)
    assert f"Campaign {campaign.name} resumed." in page and "Published 0" not in page
    assert status_of(campaign) == CampaignStatus.ACTIVE


def test_publish_refused_shows_an_error_and_no_confirm_button(researcher_client):
    campaign = make_campaign(images=1)
    set_campaign_status(campaign, CampaignStatus.CLOSED)
    page = confirmation(researcher_client, "campaign-page-publish", campaign)
    assert "Not possible now:" in page and "is closed" in page
    assert 'method="post"' not in page.split('id="confirm-action"')[1]
    page = post(researcher_client, "campaign-page-publish", campaign)
    assert f"campaign &#x27;{campaign.name}&#x27; is closed" in page
    assert status_of(campaign) == CampaignStatus.CLOSED


def test_close_confirms_that_it_cannot_be_undone(researcher_client):
    campaign = make_campaign(images=1)
    page = confirmation(researcher_client, "campaign-page-status", campaign)
    assert "cannot be published, paused or resumed again" in page
    assert '<input type="hidden" name="action" value="close">' in page
    assert ">Close campaign for good</button>" in page
    assert status_of(campaign) == CampaignStatus.ACTIVE
    page = post(researcher_client, "campaign-page-status", campaign, {"action": "close"})
    assert f"Campaign {campaign.name} is closed." in page
    assert status_of(campaign) == CampaignStatus.CLOSED
    assert ">Close</button>" not in page and "Add assignments" not in page


def test_unknown_status_action_is_an_error(researcher_client):
    campaign = make_campaign(images=1)
    page = post(researcher_client, "campaign-page-status", campaign, {"action": "open"})
    assert "Unknown campaign action." in page
    assert status_of(campaign) == CampaignStatus.ACTIVE


def test_add_assignments_confirmation_shows_the_extra_cost(researcher_client):
    campaign = make_campaign(images=3, assignments=1)
    page = confirmation(researcher_client, "campaign-page-add-assignments", campaign, {"count": "2"})
    # count × HITs × (reward + fee) = 2 × 3 × $0.10
    assert "Each of the 3 published HIT(s) takes 2 more worker(s): up to $0.60 more with fees." in page
    assert "<dt>Extra cost with fees</dt><dd>$0.60</dd>" in page
    assert '<input type="hidden" name="count" value="2">' in page and ">Add for $0.60</button>" in page
    assert set(campaign.hits.values_list("max_assignments", flat=True)) == {1}
    page = post(researcher_client, "campaign-page-add-assignments", campaign, {"count": "2"})
    assert "3 HIT(s) take 2 more assignment(s) each." in page
    assert set(campaign.hits.values_list("max_assignments", flat=True)) == {3}


def test_add_assignments_over_the_budget_or_badly_typed_is_refused(researcher_client):
    campaign = make_campaign(images=2, assignments=1, budget_cap=Decimal("0.30"))
    page = confirmation(researcher_client, "campaign-page-add-assignments", campaign, {"count": "1"})
    assert "Not possible now: $0.20 more would cross the budget cap of $0.30." in page
    assert "Add for" not in page
    page = confirmation(researcher_client, "campaign-page-add-assignments", campaign, {"count": "many"})
    assert "give how many assignments to add, a whole number from 1 to 1000" in page
    page = post(researcher_client, "campaign-page-add-assignments", campaign, {"count": "1"})
    assert "would cross the budget cap of 0.30" in page
    page = post(researcher_client, "campaign-page-add-assignments", campaign, {"count": "x"})
    assert "Give how many assignments to add, as a whole number." in page
    assert set(campaign.hits.values_list("max_assignments", flat=True)) == {1}


def test_local_campaign_can_expire_its_hits(researcher_client):
    campaign = make_campaign(images=2)
    page = page_of(researcher_client, campaign)
    assert f'action="{url("campaign-page-expire", campaign)}" data-confirm' in page
    assert "Delete decided HITs: the local crowd keeps no HIT of its own" in page  # why the action is absent
    assert f'action="{url("campaign-page-delete-decided", campaign)}"' not in page
    step = confirmation(researcher_client, "campaign-page-expire", campaign)
    assert "2 published HIT(s) are taken off offer now." in step and ">Expire 2 HIT(s)</button>" in step
    assert set(campaign.hits.values_list("status", flat=True)) == {HITStatus.PUBLISHED}
    page = post(researcher_client, "campaign-page-expire", campaign)
    assert "Expired 2 HIT(s)." in page
    assert set(campaign.hits.values_list("status", flat=True)) == {HITStatus.EXPIRED}
    step = confirmation(researcher_client, "campaign-page-expire", campaign)
    assert "Not possible now: the campaign has no published HIT to expire." in step


def test_the_page_offers_only_what_the_status_allows(researcher_client):
    draft = make_campaign(images=1, publish=False)
    page = page_of(researcher_client, draft)
    assert ">Publish</button>" in page
    for absent in (">Pause</button>", ">Close</button>", "Add assignments", "Expire all HITs"):
        assert absent not in page
    active = make_campaign(images=1)
    page = page_of(researcher_client, active)
    assert ">Publish</button>" not in page and ">Resume</button>" not in page
    for present in (">Pause</button>", ">Close</button>", ">Add assignments</button>", ">Expire all HITs</button>"):
        assert present in page
    # Actions spending money or that cannot be undone go through their confirmation step (a GET form).
    for name in ("campaign-page-publish", "campaign-page-add-assignments", "campaign-page-expire"):
        for form in page.split("<form")[1:]:
            if f'action="{url(name, active)}"' in form:
                assert 'method="get"' in form


def test_actions_need_a_researcher(client):
    campaign = make_campaign(images=1, publish=False)
    for name in ("campaign-page-publish", "campaign-page-status", "campaign-page-add-assignments",
                 "campaign-page-expire", "campaign-page-delete-decided"):
        assert client.get(url(name, campaign)).status_code == 302
        assert client.post(url(name, campaign)).status_code == 302
    assert status_of(campaign) == CampaignStatus.DRAFT


def test_publish_confirmation_queries_do_not_grow_with_the_hits(researcher_client):
    few = make_campaign(images=2, publish=False)
    many = make_campaign(images=20, publish=False)
    assert (queries_for(researcher_client, url("campaign-page-publish", few))
            == queries_for(researcher_client, url("campaign-page-publish", many)))
    few, many = make_campaign(images=2), make_campaign(images=20)
    for name in ("campaign-page-add-assignments", "campaign-page-expire", "campaign-page-status"):
        assert (queries_for(researcher_client, url(name, few) + "?count=1")
                == queries_for(researcher_client, url(name, many) + "?count=1"))
