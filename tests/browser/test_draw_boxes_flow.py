"""A worker draws, labels, moves, resizes, deletes and undoes boxes, in a real browser."""
import re

import pytest
from playwright.sync_api import expect

from annotation.models import Concept, Vocabulary
from mturk.models import Assignment
from mturk.services.campaigns import create_campaign, publish_campaign
from tests.browser.worker_start import only_identity_cookie, start_task_in_browser
from tests.factories import label_vocabulary, make_image
from tests.worker_flow import campaign_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH, HEIGHT = 1600, 1200  # the original is larger than the page: the task shows a scaled rendition
SELECTED = re.compile(r"\bis-selected\b")


@pytest.fixture
def campaign():
    image = make_image("street.png", size=(WIDTH, HEIGHT))
    woman = Concept.objects.create(vocabulary=label_vocabulary(), name="woman", synonyms=["lady", "female person"])
    dog = Concept.objects.create(vocabulary=label_vocabulary(), name="dog", synonyms=["puppy"])
    Concept.objects.create(vocabulary=label_vocabulary(), name="tree", synonyms=[])  # not in the campaign's vocabulary
    vocabulary = Vocabulary.objects.create(name="street scenes")
    vocabulary.concepts.set([woman, dog])
    campaign = create_campaign(name="Boxes", task_kind="draw_boxes", items=[{"image": image.pk}],
                               options={"vocabulary": "street scenes"})
    publish_campaign(campaign)
    return campaign


class Stage:
    """Gestures on the image, given as fractions of the displayed image. Each gesture reads the image's
    on-screen bounding box and returns its end points converted to ORIGINAL image pixels."""

    def __init__(self, page):
        self.page = page
        box = self.bounding_box()
        self.scale = WIDTH / box["width"]  # original pixels per screen pixel
        assert self.scale > 1  # the 1600 px image is shown smaller than it is
        assert abs(HEIGHT / box["height"] - self.scale) < 0.01

    def bounding_box(self):
        self.page.evaluate("document.querySelector('.boxes-stage').scrollIntoView({block: 'center'})")
        return self.page.locator(".boxes-stage img").bounding_box()

    def drag(self, start, end):
        box = self.bounding_box()
        points = [(box["x"] + fx * box["width"], box["y"] + fy * box["height"]) for fx, fy in (start, end)]
        mouse = self.page.mouse
        mouse.move(*points[0])
        mouse.down()
        mouse.move(*points[1], steps=8)
        mouse.up()
        return [((sx - box["x"]) * self.scale, (sy - box["y"]) * self.scale) for sx, sy in points]

    def click(self, at):
        box = self.bounding_box()
        self.page.mouse.click(box["x"] + at[0] * box["width"], box["y"] + at[1] * box["height"])


def rectangle(start, end):
    (x1, y1), (x2, y2) = start, end
    return {"x": x1, "y": y1, "width": x2 - x1, "height": y2 - y1}


def close(box, expected, concept):
    assert box["concept"] == concept
    for key in ("x", "y", "width", "height"):
        assert isinstance(box[key], int)
        assert abs(box[key] - expected[key]) <= 2, (key, box, expected)


def rows(page):
    return page.locator("#box-list > li")


def current_boxes(page):
    return page.evaluate("window.TaskKinds.draw_boxes.collect(document.getElementById('task-form')).boxes")


def test_worker_draws_labels_edits_and_submits_boxes(live_server, page, campaign):
    woman, dog = Concept.objects.get(name="woman"), Concept.objects.get(name="dog")
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    start_task_in_browser(page, live_server.url + campaign_link(campaign))
    expect(page.locator(".instructions")).to_contain_text("Draw a tight box")
    expect(page.locator("#boxes-help")).to_contain_text("Ctrl")
    expect(page.locator(".boxes-stage img")).to_be_visible()
    assert page.evaluate("document.querySelector('.boxes-stage img').naturalWidth") == 1024  # the rendition
    stage = Stage(page)

    # Box 1, labelled by typing a synonym: it resolves to its concept.
    drawn_a = stage.drag((0.10, 0.20), (0.35, 0.70))
    expect(rows(page)).to_have_count(1)
    expect(page.locator("#boxes-svg .bx")).to_have_count(1)
    close(current_boxes(page)[0], rectangle(*drawn_a), None)
    page.get_by_label("Label of box 1").fill("Lady")
    expect(rows(page).nth(0)).to_contain_text("→ woman")
    expect(page.locator("#boxes-svg")).to_contain_text("1 woman")

    # Box 2 is left unlabelled: the page refuses to submit and says which box.
    drawn_b = stage.drag((0.50, 0.40), (0.80, 0.90))
    expect(rows(page)).to_have_count(2)
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#task-status")).to_have_text("Box 2 has no label: choose one from the list.")
    expect(page.get_by_label("Label of box 2")).to_be_focused()
    expect(page.get_by_label("Label of box 2")).to_have_attribute("aria-invalid", "true")
    page.get_by_label("Label of box 2").fill("tree")  # a concept, but not of this vocabulary
    expect(rows(page).nth(1)).to_contain_text("Unknown label")
    page.get_by_label("Label of box 2").fill("dog")
    expect(rows(page).nth(1)).to_contain_text("→ dog")
    assert not Assignment.objects.exclude(answer=None).exists()

    # Move box 1: click to select it, then drag its body.
    stage.click((0.225, 0.45))
    expect(rows(page).nth(0)).to_have_class(SELECTED)
    grab, drop = stage.drag((0.225, 0.45), (0.25, 0.50))
    expected_a = rectangle(*drawn_a)
    expected_a["x"] += drop[0] - grab[0]
    expected_a["y"] += drop[1] - grab[1]
    close(current_boxes(page)[0], expected_a, woman.pk)

    # Resize box 2 by its bottom-right handle (select it first by clicking it).
    stage.click((0.65, 0.65))
    expect(rows(page).nth(1)).to_have_class(SELECTED)
    expect(page.locator("#boxes-svg .bx-h")).to_have_count(4)
    _, corner = stage.drag((0.80, 0.90), (0.90, 0.95))
    expected_b = rectangle(drawn_b[0], corner)
    close(current_boxes(page)[1], expected_b, dog.pk)

    # A third box drawn by mistake (inside box 1: dragging on a box that is not selected draws):
    # Delete removes it, Ctrl+Z brings it back, Delete again.
    stage.drag((0.15, 0.30), (0.30, 0.60))
    expect(rows(page)).to_have_count(3)
    close(current_boxes(page)[0], expected_a, woman.pk)  # box 1 did not move
    mistake = current_boxes(page)[2]
    expect(page.get_by_role("combobox", name="Label of new box 3")).to_be_focused()  # the new box's label field
    page.keyboard.press("Escape")  # closes it: back to the image
    page.keyboard.press("Delete")
    expect(rows(page)).to_have_count(2)
    page.keyboard.press("Control+z")
    expect(rows(page)).to_have_count(3)
    assert current_boxes(page)[2] == mistake
    page.keyboard.press("p")  # select the previous (here: the last) box
    expect(rows(page).nth(2)).to_have_class(SELECTED)
    page.keyboard.press("Delete")
    expect(rows(page)).to_have_count(2)
    expect(page.locator("#boxes-svg .bx")).to_have_count(2)

    # The server refuses what the page would not send (its checks bypassed), and stores nothing.
    token = page.locator("#task-form").get_attribute("data-token")
    refused = page.evaluate(
        """async ([token, woman]) => {
            const boxes = [{concept: woman, x: 1500, y: 100, width: 200, height: 100},
                           {concept: 999999, x: 10, y: 10, width: 50, height: 50}];
            const r = await fetch('/task/submit/', {method: 'POST', headers: {'Content-Type': 'application/json'},
                                  body: JSON.stringify({token, answer: {boxes}})});
            return {status: r.status, body: await r.json()};
        }""",
        [token, woman.pk],
    )
    assert refused["status"] == 400
    messages = refused["body"]["fields"]["boxes"]
    assert messages[0].startswith("Box 1:") and "outside the image" in messages[0]
    assert messages[1].startswith("Box 2:") and "unknown concept" in messages[1]
    assert not Assignment.objects.exclude(answer=None).exists()

    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    answer = Assignment.objects.get().answer
    assert len(answer["boxes"]) == 2
    close(answer["boxes"][0], expected_a, woman.pk)
    close(answer["boxes"][1], expected_b, dog.pk)
    for box in answer["boxes"]:
        assert box["x"] + box["width"] <= WIDTH and box["y"] + box["height"] <= HEIGHT
    assert only_identity_cookie(page.context)
    assert errors == []  # no script error on the page


def test_keyboard_nudges_and_undo(live_server, page, campaign):
    start_task_in_browser(page, live_server.url + campaign_link(campaign))
    stage = Stage(page)
    stage.drag((0.2, 0.2), (0.4, 0.4))
    before = current_boxes(page)[0]
    page.keyboard.press("Escape")  # from the new box's label field back to the image, the box still selected
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowDown")
    after = current_boxes(page)[0]
    assert (after["x"], after["y"]) == (before["x"] + 2, before["y"] + 10)
    page.keyboard.press("Escape")
    expect(page.locator("#box-list .is-selected")).to_have_count(0)
    page.keyboard.press("Control+z")  # one undo step for the run of nudges
    assert current_boxes(page)[0] == before
    page.keyboard.press("Control+z")  # and the drawing
    expect(rows(page)).to_have_count(0)
    # Keyboard only: a new box from the image, labelled, submitted.
    page.locator("#boxes-svg").focus()
    page.keyboard.press("+")
    expect(rows(page)).to_have_count(1)
    expect(page.get_by_role("combobox", name="Label of new box 1")).to_be_focused()  # at the box, with the list
    page.keyboard.type("puppy")
    page.keyboard.press("Enter")  # does not submit the form
    expect(page.locator("#boxes-svg")).to_be_focused()
    expect(rows(page).nth(0)).to_contain_text("→ dog")
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    box = Assignment.objects.get().answer["boxes"][0]
    assert box == {"concept": Concept.objects.get(name="dog").pk, "x": 600, "y": 450, "width": 400, "height": 300}


def test_draft_survives_a_reload(live_server, page, campaign):
    start_task_in_browser(page, live_server.url + campaign_link(campaign))
    stage = Stage(page)
    stage.drag((0.1, 0.1), (0.3, 0.5))
    page.get_by_label("Label of box 1").fill("puppy")
    stage.drag((0.5, 0.5), (0.7, 0.9))
    page.get_by_label("Label of box 2").fill("wom")  # unfinished: kept as typed
    drawn = current_boxes(page)
    page.reload()
    expect(rows(page)).to_have_count(2)
    expect(page.get_by_label("Label of box 1")).to_have_value("puppy")
    expect(rows(page).nth(0)).to_contain_text("→ dog")
    expect(page.get_by_label("Label of box 2")).to_have_value("wom")
    expect(page.locator("#boxes-svg .bx")).to_have_count(2)
    assert current_boxes(page) == drawn
    page.get_by_label("Label of box 2").fill("woman")
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
    assert len(Assignment.objects.get().answer["boxes"]) == 2
    # Stored: the draft is gone.
    assert page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('draft:')).length") == 0


def test_works_in_an_iframe_with_storage_blocked(live_server, browser, campaign):
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    context.add_init_script(  # as in a sandboxed or third-party iframe: any storage access throws
        "Object.defineProperty(window, 'localStorage', {get() { throw new DOMException('no', 'SecurityError'); }});"
    )
    page = context.new_page()
    host = live_server.url + "/frame-host.html"  # same origin, as allowed by frame-ancestors 'self'
    page.route(host, lambda route: route.fulfill(
        content_type="text/html",
        body=f'<iframe title="task" src="{campaign_link(campaign)}" width="1000" height="950"></iframe>',
    ))
    page.goto(host)
    frame = page.frame_locator("iframe[title=task]")
    frame.get_by_role("button", name="Start task").click()
    image = frame.locator(".boxes-stage img")
    expect(image).to_be_visible()
    shown = image.bounding_box()
    mouse = page.mouse
    mouse.move(shown["x"] + 0.2 * shown["width"], shown["y"] + 0.1 * shown["height"])
    mouse.down()
    mouse.move(shown["x"] + 0.5 * shown["width"], shown["y"] + 0.4 * shown["height"], steps=5)
    mouse.up()
    frame.get_by_label("Label of box 1").fill("wo")
    frame.get_by_label("Label of box 1").fill("woman")
    frame.get_by_role("button", name="Submit").click()
    expect(frame.get_by_role("heading", name="Thank you!")).to_be_visible()
    box = Assignment.objects.get().answer["boxes"][0]
    assert abs(box["x"] - 0.2 * WIDTH) <= 2 and abs(box["width"] - 0.3 * WIDTH) <= 2
    assert abs(box["y"] - 0.1 * HEIGHT) <= 2 and abs(box["height"] - 0.3 * HEIGHT) <= 2
    assert only_identity_cookie(context)
    context.close()


def test_preview_shows_image_without_editing(live_server, page, campaign):
    from mturk.models import HIT
    from mturk.work.tokens import preview_token

    hit = HIT.objects.get(campaign=campaign)
    page.goto(live_server.url + f"/task/?preview={preview_token(hit.pk)}")
    expect(page.locator(".preview-banner")).to_be_visible()
    expect(page.locator(".boxes-stage img")).to_be_visible()
    expect(page.locator("#box-list")).to_have_count(0)
    expect(page.get_by_role("button", name="Submit")).to_have_count(0)
    stage = Stage(page)
    stage.drag((0.2, 0.2), (0.4, 0.4))
    expect(page.locator("#boxes-svg .bx")).to_have_count(0)
