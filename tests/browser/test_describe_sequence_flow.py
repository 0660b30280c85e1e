"""A worker describes each photo of a stage-1 sequence (DIS), in a real browser."""
import pytest
from playwright.sync_api import expect

from mturk.models import Assignment
from tests.browser.story_pages import (
    album_and_photos,
    large_url,
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
    "A white boat is tied to a wooden dock.",
    "A girl in a red swimsuit jumps into a lake.",
    "Four people sit on a blanket under tall trees.",
    "Dark clouds hang low over green hills.",
    "Two children run along a wet road in the rain.",
]


def test_worker_describes_each_photo(live_server, page):
    album, photos = album_and_photos(6)
    sequence = make_story(album, photos[1:6], [f"Story card {n}." for n in range(1, 6)])
    campaign = start_campaign("describe_sequence", [{"sequence": sequence.pk}])
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 1280, "height": 800})
    start_task_in_browser(page, live_server.url + campaign_link(campaign))
    expect(page.locator(".instructions")).to_contain_text("These photos form a sequence")
    expect(page.locator("#ds-texts .sb-card")).to_have_count(5)
    expect(page.locator("#ds-texts img").first).to_have_attribute("src", thumbnail_url(photos[1]))
    assert no_horizontal_scroll(page)
    # The 1024 px rendition only on demand.
    page.get_by_role("button", name="Enlarge photo 3").click()
    zoomed = page.get_by_role("dialog").locator("img")
    expect(zoomed).to_have_attribute("src", large_url(photos[3]))
    expect(page.get_by_role("dialog").get_by_role("button", name="Close")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_be_hidden()

    for n, text in enumerate(TEXTS, start=1):
        page.get_by_label(f"Description of photo {n}").fill(text)
    page.get_by_label("Description of photo 2").fill("A girl swims.")
    page.get_by_label("Description of photo 4").fill(TEXTS[0].upper())
    expect(page.locator("#ds-text-2-count")).to_have_text("3 / 5 words")
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#ds-text-2-error")).to_have_text(
        "Please describe the image in at least 5 words (you wrote 3).")
    expect(page.locator("#ds-text-4-error")).to_have_text(
        "Descriptions 1 and 4 have the same text: write a different sentence on each.")
    expect(page.get_by_label("Description of photo 2")).to_be_focused()

    refused = refused_by_server(page, {"texts": [TEXTS[0], "A girl swims.", *TEXTS[2:]]})
    assert refused["status"] == 400
    assert refused["body"]["fields"]["texts"] == ["Description 2: write at least 5 words (you wrote 3)."]
    assert not Assignment.objects.exclude(answer=None).exists()

    page.get_by_label("Description of photo 2").fill(TEXTS[1])
    page.get_by_label("Description of photo 4").fill(TEXTS[3])
    expect(page.locator("#ds-text-4-error")).to_have_text("")  # the live check after a refusal
    page.reload()  # the draft survives
    expect(page.get_by_label("Description of photo 4")).to_have_value(TEXTS[3])
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    assert Assignment.objects.get().answer == {"texts": TEXTS}
    assert errors == []
