"""The frame around every task page (reward, time left, position), the layout of every task kind on a laptop
(1366x768) and a phone (390x844), the end of the time limit, link_words' confirmation, draw_boxes' label
field at the new box, and error messages that clear as soon as the field is fixed."""
from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from annotation.models import Box, Concept, Description, Vocabulary
from metrics.text.markup import tokenize
from mturk.models import Assignment, Campaign
from mturk.services.campaigns import create_campaign, publish_campaign
from mturk.states import AssignmentStatus
from mturk.work.services.assignments import assign_next_hit, get_or_create_worker
from mturk.work.tokens import assignment_token
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot
from tests.browser.story_pages import album_and_photos, make_story, start_campaign
from tests.browser.worker_start import start_task_in_browser
from tests.factories import label_vocabulary, make_image
from tests.mturk.providers.mturk.test_task_page import accept_link, mturk_hit
from tests.mturk.providers.prolific.arrival_helpers import PID, SESSION, prolific_campaign
from tests.worker_flow import campaign_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FRAME = {"reward": Decimal("0.25"), "max_assignments_per_worker": 3, "time_limit_seconds": 1800}
TEXT = "A woman in a white dress walks her small dog, smiling."


def describe_image(**fields: Any) -> Campaign:
    images = [make_image(f"frame-{n}.png", size=(1600, 1200)) for n in range(3)]
    campaign = create_campaign(name="Describe", task_kind="describe_image", items=[{"image": i.pk} for i in images],
                               **fields)
    publish_campaign(campaign)
    return campaign


def draw_boxes(**fields: Any) -> Campaign:
    image = make_image("street.png", size=(1600, 1200))
    woman = Concept.objects.create(vocabulary=label_vocabulary(), name="woman", synonyms=["lady"])
    dog = Concept.objects.create(vocabulary=label_vocabulary(), name="dog", synonyms=["puppy"])
    Vocabulary.objects.create(name="street").concepts.set([woman, dog])
    campaign = create_campaign(name="Boxes", task_kind="draw_boxes", items=[{"image": image.pk}],
                               options={"vocabulary": "street"}, **fields)
    publish_campaign(campaign)
    return campaign


def link_words(**fields: Any) -> Campaign:
    image = make_image("walk.png", size=(900, 600))
    for number, name, x, y, width, height in ((0, "woman", 60, 80, 220, 480), (1, "dress", 340, 260, 200, 300),
                                               (2, "dog", 620, 380, 240, 180)):
        concept, _ = Concept.objects.get_or_create(vocabulary=label_vocabulary(), name=name)
        Box.objects.create(image=image, number=number, concept=concept, x=x, y=y, width=width, height=height)
    description = Description.objects.create(image=image, text=TEXT, tokens=tokenize(TEXT), source="gold")
    campaign = create_campaign(name="Links", task_kind="link_words", items=[{"description": description.pk}],
                               **fields)
    publish_campaign(campaign)
    return campaign


def tell_story(**fields: Any) -> Campaign:
    album, _ = album_and_photos(8)
    return start_campaign("tell_story", [{"album": album.pk}], **fields)


def retell_story(**fields: Any) -> Campaign:
    album, photos = album_and_photos(8)
    make_story(album, photos[:5], [f"First story, card {n}." for n in range(1, 6)])
    make_story(album, [photos[i] for i in (3, 5, 6, 7, 1)], [f"Second story, card {n}." for n in range(1, 6)])
    return start_campaign("retell_story", [{"album": album.pk}], **fields)


def describe_sequence(**fields: Any) -> Campaign:
    album, photos = album_and_photos(6)
    sequence = make_story(album, photos[1:6], [f"Story card {n}." for n in range(1, 6)])
    return start_campaign("describe_sequence", [{"sequence": sequence.pk}], **fields)


def rate_story(**fields: Any) -> Campaign:
    album, photos = album_and_photos(5)
    story = make_story(album, photos, ["We took the boat out.", "The lake was calm.", "We swam.", "We had lunch.",
                                       "Then we went home."])
    return start_campaign("rate_story", [{"story": story.pk}], options={"aspects": True}, **fields)


KINDS: dict[str, Callable[..., Campaign]] = {
    "describe_image": describe_image, "draw_boxes": draw_boxes, "link_words": link_words, "tell_story": tell_story,
    "retell_story": retell_story, "describe_sequence": describe_sequence, "rate_story": rate_story,
}
SIZES = {"laptop": LAPTOP, "phone": PHONE}


def worker_page(browser: Browser, base_url: str, viewport: dict[str, int] = LAPTOP) -> Page:
    context = browser.new_context(viewport=viewport, base_url=base_url)
    page = context.new_page()
    page.on("pageerror", lambda error: pytest.fail(f"script error on the page: {error}"))
    return page


def small_targets(page: Page) -> list[str]:
    """Visible buttons, fields and answer labels lower than 44 px (phones' minimum target)."""
    return page.evaluate("""() => {
        const out = [];
        const targets = 'button, input:not([type=hidden]), textarea, select, .sb-scale-option';
        document.querySelectorAll(targets).forEach(el => {
            const r = el.getBoundingClientRect(), style = getComputedStyle(el);
            if (!r.width || style.visibility === 'hidden') { return; }
            const box = el.type === 'radio' || el.type === 'checkbox';
            if (box && el.closest('label')) { return; }  // the label is the target
            const h = box ? 44 : r.height;
            if (h < 43.5) { out.push((el.id || el.className || el.tagName) + ':' + Math.round(r.height)); }
        });
        return out;
    }""")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_shows_the_frame_and_fits_the_screen(live_server, browser, tmp_path: Path, kind: str, size: str):
    campaign = KINDS[kind](**FRAME)
    viewport = SIZES[size]
    page = worker_page(browser, live_server.url, viewport)
    start_task_in_browser(page, campaign_link(campaign))

    frame = page.get_by_role("region", name="About this task")
    expect(frame).to_contain_text("$0.25 per task")
    expect(frame).to_contain_text("Task 1 of at most 3")
    expect(page.get_by_role("timer", name="Time left")).to_have_text(re.compile(r"^(30:00|29:5\d)$"))
    expect(page.get_by_role("button", name="Submit")).to_be_visible()
    expect(page.get_by_role("button", name="Return this task")).to_be_visible()
    page.evaluate("document.fonts.ready")
    shot(page, tmp_path, f"frame-{kind}-{size}")
    assert fits_width(page), "the page scrolls sideways"
    if size == "phone":
        assert small_targets(page) == []
    if size == "laptop" and kind in ("describe_image", "link_words"):
        image = page.locator(".task-image img, .boxes-stage img").first.bounding_box()
        submit = page.get_by_role("button", name="Submit").bounding_box()
        assert image and submit
        assert image["y"] + image["height"] <= LAPTOP["height"] and submit["y"] + submit["height"] <= LAPTOP["height"]
        assert image["x"] + image["width"] <= submit["x"], "image and controls side by side"
    page.context.close()


def test_the_frame_warns_once_before_the_time_runs_out(live_server, browser, tmp_path: Path):
    campaign = describe_image(time_limit_seconds=600)  # the warning comes at 2 minutes left
    page = worker_page(browser, live_server.url)
    start_task_in_browser(page, campaign_link(campaign))
    expect(page.locator("#task-frame")).not_to_have_class(re.compile("is-warning"))
    Assignment.objects.update(deadline=timezone.now() + timedelta(seconds=100))
    page.reload()
    warning = page.locator("#time-warning")
    expect(warning).to_have_text(re.compile(r"^Less than 2 minutes left: please submit soon\.$"))
    expect(page.locator("#task-frame")).to_have_class(re.compile("is-warning"))
    # Announced once: the status region is not rewritten while the clock goes on.
    page.evaluate("""() => { window.__changes = 0;
        new MutationObserver(() => { window.__changes += 1; }).observe(
            document.getElementById('time-warning'), {childList: true, characterData: true, subtree: true}); }""")
    timer = page.get_by_role("timer", name="Time left")
    shown = timer.inner_text()
    expect(timer).not_to_have_text(shown)
    shown = timer.inner_text()
    expect(timer).not_to_have_text(shown)
    assert page.evaluate("window.__changes") == 0
    shot(page, tmp_path, "frame-warning")


def test_when_the_time_runs_out_the_text_stays_and_the_next_task_is_offered(live_server, browser, tmp_path: Path):
    campaign = describe_image()
    page = worker_page(browser, live_server.url)
    start_task_in_browser(page, campaign_link(campaign))
    typed = "A grey cat sleeps on a warm window sill in the sun."
    page.get_by_label("Your description").fill(typed)
    Assignment.objects.update(deadline=timezone.now() + timedelta(seconds=2))
    page.reload()  # the page counts down the seconds the server sends
    expect(page.get_by_role("heading", name="Time is up")).to_be_visible()
    expect(page.locator("#task-expired-message")).to_contain_text("The time for this task ran out; your text is kept")
    expect(page.get_by_role("button", name="Submit")).to_be_hidden()
    expect(page.get_by_label("Your description")).to_have_value(typed)
    expect(page.get_by_role("button", name="Next task")).to_be_focused()
    expect(page.locator("#time-warning")).to_have_text("The time for this task ran out.")
    shot(page, tmp_path, "frame-expired")
    first = Assignment.objects.get()
    with page.expect_navigation():
        page.get_by_role("button", name="Next task").click()
    expect(page.get_by_role("heading", name="Time is up")).to_have_count(0)
    expect(page.get_by_role("region", name="About this task")).to_contain_text("Task 1")
    first.refresh_from_db()
    assert first.status == AssignmentStatus.EXPIRED and first.answer is None
    assert Assignment.objects.filter(status=AssignmentStatus.ACCEPTED).exclude(pk=first.pk).count() == 1


def test_a_refused_late_submission_is_told_plainly(live_server, browser):
    campaign = describe_image()
    page = worker_page(browser, live_server.url)
    start_task_in_browser(page, campaign_link(campaign))
    page.get_by_label("Your description").fill("A grey cat sleeps on a warm window sill in the sun.")
    Assignment.objects.update(status=AssignmentStatus.EXPIRED)  # the expiry job ran meanwhile
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("heading", name="Not submitted")).to_be_visible()
    expect(page.locator("#task-expired-message")).to_have_text(
        "This task was expired and can no longer be submitted. "
        "Your text is kept on this page; copy it if you want to keep it.")
    expect(page.get_by_role("button", name="Next task")).to_be_visible()
    expect(page.get_by_role("button", name="Submit")).to_be_hidden()
    assert Assignment.objects.get().answer is None


def test_link_words_asks_before_submitting_with_no_link(live_server, browser, tmp_path: Path):
    campaign = link_words()
    page = worker_page(browser, live_server.url)
    start_task_in_browser(page, campaign_link(campaign))
    page.get_by_role("button", name="Submit").click()
    yes = page.get_by_role("button", name="Submit with no link")
    expect(yes).to_be_focused()
    expect(page.locator("#task-confirm-text")).to_contain_text("You have not linked any word to a box.")
    expect(page.get_by_role("button", name="Submit", exact=True)).to_be_hidden()
    shot(page, tmp_path, "frame-link-words-confirm")
    page.get_by_role("button", name="Keep linking").click()
    expect(yes).to_be_hidden()
    expect(page.locator(".lw-word").first).to_be_focused()
    assert Assignment.objects.get().answer is None
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(yes).to_be_focused()
    page.keyboard.press("Enter")  # the keyboard confirms
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    assert Assignment.objects.get().answer == {"links": {}}


def test_link_words_with_a_link_submits_without_asking(live_server, browser):
    campaign = link_words()
    page = worker_page(browser, live_server.url)
    start_task_in_browser(page, campaign_link(campaign))
    page.locator(".lw-word[data-index='9']").click()
    page.locator("#lw-boxes .lw-box").nth(2).click()
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    assert Assignment.objects.get().answer == {"links": {"9": 2}}


@pytest.mark.parametrize("size", SIZES)
def test_draw_boxes_puts_the_label_field_with_its_list_at_the_new_box(live_server, browser, tmp_path: Path,
                                                                      size: str):
    campaign = draw_boxes()
    page = worker_page(browser, live_server.url, SIZES[size])
    start_task_in_browser(page, campaign_link(campaign))
    page.evaluate("document.querySelector('.boxes-stage').scrollIntoView({block: 'center'})")
    stage = page.locator(".boxes-stage img").bounding_box()
    assert stage
    start = (stage["x"] + 0.2 * stage["width"], stage["y"] + 0.2 * stage["height"])
    end = (stage["x"] + 0.5 * stage["width"], stage["y"] + 0.5 * stage["height"])
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=8)
    page.mouse.up()

    field = page.get_by_role("combobox", name="Label of new box 1")
    expect(field).to_be_focused()
    assert field.get_attribute("list") == "concept-options"
    options = page.locator("#concept-options option")
    assert sorted(options.evaluate_all("os => os.map(o => o.value)")) == ["dog", "lady", "puppy", "woman"]
    at = field.bounding_box()
    assert at
    assert abs(at["y"] - end[1]) < 60 and abs(at["x"] - start[0]) < 60  # just under the box's corner
    shot(page, tmp_path, f"frame-draw-boxes-label-{size}")
    field.fill("puppy")
    page.keyboard.press("Enter")
    expect(field).to_be_hidden()
    expect(page.locator("#boxes-svg")).to_be_focused()
    expect(page.locator("#box-list > li").first).to_contain_text("→ dog")
    page.keyboard.press("+")  # a box made with the keyboard gets the same field
    expect(page.get_by_role("combobox", name="Label of new box 2")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#boxes-svg")).to_be_focused()


def test_error_messages_clear_as_soon_as_the_field_is_fixed(live_server, browser):
    page = worker_page(browser, live_server.url)
    # describe_image: the word count.
    start_task_in_browser(page, campaign_link(describe_image()))
    text = page.get_by_label("Your description")
    text.fill("A dog.")
    page.get_by_role("button", name="Submit").click()
    error = page.locator("#answer-text-error")
    expect(error).to_have_text("Please describe the image in at least 8 words (you wrote 2).")
    text.press_sequentially(" It runs")  # 4 words: still too short
    expect(error).to_have_text("Please describe the image in at least 8 words (you wrote 2).")
    text.press_sequentially(" on the wet sand")
    expect(error).to_have_text("")
    expect(text).to_have_attribute("aria-invalid", "false")
    expect(page.locator("#task-status")).to_have_text("")

    # rate_story: each question's message goes when it is answered.
    start_task_in_browser(page, campaign_link(rate_story()))
    page.get_by_role("button", name="Submit").click()
    question = page.get_by_role("group", name=re.compile("^If these were my photos"))
    expect(page.locator("#rs-rating-error")).to_contain_text("Please choose an answer")
    question.get_by_label("4 Agree", exact=True).check()
    expect(page.locator("#rs-rating-error")).to_have_text("")
    expect(page.locator("#rs-focused-error")).to_contain_text("Please choose an answer")

    # tell_story: the reason for skipping an album.
    start_task_in_browser(page, campaign_link(tell_story()))
    page.get_by_label("This album is not storyable").check()
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#sb-reason-error")).to_have_text("Please say why this album is not storyable.")
    page.get_by_label("Why is this album not storyable?").press_sequentially("All blurred")
    expect(page.locator("#sb-reason-error")).to_have_text("")

    # draw_boxes: the message about an unlabelled box goes with the change that labels it.
    start_task_in_browser(page, campaign_link(draw_boxes()))
    page.locator("#boxes-svg").focus()
    page.keyboard.press("+")
    page.keyboard.press("Escape")
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#task-status")).to_have_text("Box 1 has no label: choose one from the list.")
    page.get_by_label("Label of box 1").fill("dog")
    expect(page.locator("#task-status")).to_have_text("")


def test_the_campaign_page_copies_the_worker_link(live_server, browser, tmp_path: Path):
    campaign = describe_image()
    page = console_page(browser, live_server.url)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(reverse("campaign-page", args=[campaign.pk]))
    link = page.locator("#worker-link").inner_text()
    assert link.endswith(campaign_link(campaign))
    page.get_by_role("button", name="Copy worker link").click()
    expect(page.get_by_role("status").filter(has_text="Copied")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == link
    shot(page, tmp_path, "frame-copy-link")


@pytest.mark.parametrize("size", SIZES)
def test_prolific_and_mturk_pages_show_the_frame_and_where_to_return(live_server, browser, tmp_path: Path,
                                                                     size: str):
    prolific = prolific_campaign(images=3, tasks=2, reward=Decimal("0.40"))
    worker = get_or_create_worker("prolific", PID)
    assignment = assign_next_hit(prolific, worker, external_id=SESSION)
    page = worker_page(browser, live_server.url, SIZES[size])
    page.goto(reverse("task-page") + f"?t={assignment_token(assignment.pk, PID)}")
    frame = page.get_by_role("region", name="About this task")
    expect(frame).to_contain_text("0.40 per task, paid on Prolific")
    expect(frame).to_contain_text("Task 1 of at most 2")
    expect(page.get_by_role("button", name="Return this task")).to_have_count(0)
    expect(page.locator("#return-note")).to_contain_text("return the study on Prolific")
    assert fits_width(page)
    shot(page, tmp_path, f"frame-prolific-{size}")

    hit = mturk_hit(images=2, assignments=1, max_assignments_per_worker=4)
    page.goto(accept_link(hit))
    frame = page.get_by_role("region", name="About this task")
    expect(frame).to_contain_text("Task 1 of at most 4")
    expect(page.get_by_role("timer", name="Time left")).to_be_visible()
    expect(page.locator("#return-note")).to_contain_text("press “Return” on MTurk's page")
    assert fits_width(page)
    shot(page, tmp_path, f"frame-mturk-{size}")
