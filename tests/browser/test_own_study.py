"""The acceptance test of a researcher's own study, in Chromium, through the console pages only: import 30 real
photographs into a new collection, type a vocabulary of five labels, run the grounded workflow on that collection
with that vocabulary and a pilot (the first item of each stage to two workers), do one item of each stage as two
local workers (two browsers), read the pilot's agreement on the quality page, bulk-approve leaving the flagged
description out, export ImageCLEF from the campaign page and read the rendered card. The export's labels are the
typed ones and the demo vocabulary is unchanged. The whole study runs at 1366x768 and again at 390 px (the
researcher and the workers), every key page no wider than the window."""
from __future__ import annotations

import csv
import io
import re
import zipfile
from pathlib import Path

import pytest
import skimage
from PIL import Image as PILImage
from playwright.sync_api import Browser, BrowserContext, Page, expect

from annotation.demo.seed import seed_concepts
from annotation.models import Concept, Description, Image
from mturk.models import Assignment, Campaign, DatasetExport
from mturk.states import AssignmentStatus
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHOTOS = Path(skimage.__file__).parent / "data"
# Colour photographs of scikit-image's wheel; the astronaut first: the pilot item is the first image.
SOURCES = ["astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "motorcycle_left.png", "hubble_deep_field.jpg"]
COLLECTION, TAG = "Space and kitchen", "pilot-2025"
VOCABULARY = "My objects"
TYPED = ["person | astronaut, spacewoman", "cat | kitty, kitten | cat.n.01", "mug | cup, coffee cup", "rocket",
         "motorcycle | motorbike"]
LABELS = "cat, motorcycle, mug, person, rocket"
STUDY = "Own study"
GOOD = "An astronaut in a white suit smiles beside a flag and a rocket model."
SHOUTED = "AN ASTRONAUT IN A WHITE SUIT STANDS BEFORE A FLAG AND A ROCKET."  # flagged: mostly_uppercase


def photographs_zip(folder: Path) -> Path:
    """30 distinct JPEGs: five crops of each of six photographs (the first crop of each is the whole photo)."""
    path = folder / "my-photos.zip"
    with zipfile.ZipFile(path, "w") as archive:
        number = 0
        for source in SOURCES:
            picture = PILImage.open(PHOTOS / source).convert("RGB")
            width, height = picture.size
            for crop in range(5):
                inset = crop * min(width, height) // 12
                part = picture.crop((inset, inset // 2, width - inset // 2, height - inset))
                part.thumbnail((480, 480))
                buffer = io.BytesIO()
                part.save(buffer, "JPEG", quality=85)
                number += 1
                archive.writestr(f"photo-{number:02d}-{source.split('.')[0]}-{crop}.jpg", buffer.getvalue())
    return path


def demo_vocabulary() -> list[tuple]:
    return list(Concept.objects.filter(vocabulary__name="demo").order_by("name").values_list(
        "pk", "name", "synonyms", "synset", "parent__name", "offered"))


def fits(page: Page, name: str) -> None:
    assert fits_width(page), f"the {name} page is wider than the window"


def open_campaign(page: Page, campaign: Campaign) -> None:
    page.get_by_role("navigation", name="Console").get_by_role("link", name="Campaigns").click()
    page.get_by_role("link", name=campaign.name, exact=True).first.click()
    expect(page.get_by_role("heading", name=campaign.name, level=1)).to_be_visible()


def worker_link(page: Page, campaign: Campaign) -> str:
    """The local crowd's link, as the campaign page shows it (next to "Copy worker link")."""
    open_campaign(page, campaign)
    return page.locator(".copy-link code.link").first.inner_text().strip()


def approve_all_on_review(page: Page, campaign: Campaign, count: int) -> None:
    open_campaign(page, campaign)
    page.get_by_role("link", name="Review submitted work").click()
    page.get_by_label("Select all on this page").check()
    page.get_by_role("button", name="Approve selected").click()
    asked = page.get_by_role("dialog", name=f"Approve {count} assignment(s)?")
    expect(asked).to_be_visible()
    asked.get_by_role("button", name="Approve").click()
    expect(page.locator(".messages")).to_contain_text("approved")


def drag(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    page.evaluate("document.querySelector('.boxes-stage').scrollIntoView({block: 'center'})")
    box = page.locator(".boxes-stage img").bounding_box()
    assert box is not None
    mouse = page.mouse
    mouse.move(box["x"] + start[0] * box["width"], box["y"] + start[1] * box["height"])
    mouse.down()
    mouse.move(box["x"] + end[0] * box["width"], box["y"] + end[1] * box["height"], steps=6)
    mouse.up()


def start(worker: Page, link: str) -> None:
    """Open the campaign's link and start a task ("Start next task" for a worker the platform already knows)."""
    worker.goto(link)
    worker.get_by_role("button", name=re.compile(r"^Start (next )?task$")).click()
    worker.wait_for_url("**/task/?t=*")


def draw_boxes(worker: Page, link: str, shift: float) -> None:
    """Two boxes, labelled by typing: a synonym of "person", then "rocket"."""
    start(worker, link)
    expect(worker.locator(".boxes-stage img")).to_be_visible()
    drag(worker, (0.30 + shift, 0.10), (0.75 + shift, 0.95))
    worker.get_by_label("Label of box 1").fill("astronaut")
    expect(worker.locator("#box-list > li").nth(0)).to_contain_text("→ person")
    worker.keyboard.press("Escape")
    drag(worker, (0.02, 0.05 + shift), (0.20, 0.40 + shift))
    worker.get_by_label("Label of box 2").fill("rocket")
    expect(worker.locator("#box-list > li").nth(1)).to_contain_text("→ rocket")
    worker.get_by_role("button", name="Submit").click()
    expect(worker.get_by_role("heading", name="Thank you!")).to_be_visible()


def describe(worker: Page, link: str, text: str) -> None:
    start(worker, link)
    worker.get_by_label("Your description").fill(text)
    worker.get_by_role("button", name="Submit").click()
    expect(worker.get_by_role("heading", name="Thank you!")).to_be_visible()


def link_words(worker: Page, link: str) -> None:
    """astronaut -> box 1 (person), rocket -> box 2 (rocket)."""
    start(worker, link)
    expect(worker.locator("#lw-sentence")).to_have_text(GOOD)
    for word, box in (("astronaut", "1 person"), ("rocket", "2 rocket")):
        worker.locator(".lw-word", has_text=re.compile(f"^{word}$")).click()
        worker.locator("#lw-boxes .lw-box", has_text=box).click()
    expect(worker.locator("#lw-links li")).to_have_text(["astronaut → box 1 person", "rocket → box 2 rocket"])
    worker.get_by_role("button", name="Submit").click()
    expect(worker.get_by_role("heading", name="Thank you!")).to_be_visible()


def new_worker(browser: Browser, base_url: str, viewport: dict[str, int]) -> tuple[BrowserContext, Page]:
    context = browser.new_context(viewport=viewport, base_url=base_url)
    return context, context.new_page()


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_a_new_researchers_own_grounded_study(browser, live_server, tmp_path, settings, viewport):
    name = "laptop" if viewport is LAPTOP else "phone"
    settings.PUBLIC_BASE_URL = live_server.url  # the address workers reach, as a deployment sets it
    seed_concepts()
    demo_before = demo_vocabulary()
    assert demo_before, "the demo vocabulary is seeded"
    page = console_page(browser, live_server.url, viewport)
    natives: list[str] = []
    page.on("dialog", lambda dialog: (natives.append(dialog.message), dialog.dismiss()))
    menu = page.get_by_role("navigation", name="Console")

    # 1. 30 photographs into a new collection, with a tag
    page.goto("/")
    menu.get_by_role("link", name="Imports").click()
    form = page.get_by_role("form", name="Images")
    form.get_by_label("Image files or a zip").set_input_files(str(photographs_zip(tmp_path)))
    form.get_by_label("Collection (new or existing)").fill(COLLECTION)
    form.get_by_label("Tags of the collection").fill(TAG)
    fits(page, "imports")
    form.get_by_role("button", name="Import images").click()
    page.wait_for_url("**/imports/*/")
    expect(page.get_by_text("30 imported, 0 already known, 0 refused")).to_be_visible()
    menu.get_by_role("link", name="Collections").click()
    page.get_by_role("link", name=COLLECTION).click()
    expect(page.get_by_role("heading", name=COLLECTION)).to_be_visible()
    expect(page.locator("main")).to_contain_text(TAG)
    fits(page, "collection")

    # 2. a vocabulary of five typed labels
    menu.get_by_role("link", name="Vocabularies").click()
    page.get_by_label("Name", exact=True).fill(VOCABULARY)
    page.get_by_label("Labels, one per line").fill("\n".join(TYPED))
    page.get_by_role("button", name="Create the vocabulary").click()
    expect(page.get_by_role("heading", name=f"Vocabulary “{VOCABULARY}”")).to_be_visible()
    expect(page.get_by_text("5 labels offered to workers")).to_be_visible()
    fits(page, "vocabulary")

    # 3. the grounded workflow on the collection, with the vocabulary and a pilot in every stage, on the local crowd
    menu.get_by_role("link", name="Collections").click()
    page.get_by_role("link", name=COLLECTION).click()
    page.get_by_role("link", name="New campaign on this collection").click()
    page.get_by_role("radio", name=re.compile("^Grounded descriptions workflow")).check()
    expect(page.get_by_role("status").filter(has_text="images match")).to_contain_text("30 images match")
    page.get_by_role("checkbox", name=re.compile("Select all 30 matching")).check()
    page.get_by_role("radio", name="local").check()
    page.get_by_label("Campaign name", exact=True).fill(STUDY)
    for stage in ("boxes", "describe", "link"):
        page.locator("summary", has_text=f"Stage {stage}").click()
        page.get_by_label(f"{stage}: Pilot: first items to several workers").fill("1")
        page.get_by_label(f"{stage}: Pilot: workers per item").fill("2")
    for stage in ("describe", "link"):
        page.get_by_label(f"{stage}: Assignments per HIT (workers per item)").fill("1")
    vocabulary = page.get_by_label("boxes: vocabulary")
    expect(vocabulary).to_have_value(VOCABULARY)
    expect(page.locator("#preview-stage-boxes-opt-vocabulary")).to_have_text(f"Workers will see: {LABELS}")
    fits(page, "wizard")
    # with the keyboard: the long form's thumbnails and preview frame may still move it under a mouse click
    page.get_by_role("button", name="Review the cost").press("Enter")
    expect(page.get_by_role("heading", name="Review before creating")).to_be_visible(timeout=30_000)
    page.locator("#wz-decide").get_by_role("button", name=re.compile("^Create and publish")).click()
    page.get_by_role("dialog").get_by_role("button", name=re.compile("^Create and publish")).click()
    page.wait_for_url(re.compile(r"/campaigns/\d+/$"))
    boxes, described, linked = (Campaign.objects.get(name=f"{STUDY} · {stage}")
                                for stage in ("boxes", "describe", "link"))
    assert boxes.options["vocabulary"] == VOCABULARY
    assert boxes.hits.count() == 30
    expect(page.get_by_role("heading", name=boxes.name, level=1)).to_be_visible()

    # 4a. boxes: the pilot item, by two local workers (two browsers)
    ann_context, ann = new_worker(browser, live_server.url, viewport)
    bob_context, bob = new_worker(browser, live_server.url, viewport)
    link = worker_link(page, boxes)
    draw_boxes(ann, link, 0.0)
    draw_boxes(bob, link, 0.02)
    answered = Assignment.objects.filter(hit__campaign=boxes, status=AssignmentStatus.SUBMITTED)
    assert answered.count() == 2
    assert len({a.hit_id for a in answered}) == 1 and len({a.worker_id for a in answered}) == 2  # one item, two

    # 5. the pilot's agreement on the boxes stage's quality page
    open_campaign(page, boxes)
    page.get_by_role("link", name="Worker quality and review rule").click()
    page.get_by_role("button", name="Compute quality").click()
    expect(page.locator("ul.messages")).to_contain_text("Quality computed")
    expect(page.locator("#need-agreement")).to_contain_text("1 item(s) have answers from two or more workers")
    summary = page.locator("#summary")  # the two box sets match one to one with the same labels
    expect(summary).to_contain_text(re.compile(r"Mean f1\s*1\.000"))
    expect(summary).to_contain_text(re.compile(r"Mean matched iou\s*0\.\d{3}"))
    shot(page, tmp_path, f"own-study-quality-{name}")
    fits(page, "quality")

    # 4b. approve the boxes (the describe stage's HIT follows), describe as the two workers
    approve_all_on_review(page, boxes, 2)
    link = worker_link(page, described)
    describe(ann, link, GOOD)
    describe(bob, link, SHOUTED)

    # 6. bulk approve, leaving the flagged description out
    open_campaign(page, described)
    expect(page.get_by_role("link", name="Review the flagged ones")).to_be_visible()  # one is flagged
    page.get_by_role("link", name="Review submitted work").click()
    page.get_by_label("Select all on this page").check()
    page.get_by_role("button", name="Approve selected").click()
    asked = page.get_by_role("dialog", name="Approve 2 assignment(s)?")
    expect(asked).to_contain_text("1 of 2: mostly_uppercase (1)")
    expect(asked.get_by_label(re.compile(r"Leave out the 1 flagged"))).to_be_checked()
    fits(page, "review-dialog")
    asked.get_by_role("button", name="Approve").click()
    expect(page.locator(".messages")).to_contain_text("Left out, flagged by the checks:")
    statuses = dict(Assignment.objects.filter(hit__campaign=described).values_list("answer__text", "status"))
    assert statuses == {GOOD: AssignmentStatus.APPROVED, SHOUTED: AssignmentStatus.SUBMITTED}
    assert list(Description.objects.values_list("text", flat=True).filter(assignment__isnull=False)) == [GOOD]

    # 4c. link the words of the approved description, as the two workers; approve the links
    link = worker_link(page, linked)
    link_words(ann, link)
    link_words(bob, link)
    approve_all_on_review(page, linked, 2)
    ann_context.close()
    bob_context.close()

    # 7. export ImageCLEF from the campaign page; read the rendered card
    open_campaign(page, linked)
    page.get_by_role("link", name="Export", exact=True).click()
    expect(page.get_by_role("checkbox", name=linked.name)).to_be_checked()
    page.get_by_role("radio", name="imageclef").check()
    page.get_by_role("button", name="Request export").click()
    export = DatasetExport.objects.get()
    reports = page.get_by_role("list", name=f"Reports of export #{export.pk}")
    reports.get_by_role("link", name="README.md").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("imageclef")
    card = page.locator(".dataset-card")
    expect(card.locator("table").first).to_be_visible()
    expect(card).to_contain_text(linked.name)
    fits(page, "card")

    # 8. the export's labels are the typed ones; the demo vocabulary is unchanged
    export.refresh_from_db()
    with zipfile.ZipFile(export.file.open("rb")) as archive:
        names = archive.namelist()
        concepts_file = next(n for n in names if n.endswith("concepts.tsv"))
        boxes_file = next(n for n in names if n.endswith("boxes.tsv"))
        descriptions_file = next(n for n in names if n.endswith("descriptions.tsv"))
        concepts = list(csv.DictReader(io.StringIO(archive.read(concepts_file).decode()), delimiter="\t"))
        exported_boxes = list(csv.DictReader(io.StringIO(archive.read(boxes_file).decode()), delimiter="\t"))
        descriptions = archive.read(descriptions_file).decode()
    assert {(c["name"], c["synonyms"]) for c in concepts} == {("person", "astronaut;spacewoman"), ("rocket", "")}
    assert [b["concept"] for b in exported_boxes] == ["person", "rocket"]
    assert "[astronaut]^" in descriptions and "[rocket]^" in descriptions
    assert Image.objects.filter(sets__name=COLLECTION).count() == 30
    assert demo_vocabulary() == demo_before
    assert natives == []  # no native confirm() anywhere on the way
    page.context.close()
