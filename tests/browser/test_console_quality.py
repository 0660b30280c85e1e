"""The researcher reads a campaign's quality and acts on it in the browser: opens the page from the campaign page,
computes the figures, sorts the workers, saves a review rule (a bad value is shown at its field first), previews
it and applies it through its confirmation with the keyboard, then reads the audit; on a laptop and a phone."""
from __future__ import annotations

from decimal import Decimal

import pytest
from playwright.sync_api import Page, expect

from mturk.models import Assignment, QualityDecision
from mturk.states import AssignmentStatus
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot
from tests.mturk.quality.quality_fakes import (  # noqa: F401 (text_quality is a fixture)
    answer,
    gold_hit,
    quality_campaign,
    real_hits,
    text_quality,
    worker,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("text_quality")]


def street_scenes():
    """HIT 1: a "cat", b "cat", c "dog"; HIT 2: a "sun", b "sun", c "moon"; a gold HIT: a and b right (1), c wrong
    (0). Every answer is submitted, waiting for review."""
    campaign = quality_campaign(images=2, reward=Decimal("0.10"), name="Street scenes")
    first, second = real_hits(campaign)
    gold = gold_hit(campaign)
    a, b, c = worker("good-ann"), worker("good-bob"), worker("careless-cy")
    for hit, texts in ((first, ("cat", "cat", "dog")), (second, ("sun", "sun", "moon"))):
        for member, said in zip((a, b, c), texts, strict=True):
            answer(hit, member, said, seconds=40)
    answer(gold, a, "known", gold_score=1.0)
    answer(gold, b, "known", gold_score=1.0)
    answer(gold, c, "wrong", gold_score=0.0)
    return campaign


def open_quality_page(page: Page, campaign) -> None:
    page.goto(f"/campaigns/{campaign.pk}/")
    page.get_by_role("link", name="Worker quality and review rule").click()
    expect(page.get_by_role("heading", name="Quality: Street scenes")).to_be_visible()


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_compute_read_and_sort(browser, live_server, tmp_path, viewport):
    name = "laptop" if viewport is LAPTOP else "phone"
    campaign = street_scenes()
    page = console_page(browser, live_server.url, viewport)
    open_quality_page(page, campaign)
    expect(page.get_by_text("never: the figures below appear once quality is computed")).to_be_visible()
    page.get_by_role("button", name="Compute quality").click()
    expect(page.locator("ul.messages")).to_contain_text("Quality computed: 9 answer(s) of 3 worker(s) on 2 item(s)")
    summary = page.locator("#summary")
    # 2 of the 6 pairs agree (cat/cat, sun/sun)
    expect(summary).to_contain_text("Pair agreement")
    expect(summary).to_contain_text("0.333")
    workers = page.locator("#workers tbody tr")
    expect(workers).to_have_count(3)
    expect(workers.nth(2)).to_contain_text("careless-cy")
    expect(workers.nth(2)).to_contain_text("0.00 low")  # marked in words, not by colour alone
    assert fits_width(page)
    shot(page, tmp_path, f"quality-computed-{name}")

    page.get_by_label("Sort workers by").select_option("agreement")
    page.get_by_label("Order").select_option("asc")
    page.get_by_role("button", name="Sort", exact=True).click()
    expect(workers.first).to_contain_text("careless-cy")
    items = page.locator("#items tbody tr")
    expect(items).to_have_count(2)
    expect(items.first).to_contain_text("0.33")
    expect(items.first.get_by_role("link", name="Review the answers of HIT")).to_be_visible()
    assert fits_width(page)


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_save_preview_and_apply_a_rule_with_the_keyboard(browser, live_server, tmp_path, viewport):
    from mturk.quality.services.computation import compute_quality

    name = "laptop" if viewport is LAPTOP else "phone"
    campaign = street_scenes()
    compute_quality(campaign)
    page = console_page(browser, live_server.url, viewport)
    open_quality_page(page, campaign)
    rule = page.locator("#rule")

    # a bad value: shown at its field, nothing saved
    rule.get_by_label("Approve when gold accuracy is at least").fill("1.5")
    rule.get_by_label("Reject when gold accuracy is below").fill("0.5")
    rule.get_by_label("Rejection message").fill("Most of the known answers were wrong: the task asked for what the "
                                                "photo shows.")
    rule.get_by_role("button", name="Save rule").click()
    expect(rule.get_by_role("alert")).to_contain_text("The rule was not saved")
    field = rule.get_by_label("Approve when gold accuracy is at least")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(rule.locator("#id_approve_min_gold_error")).to_contain_text("less than or equal to 1")
    assert fits_width(page)
    shot(page, tmp_path, f"quality-rule-error-{name}")

    field.fill("0.9")
    rule.get_by_role("button", name="Save rule").click()
    expect(page.locator("ul.messages")).to_contain_text("Review rule saved.")

    # keyboard: from the Save button, Tab reaches Preview, then Apply
    page.locator("#save-rule").focus()
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Preview")).to_be_focused()
    page.keyboard.press("Enter")
    preview = page.locator("#preview")
    expect(preview).to_contain_text("A dry run: nothing has been changed.")
    expect(preview.locator("tbody tr")).not_to_have_count(0)
    expect(preview).to_contain_text("careless-cy")
    assert fits_width(page)
    shot(page, tmp_path, f"quality-preview-{name}")

    page.get_by_role("button", name="Preview").focus()
    page.keyboard.press("Tab")
    apply = page.get_by_role("button", name="Apply", exact=True)
    expect(apply).to_be_focused()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Apply the review rule of campaign Street scenes")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Approve")
    confirm = dialog.locator("[data-confirm-submit]")
    expect(confirm).to_be_focused()
    expect(confirm).to_contain_text("Apply: approve")
    assert fits_width(page)
    shot(page, tmp_path, f"quality-apply-confirmation-{name}")
    page.keyboard.press("Enter")
    expect(page.locator("ul.messages")).to_contain_text("Review rule applied:", timeout=60000)
    audit = page.locator("#audit tbody tr")
    expect(audit).not_to_have_count(0)
    assert QualityDecision.objects.filter(campaign=campaign, source="console").exists()
    rejected = Assignment.objects.filter(hit__campaign=campaign, worker__external_id="careless-cy",
                                         status=AssignmentStatus.REJECTED)
    assert rejected.exists()
    assert fits_width(page)
    shot(page, tmp_path, f"quality-audit-{name}")
