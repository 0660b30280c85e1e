"""Gold and onboarding in Chromium: the wizard's gold settings (labelled, with help, on a laptop and a phone) and
its review counting the gold HITs; a worker doing a gold HIT whose draft is kept under the assignment; a worker
who fails the onboarding tasks is told politely and gets no more."""
from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from mturk.models import Assignment, Campaign
from mturk.services.campaigns import create_campaign, publish_campaign
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot
from tests.browser.worker_start import start_task_in_browser
from tests.factories import make_image
from tests.mturk.quality import gold_kind
from tests.mturk.quality.gold_kind import BAD, gold_item
from tests.worker_flow import campaign_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
required_words = gold_kind.required_words  # fixture


@pytest.mark.parametrize("viewport, name", [(LAPTOP, "laptop"), (PHONE, "phone")])
def test_the_wizard_sets_a_gold_rate_and_reviews_the_gold_hits(browser, live_server, tmp_path, required_words,
                                                               viewport, name):
    gold_item(("dog",))
    images = [make_image(f"beach-{n}.png", size=(320, 240)) for n in range(4)]
    page = console_page(browser, live_server.url, viewport)
    page.goto("/campaigns/new/")
    page.get_by_role("radio", name=re.compile("Describe an image")).check()
    page.get_by_role("radio", name=re.compile("Images by collection")).check()
    for image in images:
        page.get_by_role("checkbox", name=image.original_name).check()
    page.get_by_role("radio", name="local").check()
    page.get_by_label("Campaign name", exact=True).fill(f"Gold {name}")
    rate = page.get_by_label("Gold share of the HITs (0 to 0.5)", exact=True)
    expect(rate).to_have_accessible_description(re.compile("Gold items are HITs with a known answer"))
    rate.fill("0.2")
    expect(page.get_by_label("Onboarding tasks per worker", exact=True)).to_be_visible()
    expect(page.get_by_label("Onboarding pass mark (0 to 1)", exact=True)).to_be_visible()
    assert fits_width(page)
    page.get_by_role("group", name="Gold and onboarding (known answers)").scroll_into_view_if_needed()
    shot(page, tmp_path, f"gold-wizard-settings-{name}")
    review = page.get_by_role("button", name="Review the cost")
    review.focus()  # keyboard only: the rate field's change (and any re-layout it causes) happens first
    page.keyboard.press("Enter")
    # the review is a dry run of the creation: allow a slow machine
    expect(page.get_by_role("heading", name="Review before creating")).to_be_visible(timeout=20_000)
    expect(page.locator("dl.facts").first).to_contain_text("5, of which 1 gold (known answers, share 0.2)")
    assert fits_width(page)
    shot(page, tmp_path, f"gold-wizard-review-{name}")
    assert Campaign.objects.count() == 0


def test_a_worker_fails_the_onboarding_and_is_told_politely(browser, live_server, tmp_path, required_words):
    gold_item(("dog", "beach"), purpose="onboarding")
    campaign = create_campaign(name="qualifying", task_kind="describe_image", onboarding_items=1,
                               items=[{"image": make_image(size=(320, 240)).pk}])
    publish_campaign(campaign)
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    start_task_in_browser(page, live_server.url + campaign_link(campaign))
    assignment = Assignment.objects.get()
    assert assignment.hit.onboarding
    assert page.locator("#task-form").get_attribute("data-draft-key") == f"draft:{campaign.pk}:a{assignment.pk}"
    page.get_by_label("Your description").fill(BAD)
    page.get_by_role("button", name="Submit").click()
    next_task = page.get_by_role("button", name="Next task")
    expect(next_task).to_be_visible()
    next_task.focus()
    page.keyboard.press("Enter")  # keyboard only
    expect(page.get_by_text("Your answers did not match what this campaign needs closely enough")).to_be_visible()
    assert fits_width(page)
    shot(page, tmp_path, "gold-onboarding-failed-phone")
    assert Assignment.objects.count() == 1 and Assignment.objects.get().gold_score == 0.0
    context.close()


def test_a_researcher_imports_gold_items_from_the_console(browser, live_server, tmp_path, required_words):
    from mturk.models import GoldItem

    image = make_image("gold-beach.png", size=(320, 240))
    lines = tmp_path / "gold.jsonl"
    good = json.dumps({"items": {"image": image.pk}, "answer": {"words": ["dog"]}, "note": "by hand"})
    bad = json.dumps({"items": {"image": 987654}, "answer": {"words": ["dog"]}})
    lines.write_text(f"{good}\n{bad}\n", encoding="utf-8")
    page = console_page(browser, live_server.url, PHONE)
    page.goto("/imports/")
    form = page.locator("form", has=page.get_by_label("Gold items file (.jsonl)"))
    form.get_by_label("Task kind").select_option("describe_image")
    form.get_by_label("Purpose").select_option("onboarding")
    form.get_by_label("Gold items file (.jsonl)").set_input_files(str(lines))
    form.get_by_role("button", name=re.compile("Import gold items")).click()
    page.wait_for_url("**/imports/*/")
    expect(page.get_by_text("line 2")).to_be_visible()
    expect(page.get_by_text("items: unknown image id(s): 987654")).to_be_visible()
    assert fits_width(page)
    shot(page, tmp_path, "gold-import-refused-phone")
    assert not GoldItem.objects.exists()
    lines.write_text(f"{good}\n", encoding="utf-8")
    page.goto("/imports/")
    form = page.locator("form", has=page.get_by_label("Gold items file (.jsonl)"))
    form.get_by_label("Task kind").select_option("describe_image")
    form.get_by_label("Gold items file (.jsonl)").set_input_files(str(lines))
    form.get_by_role("button", name=re.compile("Import gold items")).click()
    page.wait_for_url("**/imports/*/")
    expect(page.get_by_text("1 gold item(s) of describe_image").first).to_be_visible()
    assert GoldItem.objects.get().purpose == "gold"
    page.context.close()
