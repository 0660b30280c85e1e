"""The researcher follows a worker from a review card to their page (quality per campaign and per kind, latest
answers), blocks them after the confirmation with the keyboard, opens an answer's card, makes it a gold item
and switches that item off on the gold page; on a laptop and on a phone."""
from __future__ import annotations

import re
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from mturk.models import GoldItem, Worker, WorkerScore
from mturk.states import AssignmentStatus
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot
from tests.mturk.quality.quality_fakes import (
    answer,
    gold_hit,
    quality_campaign,
    real_hits,
    text_quality,  # noqa: F401 (fixture)
    worker,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("text_quality")]


def crowd(name: str):
    """Two describe_image campaigns; worker `name` answered in both, with measured scores, a gold answer and an
    approved one; another worker answered too."""
    who = worker(name)
    first = quality_campaign(images=2, name="Kitchen captions")
    second = quality_campaign(images=1, name="Street captions")
    approved = answer(real_hits(first)[0], who, "A man cuts bread on a wooden board.", status=AssignmentStatus.APPROVED)
    answer(real_hits(first)[0], worker(f"{name}-other"), "Bread on a board.")
    kite = gold_hit(first, "A red kite.")
    answer(kite, who, "A red kite.", gold_score=1.0)
    answer(real_hits(second)[0], who, "Two cyclists wait at a red light.")
    WorkerScore.objects.create(campaign=first, worker=who, items=1, compared_items=1, gold_items=1,
                               gold_accuracy=1.0, agreement=0.5, median_seconds=61, approved=1,
                               pay=Decimal("0.10"))
    WorkerScore.objects.create(campaign=second, worker=who, items=1, gold_items=1, gold_accuracy=0.5,
                               median_seconds=45)
    return who, first, approved, kite.gold_item


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_worker_page_block_and_use_as_gold(browser, live_server, tmp_path, viewport):
    name = "laptop" if viewport is LAPTOP else "phone"
    who, campaign, approved, kite = crowd(f"W{name.upper()}")
    page = console_page(browser, live_server.url, viewport)

    page.goto(f"/campaigns/{campaign.pk}/review/")
    page.locator(f"#assignment-{approved.pk}").get_by_role("link", name=f"Worker {who.external_id}").click()
    expect(page.get_by_role("heading", name=f"Worker {who.external_id}", level=1)).to_be_visible()
    scores = page.locator("table.worker-scores tbody tr")
    expect(scores).to_have_count(2)
    expect(scores.first).to_contain_text("Street captions")  # the newest campaign first
    expect(page.locator("table.kind-totals tbody tr")).to_contain_text("0.75")  # (1 x 1.0 + 1 x 0.5) / 2
    expect(page.locator("table.worker-answers tbody tr")).to_have_count(3)
    assert fits_width(page)
    shot(page, tmp_path, f"worker-page-{name}")

    # block with the keyboard: the reason, Enter, the confirmation dialog, Enter on its button
    reason = page.get_by_label(f"Reason for blocking worker {who.external_id}")
    reason.focus()
    page.keyboard.type("Answers copied from other workers.")
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_role("heading", name=f"Block worker {who.external_id}?")).to_be_visible()
    expect(dialog).to_contain_text("Answers copied from other workers.")
    confirm = dialog.get_by_role("button", name=f"Block worker {who.external_id}")
    expect(confirm).to_be_focused()
    assert fits_width(page)
    shot(page, tmp_path, f"worker-block-confirm-{name}")
    page.keyboard.press("Enter")
    expect(page.locator(".messages")).to_contain_text(f"Worker {who.external_id} blocked.")
    expect(page.locator("#worker-status")).to_have_text("Blocked: Answers copied from other workers.")
    assert Worker.objects.get(pk=who.pk).blocked
    expect(page.get_by_role("button", name=f"Unblock worker {who.external_id}")).to_be_visible()

    # the approved answer's card, made a gold item with the keyboard
    page.get_by_role("link", name=f"Assignment {approved.pk}").click()
    card = page.locator(f"#assignment-{approved.pk}")
    expect(page.locator(".review-card")).to_have_count(1)
    use = card.get_by_role("button", name="Use as gold")
    use.focus()
    page.keyboard.press("Enter")
    expect(page.locator(".messages")).to_contain_text(f"The answer of assignment {approved.pk} is now gold item")
    item = GoldItem.objects.get(source_assignment=approved)
    expect(page.locator(".messages")).to_contain_text(f"is now gold item {item.pk} (describe_image).")
    assert (item.source_assignment_id, item.answer) == (approved.pk, {"text": "A man cuts bread on a wooden board."})
    assert fits_width(page)
    shot(page, tmp_path, f"review-use-as-gold-{name}")

    # the gold page: the new item, then every item; switched off with the keyboard
    page.locator(f"#assignment-{approved.pk}").get_by_role("link", name=f"gold item {item.pk}").click()
    expect(page.get_by_role("heading", name="Gold items", level=1)).to_be_visible()
    expect(page.locator("tr.gold-row")).to_have_count(1)
    page.get_by_role("link", name="show every item").click()
    rows = page.locator("tr.gold-row")
    expect(rows).to_have_count(2)
    from_gold_hit = page.locator(f"#gold-{kite.pk}")
    expect(from_gold_hit).to_contain_text("A red kite.")
    expect(from_gold_hit.locator('td[data-label="Mean score"]')).to_have_text("1.00")
    mine = page.locator(f"#gold-{item.pk}")
    expect(mine).to_contain_text("from assignment")
    mine.get_by_role("button", name="Deactivate").focus()
    page.keyboard.press("Enter")
    expect(page.locator(".messages")).to_contain_text(f"Gold item {item.pk} is inactive")
    expect(page.locator(f"#gold-{item.pk}")).to_contain_text("Inactive")
    assert not GoldItem.objects.get(pk=item.pk).active
    page.get_by_label("Active", exact=True).select_option("no")
    page.get_by_role("button", name="Show").press("Enter")
    expect(page.locator("tr.gold-row")).to_have_count(1)
    expect(page).to_have_url(re.compile(r"/gold/\?.*active=no"))
    page.goto("/gold/")
    assert fits_width(page)
    shot(page, tmp_path, f"gold-page-{name}")
    page.locator("#gold-formats").scroll_into_view_if_needed()
    expect(page.locator("#format-describe_image")).to_be_visible()
