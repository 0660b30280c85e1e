"""A worker chooses one of an album's stage-1 photo sequences and re-tells it, in a real browser."""
import pytest
from playwright.sync_api import expect

from mturk.models import Assignment
from tests.browser.story_pages import (
    album_and_photos,
    make_story,
    no_horizontal_scroll,
    refused_by_server,
    start_campaign,
    thumbnail_url,
)
from tests.browser.worker_start import start_task_in_browser
from tests.worker_flow import campaign_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXTS = [
    "The boat was waiting for us at the dock.",
    "My sister jumped into the cold water.",
    "Then we had a picnic under the trees.",
    "A storm came over the hills.",
    "We ran home laughing in the rain.",
]


@pytest.fixture
def setup():
    album, photos = album_and_photos(8)
    first = make_story(album, photos[:5], [f"First story, card {n}." for n in range(1, 6)])
    second = make_story(album, [photos[i] for i in (3, 5, 6, 7, 1)], [f"Second story, card {n}." for n in range(1, 6)])
    campaign = start_campaign("retell_story", [{"album": album.pk}])
    return campaign, first, second, photos


def board(page, story):
    return page.locator(f"#rt-board-{story.pk}")


def test_worker_retells_the_second_sequence(live_server, page, setup):
    campaign, first, second, photos = setup
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 1280, "height": 800})
    start_task_in_browser(page, live_server.url + campaign_link(campaign))
    expect(page.locator(".sb-seq")).to_have_count(2)
    expect(page.locator(".sb-seq").nth(1).locator("img")).to_have_count(5)
    # Stage-1 texts are not shown: only the photos of each sequence.
    expect(page.locator("body")).not_to_contain_text("First story")
    expect(page.locator("#rt-pick-first")).to_be_visible()
    expect(board(page, first)).to_be_hidden()
    assert no_horizontal_scroll(page)

    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#rt-sequence-error")).to_have_text("Choose one of the photo sequences shown.")

    # Sequence 1 first, one text typed; then sequence 2, which keeps its own texts.
    page.get_by_label("Sequence 1", exact=True).check()
    expect(board(page, first)).to_be_visible()
    expect(page.locator("#rt-sequence-error")).to_have_text("")
    board(page, first).get_by_label("Card 1").fill("A text for the first sequence.")
    page.get_by_label("Sequence 2", exact=True).check()
    expect(board(page, first)).to_be_hidden()
    expect(page.locator("#sb-live")).to_have_text("Sequence 2 chosen: write one sentence on each of its 5 cards.")
    cards = board(page, second).locator(".sb-card")
    expect(cards).to_have_count(5)
    srcs = [cards.nth(i).locator("img").get_attribute("src") for i in range(5)]
    assert srcs == [thumbnail_url(photos[i]) for i in (3, 5, 6, 7, 1)]  # the sequence's own order
    expect(board(page, second).get_by_label("Card 1")).to_have_value("")
    expect(board(page, second).locator("button", has_text="◀")).to_have_count(0)  # fixed order

    for n, text in enumerate(TEXTS[:4], start=1):
        board(page, second).get_by_label(f"Card {n}").fill(text)
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#rt-texts-error")).to_have_text("Card 5 needs a change: see the message under it.")
    expect(page.locator(f"#rt-{second.pk}-5-error")).to_have_text("Card 5 is empty: write a sentence or phrase on it.")
    board(page, second).get_by_label("Card 5").fill(TEXTS[4])
    expect(page.locator("#rt-texts-error")).to_have_text("")
    expect(page.locator("#sb-story")).to_have_text(" ".join(TEXTS))

    page.get_by_label("Sequence 1", exact=True).check()
    expect(board(page, first).get_by_label("Card 1")).to_have_value("A text for the first sequence.")
    expect(page.locator("#sb-story")).to_have_text("A text for the first sequence.")
    page.reload()  # the draft keeps both sequences' texts and the choice
    expect(page.get_by_label("Sequence 1", exact=True)).to_be_checked()
    page.get_by_label("Sequence 2", exact=True).check()
    expect(board(page, second).get_by_label("Card 5")).to_have_value(TEXTS[4])

    refused = refused_by_server(page, {"sequence": second.pk, "texts": ["Short.", "Two.", "Three.", "Four.", "Five."]})
    assert refused["status"] == 400
    assert refused["body"]["fields"]["texts"] == [
        "Your story is too short: write at least 15 words in total (you wrote 5)."]

    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    assert Assignment.objects.get().answer == {"sequence": second.pk, "texts": TEXTS}
    assert errors == []
