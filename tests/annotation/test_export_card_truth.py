"""The dataset card of a grounded export says what the export wrote: records that count the boxes of a box-only
export, the worker table and the campaign table agreeing after a review, every stage of a workflow under "How it
was collected", no content-selection figure where it does not apply, and the formula-like cells counted."""
from __future__ import annotations

import io
import zipfile
from decimal import Decimal

import pytest

from annotation.models import Correspondence, Description
from metrics.text.markup import tokenize
from mturk.datasets.formats import write_export
from mturk.datasets.services.exports import build_export, request_export
from mturk.models import Assignment, Bonus, Campaign, DatasetExport
from mturk.states import AssignmentStatus
from tests.annotation.grounded_run import grounded_workflow_run, reviewed_boxes_campaign
from tests.export_cards import campaign_table, card_counts, upper_bound, worker_table, worker_totals

pytestmark = pytest.mark.django_db


def export_card(format_name: str, campaigns: list[Campaign]) -> tuple[str, zipfile.ZipFile]:
    buffer = io.BytesIO()
    write_export(format_name, buffer, campaigns)
    archive = zipfile.ZipFile(buffer)
    return archive.read("README.md").decode(), archive


def test_a_box_only_coco_export_counts_its_boxes_as_records_on_the_card_and_in_the_exports_list(researcher):
    campaign = reviewed_boxes_campaign()
    export = build_export(request_export("coco", [campaign], researcher))
    assert export.status == DatasetExport.Status.DONE
    archive = zipfile.ZipFile(export.file.open("rb"))
    counts = card_counts(archive.read("README.md").decode())
    assert (counts["records"], counts["boxes"], counts["captions"]) == (8, 8, 0)
    assert export.records == 8 and export.counts["boxes"] == 8


def test_the_worker_table_agrees_with_the_campaign_table_after_a_review():
    """The quality was computed before the review: the worker rows still carry the decisions and pay as they are
    at the export."""
    campaign = reviewed_boxes_campaign(rejected=2)
    card, _ = export_card("coco", [campaign])
    row = campaign_table(card)[campaign.name]
    assert (row["approved"], row["rejected"], row["workers"]) == ("6", "2", "8")
    workers = worker_table(card, campaign.name)
    assert workers is not None and len(workers) == 8
    bonuses = sum(Bonus.objects.filter(assignment__hit__campaign=campaign).values_list("amount", flat=True))
    assert worker_totals(workers) == (6, 2, 6 * campaign.reward + bonuses) == (6, 2, Decimal("0.85"))
    assert Decimal(row["cost so far"]) == Decimal("0.85")
    assert sorted(row["answers"] for row in workers) == ["1"] * 8


def test_a_box_only_export_states_no_content_selection_figure():
    card, _ = export_card("coco", [reviewed_boxes_campaign()])
    assert "Content selection" not in card and "upper bound" not in card


def test_a_workflow_export_describes_every_stage_that_contributed_records():
    stages = grounded_workflow_run(images=2, descriptions=2)
    card, _ = export_card("imageclef", [stages["link"]])
    table = campaign_table(card)
    assert set(table) == {stage.name for stage in stages.values()}
    for stage in stages.values():
        answered = Assignment.objects.filter(hit__campaign=stage, status=AssignmentStatus.APPROVED)
        assert table[stage.name]["workers"] == str(answered.values("worker").distinct().count())
        assert table[stage.name]["approved"] == str(answered.count())
    assert table["street · boxes"]["workers"] == "2" and table["street · describe"]["workers"] == "4"
    assert upper_bound(card) == (1.0, 0.0, 2)  # the two descriptions of each image link the same boxes


def test_no_human_upper_bound_without_two_linked_descriptions_of_an_image():
    stages = grounded_workflow_run(images=2, descriptions=1)
    card, _ = export_card("imageclef", [stages["link"]])
    assert upper_bound(card) is None and "F = 0.00" not in card
    assert "no human upper bound: it needs an image with at least two linked descriptions" in card


def test_descriptions_without_links_say_why_content_selection_is_not_measured():
    stages = grounded_workflow_run(images=1, descriptions=2)
    card, _ = export_card("coco", [stages["describe"]])
    assert upper_bound(card) == (1.0, 0.0, 1)
    Correspondence.objects.all().delete()
    card, _ = export_card("coco", [stages["describe"]])
    assert "Content selection: not measured: none of the 2 descriptions has word-to-box links yet" in card
    assert "F = " not in card


@pytest.mark.parametrize("format_name, member, count_key", [
    ("flickr30k", "Sentences/{key}.txt", "formula-like cells"),
    ("imageclef", "descriptions.tsv", "formula-like cells"),
])
def test_formula_like_cells_are_counted_on_the_card(format_name, member, count_key):
    stages = grounded_workflow_run(images=1, descriptions=1)
    image = Description.objects.get().image
    for text in ("=1+1 cars are parked here", "-2 degrees near the woman", "A woman = a person"):
        Description.objects.create(image=image, text=text, tokens=tokenize(text), source="crowd")
    card, archive = export_card(format_name, [stages["link"]])
    assert card_counts(card)[count_key] == 2
    assert "2 lines of `Sentences/*.txt` start with" in card if format_name == "flickr30k" else \
        "2 descriptions of `descriptions.tsv` start with" in card
    written = archive.read(member.format(key=image.key)).decode()
    assert "= 1 + 1 cars are parked here" in written  # written unchanged: counted, not escaped
