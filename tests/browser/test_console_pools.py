"""A researcher creates a test pool in the browser: Pools from the menu, a refused form with the error at its
field, then the pool frozen from a ticked campaign and listed; on a laptop and a phone."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotation.ranking.models import TestPool
from mturk.services.review import approve_assignment
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot
from tests.factories import make_campaign, submitted

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_create_a_test_pool_from_the_console(browser, live_server, tmp_path, viewport):
    campaign = make_campaign(images=2, name="Kitten captions", assignments=1)
    for _ in range(2):
        approve_assignment(submitted(campaign))
    make_campaign(images=1, name="Street captions", assignments=1)
    page = console_page(browser, live_server.url, viewport)
    name = "laptop" if viewport is LAPTOP else "phone"

    page.get_by_role("navigation", name="Console").get_by_role("link", name="Pools").click()
    expect(page.get_by_role("heading", name="Create a test pool")).to_be_visible()
    page.get_by_label("Name").fill("kittens")
    page.get_by_role("button", name="Create test pool").click()
    expect(page.get_by_role("alert")).to_have_text("Choose at least one campaign, or every description.")
    expect(page.get_by_label("Name")).to_have_value("kittens")  # kept, to be fixed
    assert fits_width(page)
    shot(page, tmp_path, f"pools-refused-{name}")
    page.get_by_label("Filter campaigns").fill("kitten")
    expect(page.get_by_role("checkbox", name="Street captions")).to_be_hidden()
    page.get_by_role("checkbox", name="Kitten captions").check()
    page.get_by_label("Captions per image").fill("1")
    page.get_by_role("button", name="Create test pool").click()

    expect(page.get_by_text("Test pool 'kittens' created.")).to_be_visible()
    row = page.get_by_role("row", name="kittens")
    expect(row).to_contain_text("2")  # two images, one caption each
    pool = TestPool.objects.get()
    assert (pool.pool_images.count(), pool.pool_captions.count()) == (2, 2)
    assert fits_width(page)
