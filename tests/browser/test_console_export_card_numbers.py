"""The dataset card as the console shows it tells the truth, as a researcher checks it: an ImageCLEF export asked
for from the grounded workflow's last stage (link words) and a COCO export of a draw_boxes campaign after its review.
The card's counts equal what the files of the downloaded zip hold, every stage of the workflow is under "How it was
collected", and the campaign and worker tables give the review's decisions and pay."""
from __future__ import annotations

import io
import json
import zipfile
from decimal import Decimal

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from mturk import tasks
from mturk.datasets.services.exports import build_export
from mturk.models import Assignment, Bonus, Campaign, DatasetExport
from mturk.states import AssignmentStatus
from tests.annotation.grounded_run import grounded_workflow_run, reviewed_boxes_campaign
from tests.browser.console import LAPTOP, console_page, fits_width, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def export_from_campaign_page(page: Page, campaign: Campaign, format_name: str, queued: list[int]) -> DatasetExport:
    page.goto(reverse("campaign-page", args=[campaign.pk]))
    page.get_by_role("link", name="Export", exact=True).click()
    expect(page.get_by_role("checkbox", name=campaign.name)).to_be_checked()
    page.get_by_role("radio", name=format_name).check()
    page.get_by_role("button", name="Request export").click()
    expect(page.get_by_text("requested.")).to_be_visible()
    export = build_export(DatasetExport.objects.get(pk=queued.pop()))
    assert export.status == DatasetExport.Status.DONE, export.error
    page.reload()
    row = page.locator(".export-row", has=page.get_by_role("link", name=f"Download zip of export #{export.pk}"))
    expect(row.locator(".export-records")).to_have_text(str(export.records))  # the exports list
    page.get_by_role("list", name=f"Reports of export #{export.pk}").get_by_role("link", name="README.md").click()
    expect(page.get_by_role("heading", name=f"Dataset: {format_name} export", level=1)).to_be_visible()
    return export


def shown_counts(page: Page) -> dict[str, int]:
    """The card's list of counts as the page shows it: {"records": 8, "boxes": 8, ...}."""
    counts = {}
    for item in page.locator(".dataset-card > ul").first.locator("li").all_inner_texts():
        name, _, value = item.partition(": ")
        if value.isdigit():
            counts[name.lower()] = int(value)
    return counts


def shown_table(page: Page, index: int) -> list[dict[str, str]]:
    table = page.locator(".dataset-card table").nth(index)
    header = table.locator("thead th").all_inner_texts()
    return [dict(zip(header, row.locator("td").all_inner_texts(), strict=True))
            for row in table.locator("tbody tr").all()]


def zip_of(export: DatasetExport) -> zipfile.ZipFile:
    with export.file.open("rb") as handle:
        return zipfile.ZipFile(io.BytesIO(handle.read()))


@pytest.fixture
def queued(monkeypatch) -> list[int]:
    pks: list[int] = []
    monkeypatch.setattr(tasks.build_dataset_export, "delay", lambda pk: pks.append(pk))
    return pks


def test_the_card_of_the_grounded_workflows_last_stage_matches_its_files(browser, live_server, tmp_path, queued):
    stages = grounded_workflow_run(images=2, descriptions=2)
    page = console_page(browser, live_server.url, LAPTOP)
    export = export_from_campaign_page(page, stages["link"], "imageclef", queued)

    archive = zip_of(export)
    rows = {name: archive.read(name).decode().splitlines()[1:] for name in ("images.tsv", "boxes.tsv",
                                                                             "descriptions.tsv")}
    counts = shown_counts(page)
    assert counts["records"] == len(rows["boxes.tsv"]) + len(rows["descriptions.tsv"]) == 4 + 4
    assert (counts["images"], counts["boxes"], counts["descriptions"]) == (
        len(rows["images.tsv"]), len(rows["boxes.tsv"]), len(rows["descriptions.tsv"]))
    assert counts["linked descriptions"] == sum(line.split("\t")[3] == "1" for line in rows["descriptions.tsv"])

    collected = {row["campaign"]: row for row in shown_table(page, 0)}
    assert set(collected) == {stage.name for stage in stages.values()}  # every stage behind the records
    for stage in stages.values():
        approved = Assignment.objects.filter(hit__campaign=stage, status=AssignmentStatus.APPROVED)
        assert collected[stage.name]["approved"] == str(approved.count())
        assert collected[stage.name]["workers"] == str(approved.values("worker").distinct().count())
    card = page.locator(".dataset-card")
    expect(card).to_contain_text("human upper bound F = 1.00 ± 0.00 over 2 images")
    assert fits_width(page)
    shot(page, tmp_path, "card-grounded-workflow")


def test_the_card_of_a_reviewed_draw_boxes_campaign_matches_its_files_and_the_review(browser, live_server, tmp_path,
                                                                                     queued):
    campaign = reviewed_boxes_campaign(images=4, rejected=2)
    page = console_page(browser, live_server.url, LAPTOP)
    export = export_from_campaign_page(page, campaign, "coco", queued)

    archive = zip_of(export)
    instances = json.loads(archive.read("annotations/instances.json"))
    captions = json.loads(archive.read("annotations/captions.json"))
    counts = shown_counts(page)
    assert counts["records"] == len(instances["annotations"]) + len(captions["annotations"]) == 8
    assert (counts["images"], counts["boxes"], counts["captions"]) == (
        len(instances["images"]), len(instances["annotations"]), len(captions["annotations"]))
    card = page.locator(".dataset-card")
    expect(card).not_to_contain_text("Content selection")  # a box-only export: the measure does not apply

    (row,) = shown_table(page, 0)
    answers = Assignment.objects.filter(hit__campaign=campaign)
    approved = answers.filter(status=AssignmentStatus.APPROVED).count()
    rejected = answers.filter(status=AssignmentStatus.REJECTED).count()
    assert (row["approved"], row["rejected"]) == (str(approved), str(rejected)) == ("6", "2")
    workers = shown_table(page, 1)
    assert len(workers) == int(row["workers"]) == 8
    assert sum(int(w["approved"]) for w in workers) == approved
    assert sum(int(w["rejected"]) for w in workers) == rejected
    bonuses = sum(Bonus.objects.filter(assignment__hit__campaign=campaign).values_list("amount", flat=True))
    assert sum(Decimal(w["pay (USD)"]) for w in workers) == approved * campaign.reward + bonuses
    assert fits_width(page)
    shot(page, tmp_path, "card-reviewed-boxes")
