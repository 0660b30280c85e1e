"""A worker picks photos of an album, orders the cards and writes a story on them, in a real browser."""
import pytest
from playwright.sync_api import expect

from mturk.models import HIT, Assignment
from mturk.work.tokens import preview_token
from tests.browser.story_pages import album_and_photos, no_horizontal_scroll, refused_by_server, start_campaign
from tests.browser.worker_start import only_identity_cookie, start_task_in_browser
from tests.worker_flow import campaign_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXTS = [
    "We drove to the lake early in the morning.",
    "The water was calm and cold.",
    "Dad rented a small red boat.",
    "We ate sandwiches on the pier.",
    "At sunset everyone was tired but happy.",
]
HTML = '<img src=x onerror="window.__xss = 1">'


@pytest.fixture
def album_campaign():
    album, photos = album_and_photos(8)
    campaign = start_campaign("tell_story", [{"album": album.pk}])
    return campaign, photos


def photo(page, n):
    """The n-th photo of the album (1-based, time order)."""
    return page.locator("#sb-photos .sb-photo").nth(n - 1)


def cards(page):
    return page.locator("#sb-board .sb-card")


def card_text(page, n):
    return cards(page).nth(n - 1).locator("textarea")


def board_order(page):
    return page.eval_on_selector_all("#sb-board .sb-card", "cards => cards.map(c => Number(c.dataset.photo))")


def test_worker_tells_a_story(live_server, page, album_campaign):
    campaign, photos = album_campaign
    ids = [p.pk for p in photos]
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 1280, "height": 800})
    start_task_in_browser(page, live_server.url + campaign_link(campaign))
    expect(page.locator(".instructions")).to_contain_text("Drag the cards into the order of your story")
    expect(page.locator("#sb-photos .sb-photo")).to_have_count(8)
    # Thumbnails in time order, with their size known before they load (no layout shift).
    first = page.locator("#sb-photos img").first
    expect(first).to_have_attribute("alt", "Photo 1")
    expect(first).to_have_attribute("width", str(photos[0].image.width))
    expect(first).to_have_attribute("height", str(photos[0].image.height))
    assert page.eval_on_selector_all("#sb-photos [data-photo]", "bs => bs.map(b => Number(b.dataset.photo))") == ids
    expect(page.locator("#sb-count")).to_have_text("Cards: 0 of 5")
    expect(page.locator("#sb-empty")).to_be_visible()

    # Pick five photos by clicking them.
    for n in range(1, 6):
        photo(page, n).click()
    expect(cards(page)).to_have_count(5)
    expect(page.locator("#sb-count")).to_have_text("Cards: 5 of 5")
    expect(photo(page, 3)).to_have_class("sb-photo is-on")
    expect(photo(page, 3)).to_contain_text("on card 3")
    assert board_order(page) == ids[:5]
    # A sixth one does not fit; a photo already on the board is not added twice (its card gets the focus).
    photo(page, 6).click()
    expect(page.locator("#sb-live")).to_have_text(
        "The storyboard is full (5 cards): remove a card before adding another photo.")
    photo(page, 2).click()
    expect(card_text(page, 2)).to_be_focused()
    expect(cards(page)).to_have_count(5)
    assert no_horizontal_scroll(page)

    # Mouse: drag card 1 by its photo onto card 4; it takes card 4's place.
    cards(page).nth(0).locator(".sb-card-photo").drag_to(cards(page).nth(3))
    expect(page.locator("#sb-live")).to_have_text("Card moved to position 4 of 5.")
    assert board_order(page) == [ids[1], ids[2], ids[3], ids[0], ids[4]]
    expect(photo(page, 1)).to_contain_text("on card 4")

    # Keyboard: "Move card 5 left" (Enter); the focus stays on the moved card's button.
    page.get_by_role("button", name="Move card 5 left").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#sb-live")).to_have_text("Card moved to position 4 of 5.")
    expect(page.get_by_role("button", name="Move card 4 left")).to_be_focused()
    assert board_order(page) == [ids[1], ids[2], ids[3], ids[4], ids[0]]
    expect(page.get_by_role("button", name="Move card 1 left")).to_be_disabled()

    # Remove card 2 (photo 3), add photo 7 with the keyboard.
    page.get_by_role("button", name="Remove card 2").click()
    expect(cards(page)).to_have_count(4)
    expect(photo(page, 3)).not_to_contain_text("on card")
    photo(page, 7).focus()
    page.keyboard.press("Enter")
    expect(page.locator("#sb-live")).to_have_text("Photo 7 added as card 5.")
    order = [ids[1], ids[3], ids[4], ids[0], ids[6]]
    assert board_order(page) == order

    # Worker text is shown as text in the full story, never as HTML.
    card_text(page, 1).fill("Look " + HTML)
    expect(page.locator("#sb-story")).to_have_text("Look " + HTML)
    expect(page.locator("#sb-story img")).to_have_count(0)
    assert page.evaluate("window.__xss") is None

    # Too short: refused on the page, and by the server.
    for n, word in enumerate(["One.", "Two.", "Three.", "Four.", "Five."], start=1):
        card_text(page, n).fill(word)
    expect(page.locator("#sb-story")).to_have_text("One. Two. Three. Four. Five.")
    expect(page.locator("#sb-words")).to_have_text("5 / 15 words")
    page.get_by_role("button", name="Submit").click()
    short = "Your story is too short: write at least 15 words in total (you wrote 5)."
    expect(page.locator("#sb-cards-error")).to_have_text(short)
    expect(page.locator("#task-status")).to_have_text("Please correct the highlighted fields.")
    expect(page.locator("#sb-cards")).to_be_focused()
    words = ["One.", "Two.", "Three.", "Four.", "Five."]
    refused = refused_by_server(page, {"cards": [{"photo": i, "text": w} for i, w in zip(order, words, strict=True)]})
    assert refused["status"] == 400
    assert refused["body"]["fields"]["cards"] == [short]
    assert not Assignment.objects.exclude(answer=None).exists()

    # The story as the worker means it; the same sentence on cards 1 and 3 is refused, card 3 marked.
    for n, text in enumerate(TEXTS, start=1):
        card_text(page, n).fill(text)
    card_text(page, 3).fill("We drove to the lake, early in the morning!")
    page.get_by_role("button", name="Submit").click()
    same = "Cards 1 and 3 have the same text: write a different sentence on each."
    expect(page.locator("#sb-cards-error")).to_have_text("Card 3 needs a change: see the message under it.")
    expect(card_text(page, 3)).to_have_attribute("aria-invalid", "true")
    expect(cards(page).nth(2).locator(".field-error")).to_have_text(same)
    card_text(page, 3).fill(TEXTS[2])  # fixed: the live checks clear the messages
    expect(page.locator("#sb-cards-error")).to_have_text("")
    expect(card_text(page, 3)).to_have_attribute("aria-invalid", "false")
    expect(page.locator("#sb-story")).to_have_text(" ".join(TEXTS))
    expect(page.locator("#sb-words")).to_have_text("34 / 15 words")

    # A reload keeps everything: cards, order, texts.
    page.reload()
    expect(cards(page)).to_have_count(5)
    assert board_order(page) == order
    expect(card_text(page, 4)).to_have_value(TEXTS[3])
    expect(page.locator("#sb-story")).to_have_text(" ".join(TEXTS))
    expect(photo(page, 7)).to_contain_text("on card 5")

    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    assert Assignment.objects.get().answer == {
        "cards": [{"photo": i, "text": t} for i, t in zip(order, TEXTS, strict=True)]
    }
    assert only_identity_cookie(page.context)
    assert errors == []


def test_removed_card_keeps_its_text(live_server, page, album_campaign):
    campaign, _ = album_campaign
    start_task_in_browser(page, live_server.url + campaign_link(campaign))
    photo(page, 4).click()
    card_text(page, 1).fill("A text worth keeping.")
    page.get_by_role("button", name="Remove card 1").click()
    expect(cards(page)).to_have_count(0)
    expect(page.locator("#sb-live")).to_contain_text("Its text comes back if you add the photo again.")
    expect(photo(page, 4)).to_be_focused()
    page.keyboard.press("Space")
    expect(card_text(page, 1)).to_have_value("A text worth keeping.")


def test_album_not_storyable(live_server, page, album_campaign):
    campaign, _ = album_campaign
    start_task_in_browser(page, live_server.url + campaign_link(campaign))
    photo(page, 1).click()
    card_text(page, 1).fill("Half a story.")
    page.get_by_label("This album is not storyable").check()
    expect(page.locator("#sb-story-area")).to_be_hidden()
    reason = page.get_by_label("Why is this album not storyable?")
    expect(reason).to_be_focused()
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#sb-reason-error")).to_have_text("Please say why this album is not storyable.")
    expect(reason).to_be_focused()

    reason.fill("Only  screenshots of a spreadsheet.")
    page.reload()  # the draft keeps the skip and its reason
    expect(page.get_by_label("This album is not storyable")).to_be_checked()
    expect(reason).to_have_value("Only  screenshots of a spreadsheet.")
    expect(page.locator("#sb-story-area")).to_be_hidden()
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    assert Assignment.objects.get().answer == {"skip": True, "reason": "Only screenshots of a spreadsheet."}


def test_preview_shows_album_read_only(live_server, page, album_campaign):
    campaign, _ = album_campaign
    hit = HIT.objects.get(campaign=campaign)
    page.goto(live_server.url + f"/task/?preview={preview_token(hit.pk)}")
    expect(page.locator(".preview-banner")).to_be_visible()
    expect(page.locator("#sb-photos img")).to_have_count(8)
    expect(page.get_by_role("button")).to_have_count(0)
    expect(page.get_by_role("textbox")).to_have_count(0)
