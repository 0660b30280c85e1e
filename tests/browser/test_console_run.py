"""The researcher runs a campaign from its page: publishes a draft through the confirmation (sees the cost, cancels
once, then confirms), pauses, resumes, adds assignments (sees the extra cost) and closes it, on a laptop and on a
phone, with the keyboard where it matters."""
from __future__ import annotations

from decimal import Decimal

import pytest
from playwright.sync_api import Page, expect

from mturk.models import Campaign
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot
from tests.factories import make_campaign
from tests.prolific_fake.fixtures import prolific_fake  # noqa: F401 - the fake Prolific, for its cost calculator

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def status_of(campaign: Campaign) -> str:
    return Campaign.objects.get(pk=campaign.pk).status


def messages_of(page: Page):
    return page.locator("ul.messages")


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_publish_pause_resume_add_and_close(browser, live_server, tmp_path, viewport):
    name = "laptop" if viewport is LAPTOP else "phone"
    campaign = make_campaign(images=3, assignments=2, reward=Decimal("0.10"), publish=False, name="Harbour photos")
    page = console_page(browser, live_server.url, viewport)
    page.goto(f"/campaigns/{campaign.pk}/")
    run = page.get_by_role("group", name="Run the campaign")

    # Publish: the confirmation names the cost; cancelled once, nothing happens.
    run.get_by_role("button", name="Publish").click()
    dialog = page.get_by_role("dialog", name="Publish campaign Harbour photos")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("3 HIT(s) are offered to workers, which may cost up to $0.60 with fees.")
    expect(dialog.get_by_label("Publication estimate")).to_contain_text("3 HIT(s), 6 assignment(s)")
    confirm = dialog.get_by_role("button", name="Publish for $0.60")
    expect(confirm).to_be_focused()
    assert fits_width(page)
    shot(page, tmp_path, f"run-publish-confirmation-{name}")
    dialog.get_by_role("link", name="Cancel").click()
    expect(dialog).to_be_hidden()
    assert status_of(campaign) == "draft"

    # Escape closes it too; then the keyboard confirms.
    run.get_by_role("button", name="Publish").click()
    expect(confirm).to_be_focused()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(run.get_by_role("button", name="Publish")).to_be_focused()
    run.get_by_role("button", name="Publish").click()
    expect(confirm).to_be_focused()
    page.keyboard.press("Enter")
    expect(messages_of(page)).to_contain_text("Published 3 HIT(s), cost up to $0.60.")
    assert status_of(campaign) == "active"

    # Pause, then resume (publishing again; nothing left in draft costs nothing more).
    page.get_by_role("group", name="Run the campaign").get_by_role("button", name="Pause").click()
    expect(messages_of(page)).to_contain_text("Campaign Harbour photos is paused.")
    page.get_by_role("group", name="Run the campaign").get_by_role("button", name="Resume").click()
    resume = page.get_by_role("dialog", name="Resume campaign Harbour photos")
    expect(resume).to_contain_text("resuming costs nothing more")
    resume.get_by_role("button", name="Resume").click()
    expect(messages_of(page)).to_have_text("Campaign Harbour photos resumed.")
    assert status_of(campaign) == "active"

    # More assignments: the extra cost is count × HITs × (reward + fee).
    run = page.get_by_role("group", name="Run the campaign")
    run.get_by_label("More assignments per HIT").fill("2")
    run.get_by_role("button", name="Add assignments").click()
    add = page.get_by_role("dialog", name="Add assignments to campaign Harbour photos")
    expect(add).to_contain_text("Each of the 3 published HIT(s) takes 2 more worker(s): up to $0.60 more with fees.")
    assert fits_width(page)
    shot(page, tmp_path, f"run-add-confirmation-{name}")
    add.get_by_role("button", name="Add for $0.60").click()
    expect(messages_of(page)).to_contain_text("3 HIT(s) take 2 more assignment(s) each.")
    assert set(campaign.hits.values_list("max_assignments", flat=True)) == {4}

    # Close, for good.
    expect(page.get_by_role("group", name="Run the campaign").get_by_role("button", name="Close")).to_have_count(0)
    page.get_by_role("group", name="Danger zone").get_by_role("button", name="Close").click()  # away from the rest
    close = page.get_by_role("dialog", name="Close campaign Harbour photos")
    expect(close).to_contain_text("cannot be published, paused or resumed again")
    shot(page, tmp_path, f"run-close-confirmation-{name}")
    close.get_by_role("button", name="Close campaign for good").click()
    expect(messages_of(page)).to_contain_text("Campaign Harbour photos is closed.")
    assert status_of(campaign) == "closed"
    expect(page.get_by_role("group", name="Run the campaign").get_by_role("button")).to_have_count(0)
    assert fits_width(page)
    shot(page, tmp_path, f"run-closed-{name}")
    page.context.close()


def test_without_javascript_the_confirmation_is_a_page(browser, live_server, tmp_path):
    campaign = make_campaign(images=2, assignments=1, publish=False, name="No script")
    page = console_page(browser, live_server.url, LAPTOP)
    context = browser.new_context(viewport=LAPTOP, base_url=live_server.url, java_script_enabled=False,
                                  storage_state=page.context.storage_state())
    plain = context.new_page()
    plain.goto(f"/campaigns/{campaign.pk}/")
    plain.get_by_role("button", name="Publish").click()
    expect(plain.get_by_role("heading", name="Publish campaign No script")).to_be_visible()
    shot(plain, tmp_path, "run-publish-page-nojs")
    plain.get_by_role("button", name="Publish for $0.20").click()
    expect(plain.locator("ul.messages")).to_contain_text("Published 2 HIT(s), cost up to $0.20.")
    assert status_of(campaign) == "active"
    context.close()
    page.context.close()


def test_prolifics_fees_are_asked_for_from_the_confirmation(browser, live_server, tmp_path, prolific_fake):  # noqa: F811
    campaign = make_campaign(images=4, assignments=1, publish=False, provider="prolific", tasks_per_submission=2,
                             reward=Decimal("0.50"), qualifications={"estimated_minutes": 2}, name="Study draft")
    page = console_page(browser, live_server.url, LAPTOP)
    page.goto(f"/campaigns/{campaign.pk}/")
    page.get_by_role("group", name="Run the campaign").get_by_role("button", name="Publish").click()
    dialog = page.get_by_role("dialog", name="Publish campaign Study draft")
    expect(dialog).to_contain_text("Prolific's fees are not known until its cost calculator is asked")
    expect(dialog.get_by_role("button", name="Publish for")).to_have_count(0)
    assert prolific_fake.received("POST", "study-cost-calculator/") == []
    dialog.get_by_role("button", name="Ask Prolific's cost calculator").click()
    expect(dialog.get_by_role("button", name="Publish for")).to_be_visible()
    assert prolific_fake.received("POST", "study-cost-calculator/")
    expect(dialog.get_by_label("Publication estimate")).to_contain_text("Prolific's fees and VAT, from its cost")
    shot(page, tmp_path, "run-prolific-fees-asked")
    assert Campaign.objects.get(pk=campaign.pk).status == "draft"
    page.context.close()
