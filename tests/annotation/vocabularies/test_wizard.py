"""The wizard's vocabulary: a list of the vocabularies (newest first, the demo's last) with the labels workers
will see, for a draw_boxes campaign and for the grounded workflow's boxes stage; the worker page offers the chosen
vocabulary's labels."""
from __future__ import annotations

import json
import re

import pytest

from annotation.vocabularies.services import create_vocabulary
from mturk.models import Campaign
from mturk.task_kinds import get_task_kind
from tests.factories import make_image

pytestmark = pytest.mark.django_db
URL = "/campaigns/new/"


@pytest.fixture
def vocabularies():
    create_vocabulary("demo", labels="person\ndog\ncar")
    create_vocabulary("Pets", labels="kitten | kitty\nhamster\nparrot")
    create_vocabulary("Kitchen", labels="cup\nplate")


def worker_labels(campaign: Campaign) -> list[str]:
    """The labels the worker page of the campaign's first HIT offers."""
    hit = campaign.hits.order_by("position").first()
    payload = get_task_kind("draw_boxes").build_payloads(campaign, [hit])[hit.pk]
    return [c["name"] for c in payload["concepts"]]


def select(page: str, name: str) -> list[tuple[str, bool, str]]:
    """(value, selected, preview) of each option of the select `name`."""
    body = re.search(rf'<select name="{name}".*?</select>', page, re.S)
    assert body, f"no select {name}"
    return [(value, bool(chosen), preview) for value, preview, chosen in
            re.findall(r'<option value="([^"]*)" data-preview="([^"]*)"( selected)?>', body.group(0))]


def test_the_form_offers_the_vocabularies_newest_first_with_their_labels(researcher_client, vocabularies):
    page = researcher_client.get(URL).content.decode()
    expected = [("Kitchen", True, "cup, plate"), ("Pets", False, "hamster, kitten, parrot"),
                ("demo", False, "car, dog, person")]
    assert select(page, "opt-draw_boxes-vocabulary") == expected
    assert select(page, "stage-boxes-opt-vocabulary") == expected
    assert 'id="preview-stage-boxes-opt-vocabulary"' in page and "Workers will see:" in page


def test_a_draw_boxes_campaign_offers_the_chosen_vocabulary(researcher_client, vocabularies):
    make_image("a.png")
    response = researcher_client.post(URL, {"step": "draft", "flow": "campaign", "kind": "draw_boxes",
                                            "source": "all_images", "provider": "local", "name": "Boxes",
                                            "opt-draw_boxes-vocabulary": "Pets"})
    assert response.status_code == 302
    campaign = Campaign.objects.get(name="Boxes")
    assert campaign.options["vocabulary"] == "Pets"
    assert worker_labels(campaign) == ["hamster", "kitten", "parrot"]


def test_the_grounded_workflow_boxes_stage_takes_the_chosen_vocabulary(researcher_client, vocabularies):
    make_image("a.png")
    response = researcher_client.post(URL, {"step": "draft", "flow": "grounded", "source": "all_images",
                                            "provider": "local", "name": "Grounded",
                                            "stage-boxes-opt-vocabulary": "Pets"})
    assert response.status_code == 302
    boxes = Campaign.objects.get(name="Grounded · boxes")
    assert boxes.options["vocabulary"] == "Pets"
    assert worker_labels(boxes) == ["hamster", "kitten", "parrot"]
    assert "vocabulary" not in Campaign.objects.get(name="Grounded · describe").options


def test_an_unknown_vocabulary_is_shown_at_the_stage_and_creates_nothing(researcher_client, vocabularies):
    make_image("a.png")
    response = researcher_client.post(URL, {"step": "review", "flow": "grounded", "source": "all_images",
                                            "provider": "local", "name": "Grounded",
                                            "stage-boxes-opt-vocabulary": "Birds"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "unknown vocabulary &#x27;Birds&#x27; (vocabularies: demo, Kitchen, Pets)" in page
    assert 'id="err-stage-boxes-opt-vocabulary"' in page
    assert not Campaign.objects.exists()


def test_the_preview_shows_the_chosen_vocabulary(researcher_client, vocabularies):
    make_image("a.png")
    page = researcher_client.get(URL + "preview/", {"kind": "draw_boxes",
                                                    "opt-draw_boxes-vocabulary": "Pets"}).content.decode()
    payload = json.loads(re.search(r'<script id="task-payload" type="application/json">(.*?)</script>', page,
                                   re.S).group(1))
    assert [c["name"] for c in payload["concepts"]] == ["hamster", "kitten", "parrot"]


def test_without_a_vocabulary_the_field_says_how_to_make_one(researcher_client):
    page = researcher_client.get(URL).content.decode()
    assert '<select name="opt-draw_boxes-vocabulary"' not in page
    assert "Make a vocabulary of your own on the Vocabularies page" in page
