"""The researcher reviews visually in the browser: draw_boxes answers of two workers per image with their
agreement and the overlay, a selection made and approved with the keyboard, a rejection with feedback, a bonus;
link_words with coloured words; a story with its photo strip in order. At 1366x768 and on a 390 px phone."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from mturk.models import Assignment, Bonus
from mturk.states import AssignmentStatus
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot
from tests.mturk.review_builders import STORY, boxes_campaign, links_campaign, made_photos, stories_campaign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def newest_first(campaign) -> list[Assignment]:
    return list(Assignment.objects.filter(hit__campaign=campaign).order_by("-submitted_at", "-id"))


def test_review_draw_boxes_with_the_keyboard(browser, live_server, tmp_path):
    campaign = boxes_campaign(images=2, workers=2)
    first, second, third, fourth = newest_first(campaign)
    page = console_page(browser, live_server.url, LAPTOP)
    page.goto(f"/campaigns/{campaign.pk}/")
    expect(page.locator("#assignment-counts")).to_contain_text("4 assignment(s): 4 submitted.")
    shot(page, tmp_path, "campaign-assignments-laptop")
    page.get_by_role("link", name="Review submitted work").click()
    expect(page.get_by_role("heading", name=f"Review: {campaign.name}")).to_be_visible()

    card = page.locator(f"#assignment-{first.pk}")
    expect(card.get_by_role("img", name="Boxes of this assignment: 1 woman, 2 dog")).to_be_visible()
    expect(card.get_by_role("img", name=re.compile(r"Boxes of worker \w+: 1 woman, 2 dog"))).to_be_visible()
    expect(card.locator(".agreement")).to_have_text(
        "Agreement of the 2 workers: mean best-match IoU 0.83, 100% of boxes matched (IoU ≥ 0.5, same label)")
    overlay = card.get_by_role("button", name="Overlay the 2 box sets")
    overlay.click()
    expect(card.get_by_role("img", name=re.compile("Every box set overlaid"))).to_be_visible()
    expect(card.get_by_role("img", name="Boxes of this assignment: 1 woman, 2 dog")).to_be_hidden()
    expect(card.get_by_role("button", name="Show the box sets side by side")).to_have_attribute(
        "aria-pressed", "true")
    assert fits_width(page)
    shot(page, tmp_path, "review-boxes-laptop")

    page.keyboard.press("?")
    expect(page.get_by_text("next / previous assignment")).to_be_visible()
    page.keyboard.press("?")
    expect(page.get_by_text("next / previous assignment")).to_be_hidden()
    for key in ("x", "j", "x"):  # the first card is the current one: its overlay button has the focus
        page.keyboard.press(key)
    expect(page.locator("#selected-count")).to_have_text("2 selected")
    expect(page.get_by_role("checkbox", name=f"Assignment {first.pk}")).to_be_checked()
    expect(page.get_by_role("checkbox", name=f"Assignment {second.pk}")).to_be_checked()
    natives: list[str] = []
    page.on("dialog", lambda dialog: (natives.append(dialog.message), dialog.dismiss()))  # none is expected
    page.keyboard.press("a")
    asked = page.get_by_role("dialog", name="Approve 2 assignment(s)?")  # in the page, with what it will do
    expect(asked).to_contain_text("None of them is flagged by the automatic checks.")
    expect(asked.get_by_role("button", name="Approve")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".messages")).to_contain_text(f"2 assignment(s) approved: {min(first.pk, second.pk)}, "
                                                       f"{max(first.pk, second.pk)}.")
    assert [a.status for a in newest_first(campaign)] == ["approved", "approved", "submitted", "submitted"]

    # the page is back with the same filters (submitted): the two left
    expect(page.locator(".review-card")).to_have_count(2)
    page.keyboard.press("j")
    page.keyboard.press("r")
    feedback = page.get_by_label(re.compile("Feedback to the workers"))
    expect(feedback).to_be_focused()
    feedback.type("Draw a box around every object, and not around the sky.")  # letters a, j, r, x: no shortcut
    expect(page.locator("#selected-count")).to_have_text("1 selected")
    page.get_by_role("button", name="Reject selected").click()
    asked = page.get_by_role("dialog", name="Reject 1 assignment(s)?")
    expect(asked).to_contain_text("Draw a box around every object, and not around the sky.")
    asked.get_by_role("button", name="Reject 1").click()
    expect(page.locator(".messages")).to_contain_text(f"1 assignment(s) rejected: {third.pk}.")
    rejected = Assignment.objects.get(pk=third.pk)
    assert (rejected.status, rejected.feedback) == (AssignmentStatus.REJECTED,
                                                    "Draw a box around every object, and not around the sky.")

    card = page.locator(f"#assignment-{fourth.pk}")
    card.get_by_text(f"Bonus for worker {fourth.worker.external_id}").click()
    card.get_by_label(f"Bonus in dollars for assignment {fourth.pk}").fill("0.25")
    card.get_by_label("Reason shown to the worker").fill("Very tight boxes")
    card.get_by_role("button", name="Pay bonus").click()
    asked = page.get_by_role("dialog", name=f"Pay $0.25 as a bonus to worker {fourth.worker.external_id}?")
    asked.get_by_role("button", name="Cancel").click()  # cancelled: nothing paid
    expect(asked).to_be_hidden()
    assert not Bonus.objects.exists()
    card.get_by_role("button", name="Pay bonus").click()
    asked.get_by_role("button", name="Pay bonus").click()
    expect(page.locator(".messages")).to_contain_text(f"Bonus of $0.25 for assignment {fourth.pk} paid.")
    assert Bonus.objects.get().assignment_id == fourth.pk
    assert natives == []  # no native confirm() anywhere on the way
    assert page.url.endswith("?status=submitted")  # back on the review page
    shot(page, tmp_path, "review-boxes-after-laptop")


def test_review_on_a_phone_is_one_column(browser, live_server, tmp_path):
    campaign = boxes_campaign(images=2, workers=2)
    page = console_page(browser, live_server.url, PHONE)
    page.goto(f"/campaigns/{campaign.pk}/review/")
    cards = page.locator(".review-card")
    expect(cards).to_have_count(4)
    lefts = {round(cards.nth(i).bounding_box()["x"]) for i in range(4)}
    assert len(lefts) == 1  # one column
    assert fits_width(page)
    page.locator(".overlay-toggle").first.click()
    expect(page.get_by_role("img", name=re.compile("Every box set overlaid")).first).to_be_visible()
    assert fits_width(page)
    shot(page, tmp_path, "review-boxes-phone")
    page.goto(f"/campaigns/{campaign.pk}/review/?layout=grid")
    assert fits_width(page)
    shot(page, tmp_path, "review-boxes-grid-phone")


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_link_words_shows_words_coloured_like_their_boxes(browser, live_server, tmp_path, viewport):
    campaign = links_campaign(2)
    page = console_page(browser, live_server.url, viewport)
    page.goto(f"/campaigns/{campaign.pk}/review/")
    card = page.locator(".review-card").first
    words = card.locator("mark.linked")
    expect(words).to_have_text(["woman1", "dog2"])
    for number in (0, 1):
        word_colour = words.nth(number).evaluate("el => getComputedStyle(el).borderBottomColor")
        box_colour = card.locator("rect").nth(number).evaluate("el => getComputedStyle(el).stroke")
        assert word_colour == box_colour
    first_colour = words.nth(0).evaluate("el => getComputedStyle(el).borderBottomColor")
    assert first_colour != words.nth(1).evaluate("el => getComputedStyle(el).borderBottomColor")
    expect(card.locator("svg text")).to_have_text(["1 woman", "2 dog"])  # not colour alone; from 1 as on boxes
    assert fits_width(page)
    shot(page, tmp_path, f"review-links-{'laptop' if viewport is LAPTOP else 'phone'}")


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_a_story_shows_its_strip_in_story_order(browser, live_server, tmp_path, viewport):
    campaign = stories_campaign(2)
    page = console_page(browser, live_server.url, viewport)
    page.goto(f"/campaigns/{campaign.pk}/review/")
    [assignment] = [a for a in newest_first(campaign)][:1]
    chosen = list(reversed(made_photos(assignment.hit.items["album"])))[:5]
    strip = page.locator(f"#assignment-{assignment.pk}").get_by_role("list", name="Photos in story order")
    from storyboard.models import Photo

    titles = dict(Photo.objects.filter(pk__in=chosen).values_list("pk", "title"))
    photos = strip.get_by_role("img")
    expect(photos).to_have_count(5)
    for index, pk in enumerate(chosen):
        expect(photos.nth(index)).to_have_attribute("alt", f"Photo {index + 1}: {titles[pk]}")
    expect(strip.locator("figcaption")).to_have_text([f"{n} {text}" for n, text in enumerate(STORY, start=1)])
    assert photos.nth(0).evaluate("img => img.naturalWidth") > 0  # the photo is served
    assert fits_width(page)
    shot(page, tmp_path, f"review-story-{'laptop' if viewport is LAPTOP else 'phone'}")
