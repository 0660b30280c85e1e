"""A judge rates a story on its photo sequence (Likert 1-5, with and without the six aspects)."""
import pytest
from playwright.sync_api import expect

from mturk.models import Assignment
from tests.browser.story_pages import album_and_photos, make_story, no_horizontal_scroll, start_campaign
from tests.browser.worker_start import start_task_in_browser
from tests.worker_flow import campaign_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUESTION = "If these were my photos, I would like using a story like this to share my experience with my friends."
ASPECTS = {
    "focused": "The story is focused.",
    "coherent": "The story is structured and coherent.",
    "would_share": "I would share this story with my friends.",
    "human_like": "This story sounds like it was written by a human.",
    "grounded": "This story is directly related to the photos.",
    "detail": "This story has the appropriate amount of detail.",
}
HTML = '<b>Boat</b> <img src=x onerror="window.__xss = 1">'
TEXTS = ["We took the boat out.", HTML, "The lake was calm.", "We had lunch.", "Then we went home."]


def rate(page, question, label):
    page.get_by_role("group", name=question, exact=True).get_by_label(label, exact=True).check()


def test_judge_rates_with_aspects(live_server, page):
    album, photos = album_and_photos(5)
    story = make_story(album, photos, TEXTS)
    campaign = start_campaign("rate_story", [{"story": story.pk}], options={"aspects": True})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 1280, "height": 800})
    start_task_in_browser(page, live_server.url + campaign_link(campaign))

    # The story's texts (typed by another worker) are shown as text, never as HTML.
    expect(page.locator(".sb-card-text").nth(1)).to_have_text(HTML)
    expect(page.locator("#sb-story")).to_have_text(" ".join(TEXTS))
    expect(page.locator(".sb-board-box b, .sb-board-box .sb-card-text img, #sb-story img")).to_have_count(0)
    assert page.evaluate("window.__xss") is None
    expect(page.get_by_role("group", name=QUESTION, exact=True).get_by_role("radio")).to_have_count(5)
    labels = page.get_by_role("group", name=QUESTION, exact=True).locator("label")
    expect(labels).to_have_text(["1 Strongly disagree", "2 Disagree", "3 Neither agree nor disagree", "4 Agree",
                                 "5 Strongly agree"])
    assert no_horizontal_scroll(page)

    rate(page, QUESTION, "4 Agree")
    answers = {"focused": 5, "coherent": 4, "would_share": 2, "human_like": 5, "grounded": 3}
    scale = ["1 Strongly disagree", "2 Disagree", "3 Neither agree nor disagree", "4 Agree", "5 Strongly agree"]
    for name, value in answers.items():
        rate(page, ASPECTS[name], scale[value - 1])
    page.get_by_role("button", name="Submit").click()  # "detail" is not answered
    expect(page.locator("#rs-detail-error")).to_have_text(
        "Please choose an answer from 1 (strongly disagree) to 5 (strongly agree).")
    expect(page.locator("#rs-detail")).to_be_focused()
    expect(page.locator("#rs-rating-error")).to_have_text("")
    assert not Assignment.objects.exclude(answer=None).exists()

    rate(page, ASPECTS["detail"], "3 Neither agree nor disagree")
    expect(page.locator("#rs-detail-error")).to_have_text("")
    page.reload()  # the draft keeps the answers
    expect(page.get_by_role("group", name=ASPECTS["would_share"]).get_by_label("2 Disagree")).to_be_checked()
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    assert Assignment.objects.get().answer == {"rating": 4, "aspects": {**answers, "detail": 3}}
    assert errors == []


def test_judge_rates_without_aspects(live_server, page):
    album, photos = album_and_photos(5)
    story = make_story(album, photos, [t for t in TEXTS if t != HTML] + ["One more card."])
    campaign = start_campaign("rate_story", [{"story": story.pk}])
    start_task_in_browser(page, live_server.url + campaign_link(campaign))
    expect(page.locator("#rs-aspects")).to_have_count(0)
    expect(page.get_by_role("radio")).to_have_count(5)
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#rs-rating-error")).to_have_text(
        "Please choose an answer from 1 (strongly disagree) to 5 (strongly agree).")
    rate(page, QUESTION, "2 Disagree")
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    assert Assignment.objects.get().answer == {"rating": 2}
