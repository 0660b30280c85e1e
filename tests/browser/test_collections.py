"""Collections in Chromium: the menu entry, a collection's page, and the wizard's selector (filters applied in
place, the count of HITs, select all matching) at 1366x768 and 390 px."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from annotation.image_sets.services import SetSpec, demo_set_spec, file_images
from mturk.models import Campaign
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width
from tests.factories import make_image

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_select_a_collection_in_the_wizard(browser, live_server, viewport):
    kitchens = [make_image(f"kitchen-{n}.png", size=(320, 240)) for n in range(3)]
    licence = ("The annotations: CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/); the images: the terms "
               "of their Flickr owners, each image record's licence")
    file_images(SetSpec("Kitchens", ("pilot",), "images", licence=licence), [image.pk for image in kitchens])
    file_images(SetSpec("Garden"), [make_image("garden-0.png").pk])
    file_images(demo_set_spec(), [make_image("scene-0.png").pk])
    page = console_page(browser, live_server.url, viewport)
    page.goto("/")
    page.get_by_role("navigation", name="Console").get_by_role("link", name="Collections").click()
    page.get_by_role("link", name="Kitchens").click()
    expect(page.get_by_role("heading", name="Kitchens")).to_be_visible()
    expect(page.get_by_role("definition").filter(has_text="CC BY 4.0")).to_be_visible()
    expect(page.get_by_role("link", name="https://creativecommons.org/licenses/by/4.0/")).to_be_visible()
    assert fits_width(page)
    page.get_by_role("link", name="New campaign on this collection").click()
    page.get_by_role("radio", name=re.compile("Describe an image")).check()
    expect(page.get_by_role("status").filter(has_text="images match")).to_contain_text("3 images match")
    page.get_by_label("Name contains").fill("kitchen-2")
    page.get_by_role("button", name="Apply filters").click()
    expect(page.get_by_role("status").filter(has_text="match")).to_contain_text("1 image matches")
    page.get_by_label("Name contains").fill("")
    page.get_by_role("button", name="Apply filters").click()
    page.get_by_role("checkbox", name=re.compile("Select all 3 matching")).check()
    assert fits_width(page)
    page.get_by_role("radio", name="local").check()
    page.get_by_label("Campaign name", exact=True).fill("Kitchens pilot")
    page.get_by_role("button", name="Review the cost").click()
    expect(page.get_by_role("heading", name="Review before creating")).to_be_visible()
    page.get_by_role("button", name="Create as draft").click()
    expect(page.get_by_role("heading", name=re.compile("Kitchens pilot"))).to_be_visible()
    campaign = Campaign.objects.get(name="Kitchens pilot")
    assert sorted(hit.items["image"] for hit in campaign.hits.all()) == [image.pk for image in kitchens]
