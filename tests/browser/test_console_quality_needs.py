"""A pilot's quality page in the browser: every item went to one worker and nothing is gold, so the page says
what each missing figure needs; the researcher gives the first items to more workers through the in-page
confirmation with the keyboard, then makes gold from an approved answer; on a laptop and a phone."""
from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from mturk.models import GoldItem
from mturk.states import AssignmentStatus
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot
from tests.factories import make_campaign
from tests.mturk.quality.quality_fakes import (  # noqa: F401 (text_quality is a fixture)
    answer,
    real_hits,
    text_quality,
    worker,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("text_quality")]


def first_pilot():
    """Four photos, one worker each (the first answer approved): no overlap, no gold."""
    campaign = make_campaign(images=4, assignments=1, name="First pilot")
    for i, hit in enumerate(real_hits(campaign)):
        answer(hit, worker(f"w{i}"), f"text {i}", status=AssignmentStatus.APPROVED if i == 0 else "submitted")
    return campaign


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_the_missing_figures_say_what_they_need_and_the_buttons_produce_it(browser, live_server, tmp_path,
                                                                           viewport):
    name = "laptop" if viewport is LAPTOP else "phone"
    campaign = first_pilot()
    page: Page = console_page(browser, live_server.url, viewport)
    page.goto(f"/campaigns/{campaign.pk}/quality/")
    needs = page.locator("#needs")
    expect(needs.get_by_role("heading", name="What the missing figures need")).to_be_visible()
    expect(needs.locator("#need-agreement")).to_contain_text("Needs overlap: every item goes to one worker")
    expect(needs.locator("#need-gold")).to_contain_text("Make gold from approved answers (1 item(s) have one)")
    assert fits_width(page)
    shot(page, tmp_path, f"quality-needs-{name}")

    # overlap: the labelled fields, then the confirmation in a dialog, all with the keyboard
    needs.get_by_label("First items").fill("2")
    needs.get_by_label("Workers per item").focus()
    page.keyboard.press("Tab")
    button = needs.get_by_role("button", name="Give them to more workers…")
    expect(button).to_be_focused()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Give the first 2 item(s) of campaign First pilot to 3 workers each")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Extra cost with fees")
    confirm = dialog.locator("[data-confirm-submit]")
    expect(confirm).to_be_focused()
    expect(confirm).to_contain_text("Give 2 item(s) to 3 workers for $0.40")
    assert fits_width(page)
    shot(page, tmp_path, f"quality-needs-overlap-{name}")
    page.keyboard.press("Enter")
    expect(page.locator("ul.messages")).to_contain_text("The first 2 item(s) now go to 3 workers each")
    expect(page.locator("#need-agreement")).to_contain_text("2 pilot HIT(s), handed out first")
    assert [(h.max_assignments, h.pilot) for h in real_hits(campaign)] == [(3, True), (3, True), (1, False),
                                                                           (1, False)]

    # gold: a plain POST button
    page.locator("#need-gold").get_by_role("button", name="Make gold from approved answers").click()
    expect(page.locator("ul.messages")).to_contain_text("1 gold item(s) of describe_image made")
    assert GoldItem.objects.filter(source_assignment__hit__campaign=campaign).count() == 1
    assert fits_width(page)
