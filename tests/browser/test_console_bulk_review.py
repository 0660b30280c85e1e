"""Bulk approval shows what it is about to do, in the page's own dialog: how many of the selection the automatic
checks flagged and by which check, with the box that leaves them out ticked; "Approve all" in the campaign page's
danger zone does the same. On a 390 px phone the review page starts with the answers. The wizard numbers the
steps a person sees and explains iou_threshold and quorum."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from mturk.models import Assignment
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot
from tests.factories import make_campaign, make_image, submitted
from tests.mturk.review_builders import boxes_campaign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOUTED = "A WOMAN IN A RED DRESS WALKS HER BROWN DOG ALONG THE BEACH."  # mostly_uppercase
REPEATED = "dog dog dog dog dog dog dog dog on the beach"  # repeated_words


def flagged_campaign():
    campaign = make_campaign(images=3, assignments=1, name="Beach captions")
    return campaign, submitted(campaign), submitted(campaign, SHOUTED), submitted(campaign, REPEATED)


def status(assignment) -> str:
    return Assignment.objects.get(pk=assignment.pk).status


def test_approving_a_selection_leaves_the_flagged_out(browser, live_server, tmp_path):
    campaign, good, shouted, repeated = flagged_campaign()
    page = console_page(browser, live_server.url, LAPTOP)
    natives: list[str] = []
    page.on("dialog", lambda dialog: (natives.append(dialog.message), dialog.dismiss()))
    page.goto(f"/campaigns/{campaign.pk}/review/")
    page.get_by_label("Select all on this page").check()
    expect(page.locator("#selected-count")).to_have_text("3 selected")
    page.get_by_role("button", name="Approve selected").click()
    asked = page.get_by_role("dialog", name="Approve 3 assignment(s)?")
    expect(asked).to_contain_text("2 of 3: mostly_uppercase (1), repeated_words (1)")
    leave_out = asked.get_by_label(re.compile(r"Leave out the 2 flagged \(approve 1\)"))
    expect(leave_out).to_be_checked()  # the default: the flagged are left out
    assert fits_width(page)
    shot(page, tmp_path, "review-bulk-approve-dialog-laptop")
    asked.get_by_role("button", name="Approve").click()
    expect(page.locator(".messages")).to_contain_text(f"1 assignment(s) approved: {good.pk}.")
    expect(page.locator(".messages")).to_contain_text("Left out, flagged by the checks:")
    assert [status(a) for a in (good, shouted, repeated)] == ["approved", "submitted", "submitted"]

    # the flagged ones on purpose: untick the box
    page.goto(f"/campaigns/{campaign.pk}/review/?flag=mostly_uppercase")
    page.get_by_label("Select all on this page").check()
    page.get_by_role("button", name="Approve selected").click()
    asked = page.get_by_role("dialog", name="Approve 1 assignment(s)?")
    asked.get_by_label(re.compile("Leave out the 1 flagged")).uncheck()
    asked.get_by_role("button", name="Approve").click()
    expect(page.locator(".messages")).to_contain_text(f"1 assignment(s) approved: {shouted.pk}.")
    assert status(shouted) == "approved" and status(repeated) == "submitted"
    assert natives == []


def test_approve_all_is_in_the_danger_zone_and_names_the_flagged(browser, live_server, tmp_path):
    campaign, good, shouted, repeated = flagged_campaign()
    page = console_page(browser, live_server.url, LAPTOP)
    page.goto(f"/campaigns/{campaign.pk}/")
    run = page.get_by_role("group", name="Run the campaign")
    expect(run.get_by_role("button", name=re.compile("Approve all"))).to_have_count(0)
    danger = page.get_by_role("group", name="Danger zone")
    expect(danger.get_by_role("button")).to_have_text(["Approve all 3 submitted…", "Expire all HITs", "Close"])
    expect(run.get_by_role("button", name=re.compile("Expire|Close"))).to_have_count(0)
    assert danger.evaluate("el => getComputedStyle(el.closest('.danger-zone')).borderTopStyle") == "solid"
    danger.get_by_role("button", name="Approve all 3 submitted…").click()
    asked = page.get_by_role("dialog", name="Approve the submitted work of campaign Beach captions")
    expect(asked).to_contain_text("3 submitted assignment(s) are approved without being looked at")
    expect(asked).to_contain_text("2 of 3: mostly_uppercase (1), repeated_words (1)")
    expect(asked.get_by_label(re.compile("Leave out the 2 flagged"))).to_be_checked()
    shot(page, tmp_path, "run-approve-all-dialog-laptop")
    asked.get_by_role("button", name="Approve").click()
    expect(page.locator(".messages")).to_contain_text("1 assignment(s) approved. 2 flagged by the checks are left "
                                                      "for you.")
    assert [status(a) for a in (good, shouted, repeated)] == ["approved", "submitted", "submitted"]


def test_on_a_phone_the_review_page_starts_with_the_answers(browser, live_server, tmp_path):
    campaign = boxes_campaign(images=2, workers=2)
    page = console_page(browser, live_server.url, PHONE)
    page.goto(f"/campaigns/{campaign.pk}/review/")
    first = page.locator(".review-card").first
    top = first.bounding_box()["y"]
    assert top < PHONE["height"] / 2  # the first answer starts in the upper half of the first screen
    expect(page.locator("#review-filters")).not_to_have_attribute("open", "")  # folded, one line
    assert page.locator("#bulk").bounding_box()["y"] > top  # the bulk bar comes after the answers
    assert fits_width(page)
    shot(page, tmp_path, "review-first-screen-phone")
    page.get_by_text("Filters", exact=True).click()
    expect(page.get_by_label("Status")).to_be_visible()

    laptop = console_page(browser, live_server.url, LAPTOP)
    laptop.goto(f"/campaigns/{campaign.pk}/review/")
    expect(laptop.get_by_label("Status")).to_be_visible()  # on a laptop the filters stay open, above
    assert laptop.locator("#bulk").bounding_box()["y"] < laptop.locator(".review-card").first.bounding_box()["y"]


def test_the_wizard_numbers_the_steps_it_shows_and_explains_the_box_options(browser, live_server, tmp_path):
    make_image("one.png")
    page = console_page(browser, live_server.url, LAPTOP)
    page.goto("/campaigns/new/")
    steps = page.locator("#wizard > fieldset.card:visible > legend")
    expect(steps).to_have_text([re.compile(r"^1\. What to create"), re.compile(r"^2\. Task kind"),
                                re.compile(r"^3\. Items"), re.compile(r"^4\. Provider"), re.compile(r"^5\. Settings")])
    page.get_by_role("radio", name=re.compile("Grounded descriptions workflow")).check()
    expect(steps).to_have_text([re.compile(r"^1\. What to create"), re.compile(r"^2\. Items"),
                                re.compile(r"^3\. Provider"), re.compile(r"^4\. Settings")])  # no jump 1 -> 3
    page.get_by_role("radio", name=re.compile("^One campaign")).check()
    page.get_by_role("radio", name=re.compile("Draw and label boxes")).check()
    iou = page.locator("#f-opt-draw_boxes-iou_threshold")
    expect(iou).to_be_visible()
    expect(iou).to_have_accessible_name("iou threshold")
    expect(iou).to_have_accessible_description(re.compile("shared area over their combined area"))
    expect(page.locator("#f-opt-draw_boxes-quorum")).to_have_accessible_description(
        re.compile("share of its workers who must have drawn a box"))
    shot(page, tmp_path, "wizard-box-options-laptop")
