"""A judge rates outputs (rate_output) and compares two (compare_outputs) with the keyboard only, on a laptop
(1366x768) and on a phone (390x844): Tab between questions, arrow keys and Space to choose, Enter to submit."""
import pytest
from playwright.sync_api import expect

from mturk.models import Assignment
from tests.browser.console import LAPTOP, PHONE, fits_width, shot
from tests.browser.worker_start import start_task_in_browser
from tests.evaluation.kinds_data import campaign, evaluation, item_id, outputs, pair_items, rating_items
from tests.worker_flow import campaign_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def tab_to(page, selector: str, limit: int = 60) -> None:
    """Press Tab until the element matching `selector` has the focus."""
    for _ in range(limit):
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def choose(page, group: str, value_index: int) -> None:
    """Tab into the radio group, Space the first choice, then ArrowRight to the wanted one."""
    tab_to(page, f"input[name='{group}']")
    page.keyboard.press("Space")
    for _ in range(value_index):
        page.keyboard.press("ArrowRight")
    focused_label = page.locator(f"label:has(input[name='{group}']:focus)")
    assert focused_label.evaluate("l => getComputedStyle(l).outlineStyle") != "none"  # focus is seen


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_judge_rates_every_caption_with_the_keyboard(live_server, page, tmp_path, viewport):
    ev = evaluation(items=1, aspects=("correct", "human_caption"))
    made = campaign(ev, "rate_output", rating_items(ev), assignments=1)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(viewport)
    start_task_in_browser(page, live_server.url + campaign_link(made))
    expect(page.get_by_role("heading", name="Caption A")).to_be_visible()
    expect(page.get_by_role("group", name="Caption C: How correct is this caption?").get_by_role("radio")) \
        .to_have_count(5)
    assert page.evaluate("[...document.querySelectorAll('.he-picture img')].every(i => i.naturalWidth > 0)")
    assert fits_width(page)

    wanted = [(4, 2), (1, 5), (3, 3)]  # (correct, human_caption) of captions A, B, C
    for index, (correct, human) in enumerate(wanted[:2]):
        choose(page, f"r-{index}-correct", correct - 1)
        choose(page, f"r-{index}-human_caption", human - 1)
    choose(page, "r-2-correct", 2)
    page.keyboard.press("Enter")  # the last question is not answered: named, focused
    expect(page.locator("#r-2-human_caption-error")).to_have_text("Please choose an answer from 1 to 5.")
    expect(page.locator("#r-2-human_caption")).to_be_focused()
    assert not Assignment.objects.exclude(answer=None).exists()
    choose(page, "r-2-human_caption", 2)
    expect(page.locator("#r-2-human_caption-error")).to_have_text("")
    shot(page, tmp_path, f"rate_output_{viewport['width']}")
    assert fits_width(page)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    assert Assignment.objects.get().answer == {
        "ratings": [{"correct": c, "human_caption": h} for c, h in wanted]}
    assert errors == []


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_judge_compares_two_stories_with_the_keyboard(live_server, page, tmp_path, viewport):
    ev = evaluation(items=1, output_kind="story", design="pairwise", aspects=("focused", "coherent", "grounded"))
    a, b, _ = outputs(ev, 0)
    made = campaign(ev, "compare_outputs", [{"item": item_id(ev, 0), "outputs": [b, a]}], assignments=1)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(viewport)
    start_task_in_browser(page, live_server.url + campaign_link(made))
    sides = page.locator(".he-side")
    expect(sides.nth(0)).to_contain_text("Story 1")
    expect(sides.nth(1)).to_contain_text("Story 2")
    first, second = sides.nth(0).bounding_box(), sides.nth(1).bounding_box()
    if viewport["width"] >= 900:  # side by side
        assert second["x"] > first["x"] + first["width"] - 1 and abs(second["y"] - first["y"]) < 1
    else:  # stacked
        assert abs(second["x"] - first["x"]) < 1 and second["y"] >= first["y"] + first["height"]
    expect(page.get_by_role("group", name="Which story is more focused?").get_by_role("radio")).to_have_count(3)
    assert fits_width(page)

    choose(page, "p-focused", 1)  # Story 2
    choose(page, "p-coherent", 2)  # About the same
    choose(page, "p-grounded", 0)  # Story 1
    expect(page.get_by_role("radio", name="About the same").nth(1)).to_be_checked()
    shot(page, tmp_path, f"compare_outputs_{viewport['width']}")
    assert fits_width(page)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    assert Assignment.objects.get().answer == {"preferences": {"focused": 1, "coherent": "tie", "grounded": 0}}
    assert errors == []


def test_pairs_of_captions_side_by_side_on_a_laptop(live_server, page, tmp_path):
    ev = evaluation(items=1, design="pairwise", aspects=("describes",))
    made = campaign(ev, "compare_outputs", pair_items(ev)[:1], assignments=1)
    page.set_viewport_size(LAPTOP)
    start_task_in_browser(page, live_server.url + campaign_link(made))
    choose(page, "p-describes", 0)
    shot(page, tmp_path, "compare_outputs_captions_1366")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    assert Assignment.objects.get().answer == {"preferences": {"describes": 0}}
