"""A worker judges image-caption pairs with the keyboard: y/n on a laptop, then 1-4 on a graded HIT on a phone."""
import pytest
from playwright.sync_api import expect

from annotation.models import Description
from mturk.models import Assignment
from mturk.services.campaigns import create_campaign, publish_campaign
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot
from tests.browser.worker_start import start_task_in_browser
from tests.factories import make_image
from tests.worker_flow import campaign_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CAPTIONS = ["A dog runs on the beach .", "Two children play with a ball .", "A red car parked in a street .",
            "A man rides a bicycle down a hill ."]


def judging_campaign(name: str, gold: dict | None = None, **options):
    pairs = []
    for number, text in enumerate(CAPTIONS):
        image = make_image(f"{name}-{number}.png", size=(480, 320))
        description = Description.objects.create(image=image, text=text)
        pairs.append({"image": image.pk, "description": description.pk})
    if gold:
        pairs[1]["gold"] = gold  # never shown: the page looks the same
    campaign = create_campaign(name=name, task_kind="judge_caption", assignments_per_hit=1,
                               items=[{"pairs": pairs}], options=options or None)
    publish_campaign(campaign)
    return campaign


def test_worker_answers_yes_no_with_the_keyboard(live_server, page, tmp_path):
    campaign = judging_campaign("binary", gold={"relevant": True})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(LAPTOP)
    start_task_in_browser(page, live_server.url + campaign_link(campaign))
    groups = page.locator(".jc-group")
    expect(groups).to_have_count(4)
    expect(page.get_by_role("group", name="Pair 1 of 4: Does this caption describe the image?")).to_be_visible()
    expect(page.locator(".jc-caption")).to_have_text([f"“{text}”" for text in CAPTIONS])
    expect(page.locator(".jc-pair.is-current")).to_have_count(1)
    expect(page.locator(".jc-pair").nth(0)).to_have_class("jc-pair is-current")
    assert "gold" not in page.content().lower()
    assert page.evaluate("[...document.querySelectorAll('.jc-figure img')].every(i => i.naturalWidth > 0)")
    assert fits_width(page)

    # The picture grows to its 1024 px rendition and back.
    enlarge = page.get_by_role("button", name="Enlarge picture 1")
    small = page.locator(".jc-figure img").nth(0).get_attribute("src")
    enlarge.click()
    expect(enlarge).to_have_attribute("aria-pressed", "true")
    assert "/1024/" in page.locator(".jc-figure img").nth(0).get_attribute("src")
    enlarge.click()
    expect(page.locator(".jc-figure img").nth(0)).to_have_attribute("src", small)
    page.locator("body").click(position={"x": 5, "y": 5})

    page.keyboard.press("n")  # pair 1: no, pair 2 is highlighted
    expect(page.get_by_label("No (n)").nth(0)).to_be_checked()
    expect(page.locator("#pair-1")).to_be_focused()
    page.keyboard.press("y")
    expect(page.locator("#pair-1-yes")).to_be_checked()
    expect(page.locator("#jc-progress")).to_have_text("2 of 4 answered.")

    page.reload()  # the draft is kept; the first unanswered pair is highlighted
    expect(page.locator("#pair-0-no")).to_be_checked()
    expect(page.locator("#pair-1-yes")).to_be_checked()
    expect(page.locator(".jc-pair").nth(2)).to_have_class("jc-pair is-current")
    page.locator("#pair-2").focus()
    page.keyboard.press("y")  # pair 3 answered, pair 4 left unanswered
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#pair-3-error")).to_have_text("Please answer yes or no.")
    expect(page.locator("#pair-3")).to_be_focused()
    shot(page, tmp_path, "judge_caption_laptop_error")
    assert not Assignment.objects.exclude(answer=None).exists()

    page.keyboard.press("n")  # the last pair: focus goes to Submit
    expect(page.locator("#pair-3-error")).to_have_text("")
    expect(page.get_by_role("button", name="Submit")).to_be_focused()
    shot(page, tmp_path, "judge_caption_laptop")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    assignment = Assignment.objects.get()
    assert assignment.answer == {"judgements": [{"relevant": False}, {"relevant": True}, {"relevant": True},
                                                {"relevant": False}]}
    assert assignment.check_flags == []  # the gold pair (2) was answered yes
    assert errors == []


def test_worker_answers_a_graded_hit_with_1_to_4_on_a_phone(live_server, page, tmp_path):
    grades = ["Unrelated", "Somewhat related", "Minor errors", "Describes it without errors"]  # grades 1 to 4
    campaign = judging_campaign("graded", gold={"grade": 4}, graded=True, grades=grades)
    page.set_viewport_size(PHONE)
    start_task_in_browser(page, live_server.url + campaign_link(campaign))
    expect(page.get_by_role("group", name="Pair 1 of 4: Does this caption describe the image?")
           .get_by_role("radio")).to_have_count(4)
    best_first = [f"{n} {text}" for n, text in reversed(list(enumerate(grades, 1)))]
    expect(page.locator("#pair-0").locator("label")).to_have_text(best_first)
    assert fits_width(page)
    for key in "3", "1", "2", "4":  # y/n mean nothing here
        page.keyboard.press("y")
        page.keyboard.press(key)
    expect(page.get_by_role("button", name="Submit")).to_be_focused()
    assert fits_width(page)
    shot(page, tmp_path, "judge_caption_phone_graded")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    assignment = Assignment.objects.get()
    assert assignment.answer == {"judgements": [{"grade": 3}, {"grade": 1}, {"grade": 2}, {"grade": 4}]}
    assert assignment.check_flags == ["gold_failed"]  # the gold pair (2, grade 4) was graded 1


def test_researcher_reviews_the_pairs_with_gold_marked(live_server, browser, tmp_path):
    campaign = judging_campaign("reviewed", gold={"relevant": False})
    worker = browser.new_context(viewport=LAPTOP).new_page()
    start_task_in_browser(worker, live_server.url + campaign_link(campaign))
    for key in "yyyn":
        worker.keyboard.press(key)
    worker.keyboard.press("Enter")
    expect(worker.get_by_role("heading", name="Thank you!")).to_be_visible()
    assert Assignment.objects.get().check_flags == ["gold_failed"]

    for viewport in (LAPTOP, PHONE):
        page = console_page(browser, live_server.url, viewport)
        page.goto(f"/campaigns/{campaign.pk}/review/?flag=gold_failed")
        pairs = page.locator(".jc-review-pair")
        expect(pairs).to_have_count(4)
        expect(pairs.nth(1)).to_contain_text("Gold: No — missed")
        expect(pairs.nth(0)).to_contain_text("Answer: Yes")
        assert fits_width(page)
        shot(page, tmp_path, f"judge_caption_review_{viewport['width']}")
