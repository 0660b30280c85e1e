"""A researcher imports images and albums in the browser: upload, the job's progress bar, the per-file report."""
from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from PIL import Image as PILImage
from playwright.sync_api import expect

from annotation.models import Image
from mturk.datasets.services.imports import run_import
from mturk.models.imports import ImportJob
from storyboard.models import Album
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot
from tests.importing import write_zip

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def jpeg(colour: tuple[int, int, int], size: tuple[int, int] = (64, 48)) -> bytes:
    buffer = io.BytesIO()
    PILImage.new("RGB", size, colour).save(buffer, "JPEG", quality=85)
    return buffer.getvalue()


# Records every value the upload's progress bar takes (in sessionStorage: the page is left when the upload ends).
WATCH_UPLOAD_BAR = """(name) => {
  const bar = document.querySelector(`[role=progressbar][aria-label="${name}"]`);
  new MutationObserver(() => {
    const seen = JSON.parse(sessionStorage.getItem("upload-bar") || "[]");
    seen.push(bar.getAttribute("aria-valuenow"));
    sessionStorage.setItem("upload-bar", JSON.stringify(seen));
  }).observe(bar, {attributes: true, attributeFilter: ["aria-valuenow"]});
}"""


def images_zip(tmp_path: Path) -> Path:
    return write_zip(tmp_path / "holiday.zip", {
        "beach.jpg": jpeg((200, 180, 90)), "forest.jpg": jpeg((30, 140, 40)), "sea.jpg": jpeg((20, 60, 200)),
        "broken.jpg": jpeg((90, 90, 90))[:300],
    })


@pytest.mark.parametrize(("viewport", "name"), [(LAPTOP, "laptop"), (PHONE, "phone")])
def test_researcher_imports_a_zip_of_images_and_reads_the_report(browser, live_server, tmp_path, viewport, name):
    page = console_page(browser, live_server.url, viewport)
    page.goto("/imports/")
    expect(page.get_by_role("heading", name="Imports", exact=True)).to_be_visible()
    shot(page, tmp_path, f"imports-{name}")
    assert fits_width(page)

    page.get_by_label("Image files or a zip").set_input_files(str(images_zip(tmp_path)))
    page.evaluate(WATCH_UPLOAD_BAR, "Upload of the images")
    page.get_by_role("button", name="Import images").click()
    page.wait_for_url("**/imports/*/")
    assert page.evaluate("JSON.parse(sessionStorage.getItem('upload-bar'))")[-1] == "100"  # the upload's bar ended full

    expect(page.get_by_role("progressbar", name="Import progress")).to_have_attribute("aria-valuenow", "100")
    expect(page.locator("[data-import-count]")).to_have_text("4 / 4 files")
    expect(page.get_by_text("3 imported, 0 already known, 1 refused")).to_be_visible()
    refused = page.get_by_role("table", name="Refused (1)")
    expect(refused).to_contain_text("broken.jpg")
    expect(refused).to_contain_text("damaged or truncated image")
    expect(page.get_by_role("table", name="Imported (3)")).to_contain_text("forest.jpg")
    shot(page, tmp_path, f"import-report-{name}")
    assert fits_width(page)
    assert Image.objects.count() == 3

    page.get_by_role("link", name="← Imports").click()
    jobs = page.get_by_role("table", name="Recent imports")
    expect(jobs).to_contain_text("holiday.zip")
    expect(jobs.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "100")
    assert fits_width(page)
    page.context.close()


def test_the_job_page_follows_a_running_job_until_its_report(browser, live_server, tmp_path):
    job = ImportJob(importer="images", original_name="later.zip")
    job.file.save("later.zip", ContentFile(images_zip(tmp_path).read_bytes()))  # stored, not yet run
    page = console_page(browser, live_server.url, LAPTOP)
    page.goto(f"/imports/{job.pk}/")
    expect(page.get_by_role("progressbar", name="Import progress")).to_have_attribute("aria-valuenow", "0")
    expect(page.locator("[data-import-status]")).to_have_text("Queued")
    shot(page, tmp_path, "import-queued-laptop")

    run_import(job)  # the background job; the page polls its status and then shows the report
    expect(page.get_by_role("table", name="Refused (1)")).to_contain_text("broken.jpg")
    expect(page.get_by_role("progressbar", name="Import progress")).to_have_attribute("aria-valuenow", "100")
    page.context.close()


def test_a_wrong_file_is_refused_in_the_page_and_nothing_is_stored(browser, live_server, tmp_path):
    page = console_page(browser, live_server.url, LAPTOP)
    page.goto("/imports/")
    notes = tmp_path / "notes.txt"
    notes.write_text("not albums")
    page.get_by_label("Albums zip").set_input_files(str(notes))
    page.get_by_role("button", name="Import albums").click()
    expect(page.get_by_role("alert").filter(has_text="notes.txt")).to_have_text(
        "notes.txt: not an accepted file type (accepted: .zip)")
    assert ImportJob.objects.count() == 0
    page.context.close()


@pytest.mark.parametrize(("viewport", "name"), [(LAPTOP, "laptop"), (PHONE, "phone")])
def test_researcher_imports_a_zip_of_album_folders(browser, live_server, tmp_path, viewport, name):
    albums = write_zip(tmp_path / "albums.zip", {
        "albums/beach/1.jpg": jpeg((220, 200, 120)), "albums/beach/2.jpg": jpeg((210, 190, 100)),
        "albums/party/a.jpg": jpeg((150, 20, 60)), "albums/party/b.jpg": b"this is no photo",
    })
    page = console_page(browser, live_server.url, viewport)
    page.goto("/imports/")
    page.get_by_label("Albums zip").set_input_files(str(albums))
    page.get_by_role("button", name="Import albums").click()
    page.wait_for_url("**/imports/*/")
    expect(page.get_by_role("alert")).to_have_text("1 problem(s); nothing was imported")
    expect(page.get_by_role("table", name="Problems (1)")).to_contain_text("album 'party' (folder party/), photo 'b'")
    expect(page.locator("[data-import-count]")).to_have_text("1 / 3 steps")  # unpacked, then the check failed
    shot(page, tmp_path, f"import-albums-refused-{name}")
    assert fits_width(page)
    assert Album.objects.count() == 0

    fixed = write_zip(tmp_path / "albums-fixed.zip", {
        "albums/beach/1.jpg": jpeg((220, 200, 120)), "albums/beach/2.jpg": jpeg((210, 190, 100)),
        "albums/party/a.jpg": jpeg((150, 20, 60)),
    })
    page.goto("/imports/")
    page.get_by_label("Albums zip").set_input_files(str(fixed))
    page.get_by_role("button", name="Import albums").click()
    page.wait_for_url("**/imports/*/")
    expect(page.get_by_text("albums: 2 created, 0 updated; photos: 3 added, 0 kept; images: 3 stored")).to_be_visible()
    expect(page.get_by_role("table", name="Imported (2)")).to_contain_text("album beach")
    shot(page, tmp_path, f"import-albums-{name}")
    assert sorted(Album.objects.values_list("external_id", flat=True)) == ["beach", "party"]
    page.context.close()


def test_a_file_over_the_limit_is_refused_before_it_is_sent(browser, live_server, tmp_path, settings):
    settings.IMAGE_MAX_BYTES = 1000
    page = console_page(browser, live_server.url, LAPTOP)
    page.goto("/imports/")
    posts: list[str] = []
    page.on("request", lambda request: posts.append(request.url) if request.method == "POST" else None)
    big = tmp_path / "big.jpg"
    big.write_bytes(jpeg((10, 120, 10), size=(400, 300)))
    page.get_by_label("Image files or a zip").set_input_files(str(big))
    page.get_by_role("button", name="Import images").click()
    expect(page.get_by_role("alert").filter(has_text="big.jpg")).to_have_text(
        f"big.jpg: the file is {big.stat().st_size} bytes, over the limit of 1000 bytes")
    expect(page.get_by_label("Image files or a zip")).to_be_focused()
    assert posts == [] and ImportJob.objects.count() == 0
    page.context.close()


def test_several_files_with_bad_ones_import_the_good_and_name_each_bad(browser, live_server, tmp_path):
    files = {"kitchen.jpg": jpeg((200, 40, 40)), "street.png": b"", "notes.txt": b"shopping list",
             "broken.jpg": b"\xff\xd8 garbage, no picture"}
    buffer = io.BytesIO()
    PILImage.new("RGB", (64, 48), (40, 40, 200)).save(buffer, "PNG")
    files["street.png"] = buffer.getvalue()
    paths = []
    for file_name, data in files.items():
        (tmp_path / file_name).write_bytes(data)
        paths.append(str(tmp_path / file_name))
    page = console_page(browser, live_server.url, LAPTOP)
    page.goto("/imports/")
    page.get_by_label("Image files or a zip").set_input_files(paths)
    expect(page.get_by_role("status").filter(has_text="notes.txt")).to_have_text(
        "Skipped (each named in the report), the others imported: "
        "notes.txt: not an accepted file type (accepted: .jpg, .jpeg, .png, .webp, .zip)")
    page.get_by_role("button", name="Import images").click()
    page.wait_for_url("**/imports/*/")
    expect(page.get_by_text("2 imported, 0 already known, 2 refused")).to_be_visible()
    refused = page.get_by_role("table", name="Refused (2)")
    expect(refused).to_contain_text("notes.txt")
    expect(refused).to_contain_text("broken.jpg")
    expect(refused).to_contain_text("not an image (or not a format Pillow can read)")
    imported = page.get_by_role("table", name="Imported (2)")
    expect(imported).to_contain_text("kitchen.jpg")
    expect(imported).to_contain_text("street.png")
    shot(page, tmp_path, "import-several-files-laptop")
    assert sorted(Image.objects.values_list("original_name", flat=True)) == ["kitchen.jpg", "street.png"]
    page.context.close()


def test_several_files_all_bad_are_refused_in_the_page_naming_each(browser, live_server, tmp_path):
    page = console_page(browser, live_server.url, LAPTOP)
    page.goto("/imports/")
    posts: list[str] = []
    page.on("request", lambda request: posts.append(request.url) if request.method == "POST" else None)
    (tmp_path / "notes.txt").write_text("shopping list")
    (tmp_path / "song.mp3").write_bytes(b"ID3 music")
    page.get_by_label("Image files or a zip").set_input_files([str(tmp_path / "notes.txt"),
                                                               str(tmp_path / "song.mp3")])
    page.get_by_role("button", name="Import images").click()
    accepted = "(accepted: .jpg, .jpeg, .png, .webp, .zip)"
    expect(page.get_by_role("alert").filter(has_text="notes.txt")).to_have_text(
        f"Nothing was imported, no file can be: notes.txt: not an accepted file type {accepted}; "
        f"song.mp3: not an accepted file type {accepted}")
    assert posts == [] and ImportJob.objects.count() == 0
    page.context.close()
