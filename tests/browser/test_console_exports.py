"""The researcher exports grounded data in the browser: chooses imageclef and the campaigns, watches the build
reach done, downloads the zip, reads the content-selection report with its plots and comes back, on a laptop and a
phone."""
from __future__ import annotations

import zipfile

import pytest
from playwright.sync_api import expect

from annotation.demo.grounded import DESCRIBE, LINK, seed_grounded_demo
from mturk import tasks
from mturk.datasets.services.exports import build_export
from mturk.models import DatasetExport
from tests.annotation.test_export_imageclef import build_dataset
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_request_follow_download_and_read_an_imageclef_export(browser, live_server, tmp_path, monkeypatch, viewport):
    images = build_dataset()
    seed_grounded_demo(list(images.values()))
    queued: list[int] = []
    # the build waits for the test (as it waits for a Celery worker), so that the page is seen following it
    monkeypatch.setattr(tasks.build_dataset_export, "delay", lambda pk: queued.append(pk))
    page = console_page(browser, live_server.url, viewport)
    name = "laptop" if viewport is LAPTOP else "phone"

    page.get_by_role("link", name="Exports").click()
    expect(page.get_by_role("heading", name="Request an export")).to_be_visible()
    page.get_by_label("sind", exact=True).check()
    expect(page.get_by_label("Report sample")).to_be_visible()  # the chosen format's options only
    page.get_by_label("Report sample").fill("-1")
    expect(page.get_by_role("checkbox", name=LINK)).to_be_hidden()  # sind does not export link_words campaigns
    page.get_by_role("button", name="Request export").click()
    expect(page.get_by_role("alert")).to_have_text("Choose at least one campaign, or tick “All real campaigns”.")
    page.get_by_role("checkbox", name="All real campaigns").check()
    page.get_by_role("button", name="Request export").click()  # the demo's campaigns are simulated: none is real
    expect(page.get_by_role("alert")).to_have_text("No real campaign that sind exports: there is nothing to export.")
    page.get_by_role("checkbox", name="All real campaigns").uncheck()
    page.get_by_role("checkbox", name=DESCRIBE).check()
    page.get_by_role("button", name="Request export").click()
    expect(page.get_by_role("alert")).to_have_text(
        "option report_sample must be a whole number of stories, 0 or more (0 = all), not -1")
    expect(page.get_by_label("sind", exact=True)).to_be_checked()  # the request is shown again, to be fixed
    assert fits_width(page)
    shot(page, tmp_path, f"exports-bad-option-{name}")
    page.get_by_label("imageclef", exact=True).check()
    expect(page.get_by_label("Report sample")).to_be_hidden()
    expect(page.get_by_role("checkbox", name=DESCRIBE)).to_be_checked()  # kept from the refused request
    page.get_by_label("Filter campaigns").fill("link words")  # the list narrows to what is typed
    expect(page.get_by_role("checkbox", name=DESCRIBE)).to_be_visible()  # a ticked one stays
    page.get_by_role("checkbox", name=LINK).check()
    page.get_by_role("button", name="Request export").click()

    expect(page.get_by_text("requested.")).to_be_visible()
    (pk,) = queued
    bar = page.get_by_role("progressbar", name=f"Progress of export #{pk}")
    expect(bar).to_have_attribute("aria-valuenow", "0")
    row = page.locator("tr.export-row", has=bar)
    expect(row).to_contain_text("Queued")
    expect(row).to_contain_text(f"{DESCRIBE} (simulated), {LINK} (simulated)")  # the campaigns, by name, marked
    assert fits_width(page)
    shot(page, tmp_path, f"exports-queued-{name}")

    build_export(DatasetExport.objects.get(pk=pk))  # the background job; the page polls its status
    expect(bar).to_have_attribute("aria-valuenow", "100")
    expect(row).to_contain_text("Done")
    expect(row.locator(".export-records")).to_have_text(str(DatasetExport.objects.get(pk=pk).records))
    download_link = page.get_by_role("link", name=f"Download zip of export #{pk}")
    expect(download_link).to_be_visible()
    assert fits_width(page)
    shot(page, tmp_path, f"exports-done-{name}")

    with page.expect_download() as started:
        download_link.click()
    with zipfile.ZipFile(started.value.path()) as archive:
        names = archive.namelist()
        assert {"images.tsv", "descriptions.tsv", "README.md", "report/content_selection.html"} <= set(names)
        assert archive.testzip() is None

    reports = page.get_by_role("list", name=f"Reports of export #{pk}")
    reports.get_by_role("link", name="content_selection.html").click()
    expect(page.locator("h1")).to_contain_text("Content selection")
    expect(page.locator("svg").first).to_be_visible()
    shot(page, tmp_path, f"exports-report-{name}")
    page.get_by_role("link", name="← Exports").click()  # the report's way back

    expect(page.get_by_role("heading", name="Request an export")).to_be_visible()  # the list, from the server
    expect(page.get_by_role("list", name=f"Reports of export #{pk}").get_by_role("link", name="README.md")) \
        .to_be_visible()
