"""The wizard's live preview: the real worker task page for every task kind, with a sample item and the typed
title, instructions and options; a clear message when no suitable item exists; researchers only."""
from __future__ import annotations

import pytest

from annotation.models import Box, Concept, Description, Image
from mturk.models import HIT, Campaign
from mturk.task_kinds import task_kind_names
from storyboard.models import Setting, Story, Storylet
from tests.evaluation.kinds_data import evaluation
from tests.factories import label_vocabulary, make_album, make_image

pytestmark = pytest.mark.django_db
URL = "/campaigns/new/preview/"


@pytest.fixture
def every_kind_has_an_item():
    image = make_image("scene.png", size=(200, 150))
    concept = Concept.objects.create(vocabulary=label_vocabulary(), name="dog")
    Box.objects.create(image=image, number=0, concept=concept, x=10, y=10, width=50, height=40)
    Description.objects.create(image=image, text="A dog runs .", tokens=["A", "dog", "runs", "."])
    album = make_album(5)
    story = Story.objects.create(album=album, setting=Setting.TELL)
    for position, photo in enumerate(album.photos.order_by("datetaken")):
        Storylet.objects.create(story=story, photo=photo, order=position, original_text=f"Sentence {position}.",
                                text=f"sentence {position} .")
    evaluation(items=1)  # rate_output and compare_outputs judge outputs of a human evaluation
    return image


@pytest.mark.parametrize("kind", task_kind_names())
def test_the_preview_renders_the_worker_page_of_every_kind(researcher_client, every_kind_has_an_item, kind):
    response = researcher_client.get(URL, {"kind": kind, "title": "Typed title", "instructions": "Typed words."})
    page = response.content.decode()
    assert response.status_code == 200, page[:500]
    assert "Typed title" in page and "Typed words." in page
    assert 'name="token"' not in page or "preview" in page.lower()
    assert response.get("X-Frame-Options") in (None, "SAMEORIGIN")
    assert Campaign.objects.count() == 0 and HIT.objects.count() == 0


def test_the_preview_uses_the_first_chosen_item_and_the_options(researcher_client):
    make_image("first.png")
    chosen = make_image("chosen.png")
    query = {"kind": "describe_image", "source": "images", "item": chosen.pk, "opt-describe_image-min_words": "12"}
    page = researcher_client.get(URL, query).content.decode()
    assert chosen.display_url in page  # the chosen image, not the first one
    assert Image.objects.order_by("pk").first().display_url not in page
    assert "at least 12 words" in page


@pytest.mark.parametrize("kind, needed", [("link_words", "link_words needs a description of an image with boxes"),
                                          ("describe_image", "import images first"),
                                          ("retell_story", "retell_story needs an album with a told story")])
def test_without_a_suitable_item_the_preview_says_so(researcher_client, kind, needed):
    response = researcher_client.get(URL, {"kind": kind})
    assert response.status_code == 200
    assert needed in response.content.decode()
    assert response["X-Frame-Options"] == "SAMEORIGIN"


def test_an_unknown_kind_is_not_found(researcher_client):
    assert researcher_client.get(URL, {"kind": "nope"}).status_code == 404
