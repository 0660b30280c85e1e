"""The same selector from the wizard (filters, select all matching, the matching endpoint), the campaign API
(`select`) and create_campaign (--image-set, --tag, --search, --state, --not-in)."""
from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.image_sets.services import SetSpec, demo_set_spec, file_images
from mturk.models import Campaign
from tests.factories import make_image

pytestmark = pytest.mark.django_db
URL = "/campaigns/new/"


@pytest.fixture
def images() -> dict[str, int]:
    made = {name: make_image(f"{name}.png").pk for name in ("kitchen-1", "kitchen-2", "garden-1", "scene-9")}
    file_images(SetSpec("Kitchens", ("pilot",)), [made["kitchen-1"], made["kitchen-2"]])
    file_images(SetSpec("Outside"), [made["garden-1"]])
    file_images(demo_set_spec(), [made["scene-9"]])
    return made


def hit_images(name: str) -> list[int]:
    return [hit.items["image"] for hit in Campaign.objects.get(name=name).hits.order_by("position")]


def test_the_matching_endpoint_counts_hits_and_pages(researcher_client, images):
    url = reverse("campaign-wizard-matching", args=["images"])
    page = researcher_client.get(url, {"filter-images-tag": "pilot"}).content.decode()
    assert "<strong>2</strong> images match" in page and "2 HITs if all are selected" in page
    assert "kitchen-1.png" in page and "garden-1.png" not in page and "scene-9" not in page
    assert "Select all 2 matching" in page
    bad = researcher_client.get(url, {"filter-images-set": "Nope"}).content.decode()
    assert "no collection named" in bad
    assert researcher_client.get(reverse("campaign-wizard-matching", args=["descriptions"])).status_code == 404


def test_the_form_leaves_the_demo_out_and_lists_collections(researcher_client, images):
    page = researcher_client.get(URL).content.decode()
    assert "<strong>3</strong> images match" in page and "scene-9.png" not in page
    assert '<option value="Demo">Demo (demo)</option>' in page
    prefilled = researcher_client.get(URL, {"source": "images", "filter-images-set": "Outside"}).content.decode()
    assert "<strong>1</strong> image matches" in prefilled


def test_the_filter_step_without_javascript_shows_the_matches(researcher_client, images):
    response = researcher_client.post(URL, {"step": "filter", "flow": "campaign", "kind": "describe_image",
                                            "source": "images", "filter-images-search": "garden"})
    assert response.status_code == 200 and "<strong>1</strong> image matches" in response.content.decode()


def test_select_all_matching_in_the_wizard_makes_one_hit_per_match(researcher_client, images):
    response = researcher_client.post(URL, {
        "step": "draft", "flow": "campaign", "kind": "describe_image", "source": "images", "provider": "local",
        "name": "All kitchens", "filter-images-set": "Kitchens", "all-images": "on",
        "item-images": [str(images["garden-1"])],  # ignored: all matching are selected
    })
    assert response.status_code == 302, response.content.decode()[:2000]
    assert hit_images("All kitchens") == [images["kitchen-1"], images["kitchen-2"]]


def test_select_all_with_nothing_matching_is_an_error_on_the_items(researcher_client, images):
    response = researcher_client.post(URL, {
        "step": "review", "flow": "campaign", "kind": "describe_image", "source": "images", "provider": "local",
        "name": "Nothing", "filter-images-search": "zebra", "all-images": "on"})
    assert response.status_code == 400 and "no image matches" in response.content.decode()


def test_the_api_takes_the_same_selector(api, images):
    body = {"name": "API kitchens", "task_kind": "draw_boxes",
            "select": {"source": "images", "set": ["Kitchens"], "search": "-2"}}
    response = api.post("/api/campaigns/", body, format="json")
    assert response.status_code == 201, response.content
    assert hit_images("API kitchens") == [images["kitchen-2"]]
    both = api.post("/api/campaigns/", {**body, "name": "x", "items": [{"image": 1}]}, format="json")
    assert both.status_code == 400 and "select" in both.json()
    bad = api.post("/api/campaigns/", {**body, "name": "y", "select": {"source": "images", "state": "odd"}},
                   format="json")
    assert bad.status_code == 400 and "state" in str(bad.json()["select"])
    demo = api.post("/api/campaigns/", {"name": "Demo too", "task_kind": "describe_image",
                                        "select": {"source": "images", "include_demo": True}}, format="json")
    assert demo.status_code == 201 and images["scene-9"] in hit_images("Demo too")


def test_create_campaign_takes_the_same_selector(images):
    out = StringIO()
    call_command("create_campaign", "--name", "CLI pilot", "--kind", "describe_image", "--tag", "pilot",
                 "--state", "no-boxes", stdout=out)
    assert hit_images("CLI pilot") == [images["kitchen-1"], images["kitchen-2"]]
    call_command("create_campaign", "--name", "CLI rest", "--kind", "describe_image", "--not-in", "CLI pilot",
                 stdout=out)
    assert hit_images("CLI rest") == [images["garden-1"]]
    call_command("create_campaign", "--name", "CLI demo", "--kind", "describe_image", "--image-set", "Demo",
                 stdout=out)
    assert hit_images("CLI demo") == [images["scene-9"]]
    with pytest.raises(CommandError, match="no collection named"):
        call_command("create_campaign", "--name", "Bad", "--kind", "describe_image", "--image-set", "Nope")
    with pytest.raises(CommandError, match="no image matches"):
        call_command("create_campaign", "--name", "Bad", "--kind", "describe_image", "--search", "zebra")


# ---- a selection that matches nothing is refused the same way everywhere, never an empty campaign ---------------

NOTHING = "no image matches (the demo collection left out unless asked for)"


@pytest.fixture
def demo_only() -> int:
    """After `seed_demo`: the only images are the demo collection's, which every selection leaves out unless asked."""
    image = make_image("scene-1.png").pk
    file_images(demo_set_spec(), [image])
    return image


def test_all_images_from_the_cli_with_only_the_demo_is_refused_and_creates_nothing(demo_only):
    with pytest.raises(CommandError) as refused:
        call_command("create_campaign", "--name", "Boxes", "--kind", "draw_boxes", "--all-images", stdout=StringIO())
    assert str(refused.value) == (f"--all-images: {NOTHING}; --include-demo alone takes every image, the demo's "
                                  "included")
    assert not Campaign.objects.exists()
    call_command("create_campaign", "--name", "Demo boxes", "--kind", "draw_boxes", "--include-demo",
                 stdout=StringIO())
    assert hit_images("Demo boxes") == [demo_only]


def test_all_descriptions_from_the_cli_with_none_waiting_is_refused(demo_only):
    with pytest.raises(CommandError, match=r"^--all-descriptions: no description matches \(not linked yet, of an "
                                           r"image with boxes\)$"):
        call_command("create_campaign", "--name", "Links", "--kind", "link_words", "--all-descriptions")
    assert not Campaign.objects.exists()


def test_the_wizard_refuses_all_images_with_only_the_demo(researcher_client, demo_only):
    for step in ("review", "draft", "publish"):
        response = researcher_client.post(URL, {"step": step, "flow": "campaign", "kind": "draw_boxes",
                                                "source": "all_images", "provider": "local", "name": "Boxes"})
        assert response.status_code == 400 and NOTHING in response.content.decode()
    assert not Campaign.objects.exists()


def test_the_api_refuses_a_selection_or_an_item_list_that_is_empty(api, demo_only):
    selected = api.post("/api/campaigns/", {"name": "Boxes", "task_kind": "draw_boxes",
                                            "select": {"source": "images"}}, format="json")
    assert selected.status_code == 400 and selected.json() == {"select": [NOTHING]}
    listed = api.post("/api/campaigns/", {"name": "Boxes", "task_kind": "draw_boxes", "items": []}, format="json")
    assert listed.status_code == 400 and "items" in listed.json()
    assert not Campaign.objects.exists()
    later = api.post("/api/campaigns/", {"name": "Boxes", "task_kind": "draw_boxes"}, format="json")
    assert later.status_code == 201  # no items at all: HITs are added later (POST /hits/, import_images)
