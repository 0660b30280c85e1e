"""Images known only by reference (a COCO import without the image files: no file, no sha256, the COCO address)
across the platform: renditions skip them, exports list them without a file and say so, the API shows them, and
task pages show their published address."""
from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.exports.coco import write_coco
from annotation.exports.flickr30k import write_flickr30k
from annotation.exports.imageclef import write_imageclef
from annotation.models import Image, RenditionJob
from annotation.services import renditions
from annotation.services.coco_import.importer import import_coco
from annotation.services.coco_import.records import folder_images
from annotation.services.image_files import RENDITIONS_VERSION
from mturk.services.campaigns import create_campaign, publish_campaign
from tests.annotation.test_export_imageclef import export
from tests.queries import queries_for
from tests.worker_flow import start_task

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).parent / "compositional" / "coco_fixture"  # a COCO excerpt the compositional tests share
WITH_FILE = ["COCO_train2014_000000000009", "COCO_train2014_000000000257", "COCO_val2014_000000000139",
             "COCO_val2014_000000000285"]
URL_303 = "http://images.cocodataset.org/val2014/COCO_val2014_000000000303.jpg"


@pytest.fixture
def imported() -> None:
    """The fixture: 4 images with their file (renditions not made yet: the import's on-commit work did not run),
    8 known by reference."""
    import_coco(FIXTURE / "captions.json", FIXTURE / "instances.json", folder_images(FIXTURE / "images"))


def test_renditions_skip_images_without_a_file_and_runs_do_not_count_them(imported, capsys):
    assert sorted(renditions.stale_images().values_list("key", flat=True)) == WITH_FILE
    by_reference = Image.objects.get(key="COCO_val2014_000000000303")
    assert renditions.ensure_thumbnails(by_reference) is by_reference  # nothing to render, no error
    with pytest.raises(ValueError, match="has no stored file"):
        renditions.rendition_name(by_reference)

    call_command("render_images")

    assert "4 image(s) rendered, 0 failed" in capsys.readouterr().out
    job = RenditionJob.objects.get()
    assert (job.total, job.done, job.failed) == (4, 4, 0)
    assert set(Image.objects.filter(renditions_version=RENDITIONS_VERSION).values_list("key", flat=True)) == set(
        WITH_FILE)
    by_reference.refresh_from_db()
    assert (by_reference.thumb_small.name, by_reference.renditions_version) == ("", 0)


def test_grounded_exports_list_images_without_a_file_and_say_so(imported):
    # the exported images are those with boxes: 9, 139, 257 with their file; 301, 302, 304, 305, 308 by reference
    records, bundle, archive = export(write_coco)
    assert records == 40 + 11 and bundle.counts["captions"] == 40  # every annotation: the captions and 11 boxes
    names = archive.namelist()
    assert sorted(name for name in names if name.startswith("images/")) == [
        "images/COCO_train2014_000000000009.jpg", "images/COCO_train2014_000000000257.jpg",
        "images/COCO_val2014_000000000139.jpg"]
    captions = json.loads(archive.read("annotations/captions.json"))
    assert [image["file_name"] for image in captions["images"]][2:4] == [
        "COCO_train2014_000000000301.jpg", "COCO_train2014_000000000302.jpg"]
    assert bundle.counts["images without file (by reference)"] == 5
    assert any(note.startswith("5 image(s) are known to the platform only by reference") for note in bundle.notes)

    _, bundle, archive = export(write_imageclef)
    assert "COCO_train2014_000000000304\timages/COCO_train2014_000000000304.jpg\t640\t480\n" in archive.read(
        "images.tsv").decode()
    assert "images/COCO_train2014_000000000304.jpg" not in archive.namelist()
    assert bundle.counts["images without file (by reference)"] == 5

    _, bundle, archive = export(write_flickr30k)
    assert "Annotations/COCO_train2014_000000000304.xml" in archive.namelist()
    assert "images/COCO_train2014_000000000304.jpg" not in archive.namelist()
    assert "images/COCO_train2014_000000000009.jpg" in archive.namelist()
    assert any("only by reference" in note for note in bundle.notes)


def test_the_api_shows_whether_an_image_has_a_file_and_where_it_is_published(imported, api):
    listed = {image["key"]: image for image in api.get("/api/images/?page_size=100").json()["results"]}
    assert len(listed) == 12
    by_reference = listed["COCO_val2014_000000000303"]
    assert by_reference["has_file"] is False and by_reference["sha256"] is None
    assert by_reference["original_url"] is None and by_reference["thumbnail_url"] is None
    assert by_reference["source_url"] == by_reference["display_url"] == URL_303
    assert by_reference["origin"] == {"dataset": "coco", "external_id": 303, "subset": "val2014"}
    with_file = listed["COCO_train2014_000000000009"]
    assert with_file["has_file"] is True and with_file["original_url"].startswith("/media/images/originals/")
    assert with_file["origin"] == {"dataset": "coco", "external_id": 9, "subset": "train2014"}


def test_the_image_list_makes_the_same_queries_whatever_the_number_of_images(api):
    import_coco(FIXTURE / "captions.json")
    first = queries_for(api, "/api/images/?page_size=100")
    data = json.loads((FIXTURE / "captions.json").read_text())
    for image in data["images"]:
        image["id"] += 1000
        image["file_name"] = image["file_name"].replace("COCO_", "COCO_copy_")
    for annotation in data["annotations"]:
        annotation["id"] += 1000
        annotation["image_id"] += 1000
    more = FIXTURE.parent / "more.json"
    try:
        more.write_text(json.dumps(data))
        import_coco(more)
    finally:
        more.unlink()
    assert Image.objects.count() == 24
    assert queries_for(api, "/api/images/?page_size=100") == first


def test_a_task_page_shows_an_image_known_by_reference_at_its_published_address(imported, client):
    image = Image.objects.get(key="COCO_val2014_000000000303")
    campaign = create_campaign(name="describe coco", task_kind="describe_image", reward=Decimal("0.10"),
                               assignments_per_hit=1, items=[{"image": image.pk}])
    publish_campaign(campaign)
    token = start_task(client, campaign)
    page = client.get(reverse("task-page") + f"?t={token}").content.decode()
    assert URL_303 in page


def test_wizard_image_choices_show_images_by_reference_in_one_query(imported):
    """The wizard's "A selection of images" lists by-reference images with their published address, without a
    query per image."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotation.item_sources import ImageSelection

    with CaptureQueriesContext(connection) as queries:
        page = ImageSelection().choices()
        urls = {choice.label: choice.thumbnail for choice in page.choices}
    assert urls["COCO_val2014_000000000303.jpg"] == URL_303
    assert len(queries.captured_queries) <= 2  # the page of images (and its count)
