"""From a campaign page to its export and its dataset card, as a researcher: the Export button opens the form with
the campaign ticked and only its kind's formats, the export is built, and the card reads as a page (headings,
tables) with a way back, with no script of the campaign's text running; on a laptop and a phone."""
from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from mturk import tasks
from mturk.datasets.services.exports import build_export
from mturk.models import Campaign, DatasetExport
from storyboard.services.workflow import create_story_workflow
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot
from tests.factories import make_album

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAME = "Kittens <script>alert(1)</script>"


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_export_a_campaign_from_its_page_and_read_the_card(browser, live_server, tmp_path, monkeypatch, viewport):
    tell = create_story_workflow(NAME, [make_album(6)], publish=False)["tell"]
    Campaign.objects.filter(pk=tell.pk).update(instructions='Tell a story. <img src=x onerror="alert(2)">')
    queued: list[int] = []
    monkeypatch.setattr(tasks.build_dataset_export, "delay", lambda pk: queued.append(pk))
    page = console_page(browser, live_server.url, viewport)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    name = "laptop" if viewport is LAPTOP else "phone"

    page.goto(reverse("campaign-page", args=[tell.pk]))
    page.get_by_role("link", name="Export", exact=True).click()
    expect(page.get_by_role("heading", name="Request an export")).to_be_in_viewport()
    expect(page.get_by_role("checkbox", name=tell.name)).to_be_checked()
    expect(page.get_by_role("radio", name="sind")).to_be_checked()  # the story kinds' own format first
    expect(page.get_by_role("radio", name="imageclef")).to_have_count(0)  # a grounded format: not offered
    expect(page.get_by_role("radio", name="assignments-jsonl")).to_be_visible()
    expect(page.get_by_role("link", name="Every format")).to_be_visible()
    assert fits_width(page)
    shot(page, tmp_path, f"export-from-campaign-{name}")
    page.get_by_role("button", name="Request export").click()

    expect(page.get_by_text("requested.")).to_be_visible()
    (pk,) = queued
    build_export(DatasetExport.objects.get(pk=pk))
    reports = page.get_by_role("list", name=f"Reports of export #{pk}")
    reports.get_by_role("link", name="README.md").click()

    expect(page.get_by_role("heading", name="Dataset: sind export", level=1)).to_be_visible()
    expect(page.get_by_role("heading", name="How it was collected")).to_be_visible()
    expect(page.locator(".dataset-card table").first).to_be_visible()
    expect(page.locator(".dataset-card")).to_contain_text(NAME)  # the name as text, not as markup
    expect(page.locator(".dataset-card")).to_contain_text('<img src=x onerror="alert(2)">')
    expect(page.locator(".dataset-card script, .dataset-card img")).to_have_count(0)
    expect(page.get_by_role("navigation", name="Console")).to_be_attached()  # the console's layout
    assert fits_width(page)
    shot(page, tmp_path, f"export-card-{name}")

    page.get_by_role("navigation", name="Back").get_by_role("link", name=tell.name).click()
    expect(page.get_by_role("heading", name=tell.name, level=1)).to_be_visible()  # back on the campaign
    page.go_back()
    page.get_by_role("link", name="← Exports").click()
    expect(page.get_by_role("list", name=f"Reports of export #{pk}")).to_be_visible()
    assert dialogs == []  # no script of the campaign's text ran anywhere
