"""Vocabularies in Chromium, as a new researcher makes one: type five labels on the Vocabularies page, see them on
the vocabulary's page, then choose the vocabulary in the wizard for the grounded workflow's boxes stage and see the
labels workers will see (the demo vocabulary is there, but not the default); at 1366x768 and at 390 px."""
from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from annotation.models import Concept
from annotation.vocabularies.services import create_vocabulary
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot
from tests.factories import make_image

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
TYPED = ["kitten | kitty | kitten.n.01", "hand | palm", "sofa | couch", "cushion", "window"]
LABELS = "cushion, hand, kitten, sofa, window"


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_a_typed_vocabulary_is_offered_in_the_wizard_with_its_labels(browser, live_server, tmp_path, viewport):
    create_vocabulary("demo", labels="person\ndog")
    demo = list(Concept.objects.filter(vocabulary__name="demo").values_list("pk", "name", "synonyms"))
    make_image("living-room.png", size=(320, 240))
    page = console_page(browser, live_server.url, viewport)
    page.goto("/")
    if viewport is PHONE:
        page.goto("/vocabularies/")
    else:
        page.get_by_role("navigation", name="Console").get_by_role("link", name="Vocabularies").click()
    expect(page.get_by_role("heading", name="Vocabularies", level=1)).to_be_visible()
    page.get_by_label("Name", exact=True).fill("Living room")
    page.get_by_label("Labels, one per line").fill("\n".join(TYPED))
    assert fits_width(page)
    page.get_by_role("button", name="Create the vocabulary").click()

    expect(page.get_by_role("heading", name="Vocabulary “Living room”")).to_be_visible()
    expect(page.get_by_text("5 labels offered to workers")).to_be_visible()
    rows = page.get_by_role("table").get_by_role("row")
    expect(rows).to_have_count(6)
    expect(page.get_by_role("rowheader", name="kitten")).to_be_visible()
    assert fits_width(page)
    shot(page, tmp_path, f"vocabulary-{viewport['width']}")

    page.get_by_role("navigation", name="Console").get_by_role("link", name="New campaign").click() \
        if viewport is LAPTOP else page.goto("/campaigns/new/")
    page.get_by_role("radio", name=re.compile("^Grounded descriptions workflow")).check()
    page.locator("summary", has_text="Stage boxes").click()
    vocabulary = page.get_by_label("boxes: vocabulary")
    expect(vocabulary).to_have_value("Living room")  # the newest, not the demo's
    preview = page.locator("#preview-stage-boxes-opt-vocabulary")
    expect(preview).to_have_text(f"Workers will see: {LABELS}")
    vocabulary.select_option("demo")
    expect(preview).to_have_text("Workers will see: dog, person")
    vocabulary.select_option("Living room")
    expect(preview).to_have_text(f"Workers will see: {LABELS}")
    expect(page.locator("#wz-preview-frame")).to_have_attribute(
        "src", re.compile(r"opt-draw_boxes-vocabulary=Living\+room"))
    payload = page.wait_for_function(  # the worker page in the preview frame (same origin) offers the typed labels
        """() => { const doc = document.getElementById("wz-preview-frame").contentDocument;
                   const data = doc && doc.getElementById("task-payload");
                   return data && data.textContent.includes("kitten") && data.textContent; }""").json_value()
    assert ", ".join(c["name"] for c in json.loads(payload)["concepts"]) == LABELS
    assert fits_width(page)
    shot(page, tmp_path, f"wizard-vocabulary-{viewport['width']}")
    assert list(Concept.objects.filter(vocabulary__name="demo").values_list("pk", "name", "synonyms")) == demo
