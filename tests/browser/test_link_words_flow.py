"""A worker links the words of a description to the numbered boxes of its image, in a real browser."""
import re

import pytest
from playwright.sync_api import expect

from annotation.models import Box, Concept, Description
from metrics.text.markup import tokenize
from mturk.models import HIT, Assignment
from mturk.services.campaigns import create_campaign, publish_campaign
from mturk.work.tokens import preview_token
from tests.browser.worker_start import only_identity_cookie, start_task_in_browser
from tests.factories import label_vocabulary, make_image
from tests.worker_flow import campaign_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH, HEIGHT = 900, 600
TEXT = "A woman in a white dress walks her small dog, smiling."
# 0 A, 1 woman, 2 in, 3 a, 4 white, 5 dress, 6 walks, 7 her, 8 small, 9 dog, 10 ",", 11 smiling, 12 "."
BOXES = [  # number, concept, x, y, width, height (original pixels)
    (0, "woman", 60, 80, 220, 480),
    (1, "dress", 340, 260, 200, 300),
    (2, "dog", 620, 380, 240, 180),
]


@pytest.fixture
def campaign():
    image = make_image("walk.png", size=(WIDTH, HEIGHT))
    for number, name, x, y, width, height in BOXES:
        concept, _ = Concept.objects.get_or_create(vocabulary=label_vocabulary(), name=name)
        Box.objects.create(image=image, number=number, concept=concept, x=x, y=y, width=width, height=height)
    description = Description.objects.create(image=image, text=TEXT, tokens=tokenize(TEXT), source="gold")
    campaign = create_campaign(name="Links", task_kind="link_words", items=[{"description": description.pk}])
    publish_campaign(campaign)
    return campaign


def word(page, index):
    return page.locator(f".lw-word[data-index='{index}']")


def box_button(page, number):
    return page.locator("#lw-boxes .lw-box").nth(number)


def click_box_in_image(page, number):
    """Click the middle of box `number` on the image (original pixels -> screen)."""
    _, _, x, y, width, height = BOXES[number]
    page.evaluate("document.querySelector('.boxes-stage').scrollIntoView({block: 'center'})")
    shown = page.locator("#boxes-svg").bounding_box()
    scale = shown["width"] / WIDTH
    page.mouse.click(shown["x"] + (x + width / 2) * scale, shown["y"] + (y + height / 2) * scale)


def links(page):
    """The page's "Your links" list: one entry per linked word, in the sentence's order."""
    return page.locator("#lw-links li")


def no_markup(page):
    """Workers never see the stored markup ([word]^n)."""
    text = page.locator("main").inner_text()
    assert "]^" not in text and "[" not in text, text


def test_worker_links_words_to_boxes(live_server, page, campaign):
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    start_task_in_browser(page, live_server.url + campaign_link(campaign))
    expect(page.locator(".instructions")).to_contain_text("click the word and then its box")
    expect(page.locator("#boxes-svg .bx")).to_have_count(3)
    expect(page.locator("#boxes-svg")).to_contain_text("3 dog")
    expect(box_button(page, 1)).to_contain_text("2 dress")
    # Every word is a button; the comma and the full stop are not.
    expect(page.locator(".lw-word")).to_have_count(11)
    expect(page.locator(".lw-punct")).to_have_count(2)
    expect(page.locator("#lw-sentence")).to_have_text("A woman in a white dress walks her small dog, smiling.")
    expect(links(page)).to_have_count(0)
    expect(page.locator("#lw-links-empty")).to_be_visible()

    # Word, then box (clicked in the image).
    word(page, 1).click()
    expect(word(page, 1)).to_have_attribute("aria-pressed", "true")
    click_box_in_image(page, 0)
    expect(word(page, 1)).to_have_attribute("aria-pressed", "false")
    expect(word(page, 1).locator("sup")).to_have_text("1")  # boxes read from 1 (the markup keeps the stored numbers)
    expect(word(page, 1)).to_have_class(re.compile(r"\bis-linked\b.*\bc0\b"))
    expect(box_button(page, 0)).to_contain_text("words: woman")

    # Box (in the side list), then word.
    box_button(page, 1).click()
    expect(box_button(page, 1)).to_have_attribute("aria-pressed", "true")
    word(page, 5).click()
    expect(word(page, 5).locator("sup")).to_have_text("2")

    # Keyboard only: Enter on a word, Tab along to the box, Space.
    word(page, 9).focus()
    page.keyboard.press("Enter")
    expect(word(page, 9)).to_have_attribute("aria-pressed", "true")
    for _ in range(6):  # "smiling", then the box list (the Unlink button is disabled)
        page.keyboard.press("Tab")
        if box_button(page, 2).evaluate("el => el === document.activeElement"):
            break
    expect(box_button(page, 2)).to_be_focused()
    page.keyboard.press("Space")
    expect(word(page, 9).locator("sup")).to_have_text("3")
    expected = ["woman → box 1 woman", "dress → box 2 dress", "dog → box 3 dog"]
    expect(links(page)).to_have_text(expected)
    expect(page.locator("#lw-links-empty")).to_be_hidden()
    expect(links(page).nth(2).locator(".lw-badge")).to_have_class(re.compile(r"\bc2\b"))
    no_markup(page)

    # A wrong link, replaced by linking again, then removed with the Delete key.
    word(page, 8).click()
    box_button(page, 1).click()
    expect(links(page).nth(2)).to_have_text("small → box 2 dress")
    word(page, 8).click()
    click_box_in_image(page, 2)
    expect(links(page).nth(2)).to_have_text("small → box 3 dog")
    expect(box_button(page, 2)).to_contain_text("words: small, dog")
    word(page, 8).click()
    expect(page.get_by_role("button", name="Unlink")).to_be_enabled()
    page.keyboard.press("Delete")
    expect(word(page, 8).locator("sup")).to_have_count(0)
    expect(word(page, 8)).to_be_focused()

    # Another one removed with the Unlink button.
    word(page, 7).click()
    box_button(page, 0).click()
    expect(links(page).nth(2)).to_have_text("her → box 1 woman")
    word(page, 7).click()
    page.get_by_role("button", name="Unlink").click()
    expect(word(page, 7)).to_be_focused()
    expect(links(page)).to_have_text(expected)
    expect(page.get_by_role("button", name="Unlink")).to_be_disabled()

    # The draft survives a reload.
    page.reload()
    expect(links(page)).to_have_text(expected)
    no_markup(page)
    expect(word(page, 5).locator("sup")).to_have_text("2")

    # The server refuses a box that is not on the image (the page's checks bypassed), and stores nothing.
    token = page.locator("#task-form").get_attribute("data-token")
    refused = page.evaluate(
        """async (token) => {
            const r = await fetch('/task/submit/', {method: 'POST', headers: {'Content-Type': 'application/json'},
                                  body: JSON.stringify({token, answer: {links: {'1': 0, '9': 7}}})});
            return {status: r.status, body: await r.json()};
        }""",
        token,
    )
    assert refused["status"] == 400
    assert refused["body"]["fields"]["links"] == ["Word 9: no box 7 in this image."]
    assert not Assignment.objects.exclude(answer=None).exists()

    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    assert Assignment.objects.get().answer == {"links": {"1": 0, "5": 1, "9": 2}}
    assert only_identity_cookie(page.context)
    assert errors == []  # no script error on the page


def test_no_link_is_a_valid_answer(live_server, page, campaign):
    start_task_in_browser(page, live_server.url + campaign_link(campaign))
    page.keyboard.press("Escape")  # nothing selected: nothing happens
    page.get_by_role("button", name="Submit").click()
    page.get_by_role("button", name="Submit with no link").click()  # asked in the page first
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    assert Assignment.objects.get().answer == {"links": {}}


def test_preview_shows_sentence_and_boxes_read_only(live_server, page, campaign):
    hit = HIT.objects.get(campaign=campaign)
    page.goto(live_server.url + f"/task/?preview={preview_token(hit.pk)}")
    expect(page.locator(".preview-banner")).to_be_visible()
    expect(page.locator("#boxes-svg .bx")).to_have_count(3)
    expect(page.locator("#lw-sentence")).to_have_text(TEXT)
    expect(page.locator(".lw-word")).to_have_count(0)
    expect(page.locator("#lw-boxes li")).to_have_count(3)
    expect(page.get_by_role("button")).to_have_count(0)
