"""The VIST importer on hand-written files in the released layout (tests/fixtures/vist/): what lands where, the odd
corners (a photo the release leaves out, a story with four storylets, DII and SIS sharing an album), all or nothing
with errors naming file and record, idempotent re-import, the CLI, the API and the console importer."""
from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.image_sets.models import ImageSet
from annotation.models import Description, Image
from storyboard.importers import run_vist
from storyboard.models import Album, IsolatedDescription, Photo, Setting, Story, Storylet
from storyboard.services.vist_import.importer import import_vist
from storyboard.services.vist_import.records import VistImportError

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "vist"
A, B, C = "72157600000000001", "72157600000000002", "72157600000000003"


def counts() -> dict[str, int]:
    return {"albums": Album.objects.count(), "photos": Photo.objects.count(), "images": Image.objects.count(),
            "stories": Story.objects.count(), "storylets": Storylet.objects.count(),
            "dii": IsolatedDescription.objects.count(), "descriptions": Description.objects.count()}


def test_import_keeps_ids_split_order_and_skips_stories_of_missing_photos():
    summary = import_vist([FIXTURES])
    assert counts() == {"albums": 3, "photos": 16, "images": 16, "stories": 4, "storylets": 19, "dii": 3,
                        "descriptions": 3}
    assert (summary.stories, summary.skipped_stories, summary.incomplete_stories, summary.dii,
            summary.skipped_descriptions) == (4, 1, 1, 3, 1)
    assert dict(Album.objects.values_list("external_id", "split")) == {A: "test", B: "test", C: "val"}
    album = Album.objects.get(external_id=A)
    assert (album.title, album.event_label, album.owner, album.flickr["photos"]) == (
        "Craft fair 2008", "craft_fair", "50148267@N00", "19")
    tell, retell = Story.objects.filter(album=album).order_by("setting")
    assert (tell.external_id, tell.setting, tell.worker_label) == ("45530", Setting.TELL, "FJROI8NWDRIPAM1")
    assert retell.sequence_of_id == tell.pk and retell.setting == Setting.RETELL
    assert list(tell.storylets.values_list("order", "photo__external_id", "external_id")) == [
        (i, str(1000 + i), str(5 * 45530 + i)) for i in range(5)]
    assert tell.storylets.first().original_text == "We went to the craft fair."
    assert not Story.objects.filter(external_id="45532").exists()  # names photo 2999, which the release leaves out
    assert list(Story.objects.get(external_id="45533").storylets.values_list("order", flat=True)) == [0, 1, 2, 4]
    photo = Photo.objects.select_related("image").get(external_id="1000")
    assert (photo.url, photo.latitude, photo.licence, photo.tags) == (
        "https://farm1.staticflickr.com/2/1000_a1b2c3d4e5_o.jpg", 51.920449, "1", ["craft", "fair", "xmas"])
    assert not photo.image.has_file and photo.image.display_url == photo.url
    vist_test = ImageSet.objects.get(name="VIST test")
    assert vist_test.source == "vist" and "Creative Commons" in vist_test.licence and vist_test.images.count() == 11
    dii = IsolatedDescription.objects.select_related("description").order_by("pk").first()
    assert (dii.description.text, dii.description.normalized_text, dii.description.source, dii.order,
            dii.worker_label) == ("A hall full of stalls.", "a hall full of stalls .", "vist", 0, "DII0000000000A1")


def test_reimport_adds_nothing():
    import_vist([FIXTURES])
    before = counts()
    summary = import_vist([FIXTURES / "sis", FIXTURES / "dii" / "test.description-in-isolation.json"])
    assert counts() == before
    assert (summary.stories, summary.stories_kept, summary.dii, summary.dii_kept, summary.photos_new,
            summary.albums_new, summary.albums_updated) == (0, 4, 0, 3, 0, 0, 3)


def _broken(tmp_path: Path, change) -> Path:
    folder = tmp_path / "vist"
    shutil.copytree(FIXTURES, folder)
    path = folder / "sis" / "test.story-in-sequence.json"
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))
    return folder


def test_bad_records_are_named_by_file_and_path_and_nothing_is_written(tmp_path):
    def change(document):
        document["annotations"][3][0]["worker_arranged_photo_order"] = "third"
        document["images"][2]["datetaken"] = "2008-13-01 10:00:00"
        document["annotations"][7] = []

    with pytest.raises(VistImportError) as caught:
        import_vist([_broken(tmp_path, change)])
    assert caught.value.errors == [
        "test.story-in-sequence.json: images[2]: bad datetaken: '2008-13-01 10:00:00' is not a date and time like "
        "2004-11-27 10:40:46 (month must be in 1..12)",
        "test.story-in-sequence.json: annotations[3][0]: worker_arranged_photo_order must be a whole number from 0 "
        "to 99, got 'third'",
        "test.story-in-sequence.json: annotations[7]: an annotation must be a list of one object",
    ]
    assert counts() == dict.fromkeys(counts(), 0)


def test_an_album_in_two_splits_and_a_story_across_albums_are_refused(tmp_path):
    def change(document):
        document["albums"][0]["id"] = C  # the val file's album
        for image in document["images"]:
            image["album_id"] = C if image["album_id"] == A else image["album_id"]
        document["annotations"][12][0]["album_id"] = C

    with pytest.raises(VistImportError) as caught:
        import_vist([_broken(tmp_path, change)])
    assert "test.story-in-sequence.json: albums[0]: album 72157600000000003 is in the test split here and in the " \
           "val split in val.story-in-sequence.json: albums[0] (an album is in one split)" in caught.value.errors
    assert "test.story-in-sequence.json: annotations[12][0] (story 45532): photo 2001 is in album 72157600000000002, " \
           "not 72157600000000003" in caught.value.errors
    assert Album.objects.count() == 0


def test_command_imports_one_split_and_reports(tmp_path):
    out = io.StringIO()
    call_command("import_vist", str(FIXTURES), "--split", "val", stdout=out)
    assert out.getvalue().startswith("1 file(s): 1 albums new") and counts()["stories"] == 1
    other = tmp_path / "x.json"
    other.write_text("{}")
    with pytest.raises(CommandError, match="x.json: not a VIST file name"):
        call_command("import_vist", str(other))
    bad = tmp_path / "story-in-sequence.json"
    bad.write_text("{}")
    with pytest.raises(CommandError, match="the name gives no split"):
        call_command("import_vist", str(bad))


def test_api_upload_and_console_importer(api, tmp_path, django_capture_on_commit_callbacks):
    with open(FIXTURES / "sis" / "val.story-in-sequence.json", "rb") as handle, \
            django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/imports/", {"importer": "vist", "file": handle}, format="multipart")
    assert response.status_code == 202, response.content
    job = api.get(f"/api/imports/{response.json()['id']}/").json()
    assert job["status"] == "done" and job["report"]["counts"]["stories"] == 1
    broken = tmp_path / "test.story-in-sequence.json"
    broken.write_text('{"albums": [}')
    with broken.open("rb") as handle, django_capture_on_commit_callbacks(execute=True):
        refused = api.post("/api/imports/", {"importer": "vist", "file": handle}, format="multipart")
    job = api.get(f"/api/imports/{refused.json()['id']}/").json()
    assert job["status"] == "failed"
    assert job["report"]["refused"][0]["name"] == "test.story-in-sequence.json"
    assert job["report"]["refused"][0]["reason"].startswith("not valid JSON")
    archive = tmp_path / "vist.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in FIXTURES.rglob("*.json"):
            zipped.write(path, f"vist/{path.relative_to(FIXTURES)}")
    report = run_vist(archive, {"split": "test"}, lambda done, total: None)
    assert report["counts"]["stories"] == 3 and report["counts"]["stories skipped (photo not in the release)"] == 1
    assert counts()["albums"] == 3
