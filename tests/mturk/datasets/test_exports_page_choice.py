"""The exports page's campaign choice: checkboxes (real, own and newest first; simulated last and unticked), an empty
choice refused, "All real campaigns" leaving simulated ones out; the campaign page's Export button (the campaign
ticked, only the formats of its kind); the page's query count."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from mturk.models import Campaign, DatasetExport
from storyboard.services.workflow import create_story_workflow
from tests.factories import make_album, make_campaign
from tests.queries import queries_for

pytestmark = pytest.mark.django_db

URL = "/exports/"


def of_kind(kind: str, name: str) -> Campaign:
    campaign = make_campaign(images=1, name=name, publish=False)
    Campaign.objects.filter(pk=campaign.pk).update(task_kind=kind)
    return Campaign.objects.get(pk=campaign.pk)


def simulated(name: str) -> Campaign:
    campaign = make_campaign(images=1, name=name, publish=False)
    Campaign.objects.filter(pk=campaign.pk).update(is_simulated=True)
    return campaign


def field_error(page: str) -> str:
    start = page.index('id="campaigns-error"')
    return page[page.index(">", start) + 1: page.index("</p>", start)]


def test_campaigns_are_checkboxes_own_and_newest_first_simulated_last_none_ticked(researcher_client, researcher):
    demo = simulated("demo describe")
    other_user = get_user_model().objects.create_user("bob")
    old_own = make_campaign(images=1, name="old own", publish=False, created_by=researcher)
    newest_other = make_campaign(images=1, name="newest other", publish=False, created_by=other_user)
    page = researcher_client.get(URL).content.decode()
    assert "<select" not in page and "Hold Ctrl" not in page
    boxes = [f'name="campaigns" value="{c.pk}"' for c in (old_own, newest_other, demo)]
    positions = [page.index(box) for box in boxes]
    assert positions == sorted(positions)  # own, then newest, then the simulated one
    assert not any(f"{box} checked" in page for box in boxes)
    assert '<span class="tag simulated">simulated</span>' in page and '<span class="tag">yours</span>' in page
    assert '<label for="campaign-filter">Filter campaigns</label>' in page
    assert 'data-kind="describe_image"' in page and 'data-kinds="draw_boxes describe_image link_words"' in page


def test_an_empty_choice_is_refused_and_nothing_is_queued(researcher_client):
    make_campaign(images=1, publish=False)
    response = researcher_client.post(URL, {"format": "imageclef"})
    assert response.status_code == 400
    assert field_error(response.content.decode()) == "Choose at least one campaign, or tick “All real campaigns”."
    assert not DatasetExport.objects.exists()


def test_all_real_campaigns_is_explicit_and_leaves_simulated_ones_out(researcher_client):
    real = make_campaign(images=1, name="real b", publish=False)
    other = make_campaign(images=1, name="real a", publish=False)
    simulated("demo")
    of_kind("tell_story", "a story")  # not exported by imageclef
    response = researcher_client.post(URL, {"format": "imageclef", "all_real": "on"})
    assert response.status_code == 302
    assert list(DatasetExport.objects.get().campaigns.order_by("name")) == [other, real]


def test_all_real_with_ticked_campaigns_or_with_no_real_campaign_is_refused(researcher_client):
    campaign = simulated("demo")
    both = researcher_client.post(URL, {"format": "imageclef", "all_real": "on", "campaigns": [campaign.pk]})
    assert field_error(both.content.decode()) == "Choose campaigns or “All real campaigns”, not both."
    none = researcher_client.post(URL, {"format": "imageclef", "all_real": "on"})
    assert field_error(none.content.decode()) == "No real campaign that imageclef exports: there is nothing to export."
    assert (both.status_code, none.status_code) == (400, 400) and not DatasetExport.objects.exists()


def test_a_ticked_simulated_campaign_is_exported_when_chosen(researcher_client):
    campaign = simulated("demo")
    assert researcher_client.post(URL, {"format": "coco", "campaigns": [campaign.pk]}).status_code == 302
    assert list(DatasetExport.objects.get().campaigns.all()) == [campaign]


def test_every_campaign_page_has_an_export_button(researcher_client):
    campaign = make_campaign(images=1)
    page = researcher_client.get(reverse("campaign-page", args=[campaign.pk])).content.decode()
    assert f'<a class="button" href="/exports/?campaign={campaign.pk}#request-heading"' in page
    assert ">Export</a>" in page


def format_radios(page: str) -> list[str]:
    names = []
    for part in page.split('<input type="radio" name="format" id="format-')[1:]:
        names.append(part[: part.index('"')])
    return names


def test_the_export_button_ticks_the_campaign_and_offers_the_formats_of_its_kind(researcher_client):
    campaign = of_kind("draw_boxes", "street boxes")
    newer = make_campaign(images=1, name="another")
    page = researcher_client.get(f"{URL}?campaign={campaign.pk}").content.decode()
    assert f'name="campaigns" value="{campaign.pk}" checked' in page
    assert page.count(" checked>") == 2  # the campaign, and the first format
    assert page.index(f'value="{campaign.pk}" checked') < page.index(f'value="{newer.pk}"')  # ticked: at the top
    radios = format_radios(page)
    assert radios == ["coco", "flickr30k", "imageclef", "assignments-jsonl"]  # its own formats, the generic last
    assert 'checked' in page.split(f'id="format-{radios[0]}"')[1].split(">")[0]
    assert f'Exporting <a href="/campaigns/{campaign.pk}/">street boxes</a> (draw_boxes)' in page
    every = format_radios(researcher_client.get(URL).content.decode())
    assert {"sind", "flickr8k", "compositional"} <= set(every) and set(radios) < set(every)
    story = create_story_workflow("Stories", [make_album(6)], publish=False)["tell"]
    story_radios = format_radios(researcher_client.get(f"{URL}?campaign={story.pk}").content.decode())
    assert story_radios == ["sind", "assignments-jsonl"]
    assert format_radios(researcher_client.get(f"{URL}?campaign=999999").content.decode()) == every


def test_a_post_from_the_campaigns_form_keeps_its_formats_and_is_queued(researcher_client):
    campaign = of_kind("draw_boxes", "street")
    refused = researcher_client.post(f"{URL}?campaign={campaign.pk}", {"format": "sind", "campaigns": [campaign.pk]})
    assert refused.status_code == 400 and "sind" not in format_radios(refused.content.decode())
    done = researcher_client.post(f"{URL}?campaign={campaign.pk}", {"format": "coco", "campaigns": [campaign.pk]})
    assert done.status_code == 302
    assert list(DatasetExport.objects.get().campaigns.all()) == [campaign]


@pytest.mark.parametrize("query", ["", "?campaign=FIRST"])
def test_the_page_makes_the_same_queries_for_few_or_many_campaigns(researcher_client, researcher, query):
    first = make_campaign(images=1, publish=False, created_by=researcher)
    simulated("demo 0")
    url = URL + query.replace("FIRST", str(first.pk))
    few = queries_for(researcher_client, url)
    for n in range(8):
        make_campaign(images=1, publish=False, created_by=researcher if n % 2 else None)
        simulated(f"demo {n + 1}")
    assert queries_for(researcher_client, url) == few
