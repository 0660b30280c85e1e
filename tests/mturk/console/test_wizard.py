"""The campaign wizard (/campaigns/new/): each way of creating creates exactly what the API would, bad input
creates nothing and is shown next to its field, and the page's query count does not grow with the data."""
from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from mturk.models import HIT, Campaign
from mturk.states import CampaignStatus, HITStatus
from tests.factories import make_album, make_campaign, make_image
from tests.queries import queries_for

pytestmark = pytest.mark.django_db
URL = "/campaigns/new/"


def fields_of(campaign: Campaign) -> dict[str, Any]:
    """What a created campaign is, apart from its identity and creation time."""
    return {
        "task_kind": campaign.task_kind, "provider": campaign.provider, "reward": campaign.reward,
        "assignments_per_hit": campaign.assignments_per_hit, "time_limit_seconds": campaign.time_limit_seconds,
        "instructions": campaign.instructions, "title": campaign.title, "description": campaign.description,
        "budget_cap": campaign.budget_cap, "max_assignments_per_worker": campaign.max_assignments_per_worker,
        "options": campaign.options, "qualifications": campaign.qualifications, "status": campaign.status,
        "source_stage": campaign.source_stage_id, "tasks_per_submission": campaign.tasks_per_submission,
        "items": [(h.items, h.max_assignments, h.status, h.group) for h in campaign.hits.order_by("position")],
    }


def test_single_kind_with_a_selection_creates_what_the_api_creates(researcher_client, api):
    images = [make_image(f"i{n}.png") for n in range(4)]
    response = researcher_client.post(URL, {
        "step": "draft", "flow": "campaign", "kind": "describe_image", "source": "images",
        "item-images": [str(images[2].pk), str(images[0].pk)], "provider": "local", "name": "Wizard one",
        "reward": "0.12", "assignments_per_hit": "2", "time_limit_seconds": "300", "budget_cap": "5.00",
        "max_assignments_per_worker": "3", "instructions": "Say what you see.", "opt-describe_image-min_words": "6",
    })
    created = Campaign.objects.get(name="Wizard one")
    assert response.status_code == 302 and response["Location"] == reverse("campaign-page", args=[created.pk])
    body = {"name": "Via API", "task_kind": "describe_image", "provider": "local", "reward": "0.12",
            "assignments_per_hit": 2, "time_limit_seconds": 300, "budget_cap": "5.00",
            "max_assignments_per_worker": 3, "instructions": "Say what you see.", "options": {"min_words": 6},
            "qualifications": {}, "items": [{"image": images[0].pk}, {"image": images[2].pk}]}
    assert api.post("/api/campaigns/", body, format="json").status_code == 201
    assert fields_of(created) == fields_of(Campaign.objects.get(name="Via API"))
    assert created.created_by is not None and created.status == CampaignStatus.DRAFT


def test_review_shows_the_estimate_and_creates_nothing(researcher_client, api):
    images = [make_image(f"r{n}.png") for n in range(3)]
    post = {"step": "review", "flow": "campaign", "kind": "describe_image", "source": "all_images",
            "provider": "local", "name": "Reviewed", "reward": "0.10", "assignments_per_hit": "2",
            "budget_cap": "0.45"}
    response = researcher_client.post(URL, post)
    assert response.status_code == 200
    assert Campaign.objects.count() == 0 and HIT.objects.count() == 0
    page = response.content.decode()
    api_campaign = api.post("/api/campaigns/", {"name": "Twin", "task_kind": "describe_image", "reward": "0.10",
                                                "assignments_per_hit": 2, "budget_cap": "0.45",
                                                "items": [{"image": i.pk} for i in images]}, format="json").data
    estimate = api.get(f"/api/campaigns/{api_campaign['id']}/estimate/").data
    assert estimate["all_drafts"]["total"] == "0.60" and estimate["within_budget"]["total"] == "0.40"
    assert f"${estimate['all_drafts']['total']}" in page and f"${estimate['within_budget']['total']}" in page
    assert "Create and publish ($0.40)" in page and "up to $0.40" in page


def test_create_and_publish(researcher_client):
    make_image("p.png")
    response = researcher_client.post(URL, {"step": "publish", "flow": "campaign", "kind": "draw_boxes",
                                            "source": "all_images", "provider": "local", "name": "Live"})
    campaign = Campaign.objects.get(name="Live")
    assert response.status_code == 302
    assert campaign.status == CampaignStatus.ACTIVE
    assert set(campaign.hits.values_list("status", flat=True)) == {HITStatus.PUBLISHED}


def test_chained_from_another_campaign(researcher_client, api):
    source = make_campaign(images=1, name="Boxes first", publish=False)
    response = researcher_client.post(URL, {"step": "draft", "flow": "campaign", "kind": "link_words",
                                            "source": "stage", "source_stage": str(source.pk), "provider": "local",
                                            "name": "Links after"})
    assert response.status_code == 302
    assert api.post("/api/campaigns/", {"name": "Links via API", "task_kind": "link_words",
                                        "source_stage": source.pk}, format="json").status_code == 201
    assert fields_of(Campaign.objects.get(name="Links after")) == fields_of(Campaign.objects.get(name="Links via API"))
    assert Campaign.objects.get(name="Links after").source_stage == source


def test_story_workflow_from_an_album_set(researcher_client, api):
    albums = [make_album(3), make_album(3), make_album(3)]
    response = researcher_client.post(URL, {
        "step": "draft", "flow": "stories", "source": "albums", "item-albums": [str(albums[0].pk), str(albums[2].pk)],
        "provider": "local", "name": "Stories", "switch-ratings": "on", "stage-retell-assignments_per_hit": "5",
        "stage-tell-reward": "0.40",
    })
    assert response.status_code == 302
    body = {"name": "Stories API", "albums": [albums[0].pk, albums[2].pk], "ratings": True,
            "settings": {"retell": {"assignments_per_hit": 5}, "tell": {"reward": "0.40"}}}
    assert api.post("/api/story-workflows/", body, format="json").status_code == 201
    for stage in ("tell", "retell", "dii", "dis", "rate"):
        mine = Campaign.objects.get(name=f"Stories · {stage}")
        theirs = Campaign.objects.get(name=f"Stories API · {stage}")
        assert fields_of(mine) | {"source_stage": None} == fields_of(theirs) | {"source_stage": None}
        assert (mine.source_stage and mine.source_stage.name.replace("Stories", "")) == \
            (theirs.source_stage and theirs.source_stage.name.replace("Stories API", ""))
    assert response["Location"] == reverse("campaign-page", args=[Campaign.objects.get(name="Stories · tell").pk])


def test_grounded_workflow(researcher_client):
    images = [make_image(f"g{n}.png") for n in range(2)]
    response = researcher_client.post(URL, {"step": "draft", "flow": "grounded", "source": "all_images",
                                            "provider": "local", "name": "Grounded",
                                            "stage-link-assignments_per_hit": "2"})
    assert response.status_code == 302
    boxes, describe, link = (Campaign.objects.get(name=f"Grounded · {s}") for s in ("boxes", "describe", "link"))
    assert (boxes.task_kind, describe.task_kind, link.task_kind) == ("draw_boxes", "describe_image", "link_words")
    assert describe.source_stage == boxes and link.source_stage == describe and boxes.source_stage is None
    assert sorted(h["image"] for h in boxes.hits.values_list("items", flat=True)) == [i.pk for i in images]
    assert link.assignments_per_hit == 2 and not describe.hits.exists()


@pytest.mark.parametrize("post, field", [
    ({"name": "", "reward": "0.10"}, "name"),
    ({"reward": "-1"}, "reward"),
    ({"time_limit_seconds": "5"}, "time_limit_seconds"),
    ({"opt-describe_image-min_words": "many"}, "options"),
    ({"source": "images"}, "source"),
    ({"source": "albums"}, "source"),
    ({"provider": "mturk", "q-approval_rate_min": "150"}, "qualifications"),
    ({"provider": "prolific", "q-filters": "[{"}, "qualifications"),
])
def test_bad_input_is_shown_next_to_its_field_and_creates_nothing(researcher_client, post, field):
    make_image("x.png")
    data = {"step": "review", "flow": "campaign", "kind": "describe_image", "source": "all_images",
            "provider": "local", "name": "Bad", **post}
    for step in ("review", "draft", "publish"):
        response = researcher_client.post(URL, {**data, "step": step})
        assert response.status_code == 400
        assert f'id="err-{field}"' in response.content.decode()
    assert Campaign.objects.count() == 0 and HIT.objects.count() == 0


def test_a_taken_name_is_refused_for_every_stage(researcher_client):
    make_album(2)
    make_campaign(images=1, name="Taken · retell", publish=False)
    response = researcher_client.post(URL, {"step": "review", "flow": "stories", "source": "all_albums",
                                            "provider": "local", "name": "Taken"})
    assert response.status_code == 400 and 'id="err-name"' in response.content.decode()
    assert Campaign.objects.count() == 1


def test_workflow_stage_settings_are_checked(researcher_client):
    make_album(2)
    response = researcher_client.post(URL, {"step": "draft", "flow": "stories", "source": "all_albums",
                                            "provider": "local", "name": "S", "stage-dii-reward": "free"})
    assert response.status_code == 400 and 'id="err-stage-dii-reward"' in response.content.decode()
    assert Campaign.objects.count() == 0


def test_the_wizard_is_for_researchers_only(client, django_user_model):
    assert client.get(URL).status_code == 302
    assert client.get("/campaigns/new/preview/?kind=describe_image").status_code == 302
    user = django_user_model.objects.create_user("worker", password="pw")
    client.force_login(user)
    assert client.get(URL).status_code == 302
    assert client.post(URL, {"flow": "campaign"}).status_code == 302


def test_query_count_does_not_grow_with_images_albums_and_campaigns(researcher_client):
    for n in range(2):
        make_image(f"a{n}.png")
    make_album(1)
    make_campaign(images=0, publish=False)
    few = queries_for(researcher_client, URL)
    for n in range(45):
        make_image(f"b{n}.png")
    for _ in range(5):
        make_album(1)
        make_campaign(images=0, publish=False)
    assert queries_for(researcher_client, URL) == few


def test_show_more_choices(researcher_client):
    for n in range(45):
        make_image(f"m{n}.png")
    first = researcher_client.get(URL).content.decode()
    assert first.count('name="item-images"') == 40 and "Show more (45 in all)" in first
    more = researcher_client.get("/campaigns/new/choices/images/?page=2").content.decode()
    assert more.count('name="item-images"') == 5 and "Show more" not in more


def test_mturk_requirements_are_stored_as_the_api_stores_them(researcher_client, api):
    image = make_image("q.png")
    response = researcher_client.post(URL, {
        "step": "draft", "flow": "campaign", "kind": "describe_image", "source": "all_images", "provider": "mturk",
        "name": "On MTurk", "description": "Describe a picture.", "q-approval_rate_min": "95",
        "q-approved_min": "1000", "q-locales": "US, GB", "q-masters": "on",
    })
    assert response.status_code == 302
    body = {"name": "MTurk API", "task_kind": "describe_image", "provider": "mturk",
            "description": "Describe a picture.", "items": [{"image": image.pk}],
            "qualifications": {"approval_rate_min": 95, "approved_min": 1000, "locales": ["US", "GB"],
                               "masters": True}}
    assert api.post("/api/campaigns/", body, format="json").status_code == 201
    assert fields_of(Campaign.objects.get(name="On MTurk")) == fields_of(Campaign.objects.get(name="MTurk API"))


def test_back_to_the_form_keeps_every_value(researcher_client):
    images = [make_image(f"k{n}.png") for n in range(3)]
    post = {"step": "edit", "flow": "campaign", "kind": "draw_boxes", "source": "images",
            "item-images": [str(images[1].pk)], "provider": "prolific", "name": "Kept", "reward": "0.33",
            "opt-draw_boxes-max_boxes": "7", "q-devices": ["mobile"]}
    page = researcher_client.post(URL, post).content.decode()
    assert re.search(r'name="kind" value="draw_boxes"[^>]* checked>', page)
    assert not re.search(r'name="kind" value="describe_image"[^>]* checked>', page)
    assert f'name="item-images" value="{images[1].pk}" checked' in page
    assert f'name="item-images" value="{images[0].pk}">' in page
    assert 'value="Kept"' in page and 'value="0.33"' in page and 'value="7"' in page
    assert 'name="q-devices" value="mobile" checked' in page and 'name="provider" value="prolific" checked' in page
    assert Campaign.objects.count() == 0
