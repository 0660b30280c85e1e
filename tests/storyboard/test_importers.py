"""The console's album importer (storyboard/importers.py): a zip of album folders or of a JSON manifest with its
photos, read by the all-or-nothing album service; refused zip entries and bad photos change nothing."""
from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from annotation.image_sets.models import ImageSet
from annotation.models import Image
from mturk.importers import ImportProblems, get_importer
from storyboard.models import Album, Photo
from tests.importing import Steps, write_zip
from tests.storyboard.test_import_albums import picture

pytestmark = pytest.mark.django_db


def state() -> tuple[int, int, int]:
    return Album.objects.count(), Photo.objects.count(), Image.objects.count()


@pytest.mark.parametrize("top", ["", "albums/"])
def test_a_zip_of_album_folders(tmp_path, top):
    source = write_zip(tmp_path / "albums.zip", when=(2020, 5, 17, 9, 30, 0), files={
        f"{top}beach/1.jpg": picture(), f"{top}beach/2.png": picture("PNG"),
        f"{top}beach/album.json": json.dumps({"title": "At the beach"}).encode(),
        f"{top}party/a.jpg": picture(), f"{top}__MACOSX/beach/._1.jpg": b"junk",
    })
    steps = Steps()
    importer = get_importer("albums")
    report = importer.run(source, importer.check_options({"tags": "Beach, 2020"}, "albums.zip"), steps)
    assert steps == [(0, 3), (1, 3), (2, 3), (3, 3)]
    assert report["summary"] == ("albums: 2 created, 0 updated; photos: 3 added, 0 kept; images: 3 stored; in the "
                                 "collection 'albums'")
    image_set = ImageSet.objects.get(name="albums")
    assert image_set.images.count() == 3 and report["image_set"] == "albums"
    assert sorted(image_set.tags.values_list("name", flat=True)) == ["2020", "beach"]
    assert report["imported"] == [{"name": "album beach", "detail": "2 photo(s)"},
                                  {"name": "album party", "detail": "1 photo(s)"}]
    assert Album.objects.get(external_id="beach").title == "At the beach"
    # no EXIF date and none given: the photo is dated by its time in the zip
    assert Photo.objects.get(external_id="a").datetaken == datetime(2020, 5, 17, 9, 30, tzinfo=UTC)


def test_a_zip_of_one_album_folder_is_that_album(tmp_path):
    source = write_zip(tmp_path / "one.zip", {"beach/1.jpg": picture(), "beach/2.jpg": picture()})
    get_importer("albums").run(source, {}, Steps())
    assert list(Album.objects.values_list("external_id", flat=True)) == ["beach"]


def test_a_zip_of_a_manifest_and_its_photos(tmp_path):
    manifest = {"albums": [{"id": "72157", "title": "Father's Day", "photos": [
        {"file": "photos/p1.jpg", "id": "p1", "datetaken": "2004-11-27 10:40:46"},
        {"file": "photos/p2.jpg", "id": "p2", "datetaken": "2004-11-27 09:00:00"},
    ]}]}
    source = write_zip(tmp_path / "vist.zip", {"data/manifest.json": json.dumps(manifest).encode(),
                                               "data/photos/p1.jpg": picture(), "data/photos/p2.jpg": picture()})
    report = get_importer("albums").run(source, {}, Steps())
    assert report["imported"] == [{"name": "album 72157", "detail": "2 photo(s)"}]
    assert list(Album.objects.get().photos.order_by("datetaken").values_list("external_id", flat=True)) == ["p2", "p1"]


def test_a_bad_photo_names_album_and_photo_and_changes_nothing(tmp_path, media_root):
    source = write_zip(tmp_path / "albums.zip", {"beach/1.jpg": picture(), "beach/2.jpg": b"not an image",
                                                 "party/a.jpg": picture()})
    with pytest.raises(ImportProblems) as refused:
        get_importer("albums").run(source, {}, Steps())
    [(name, reason)] = refused.value.problems
    assert name == "album 'beach' (folder beach/), photo '2' (file 2.jpg)"
    assert reason.startswith("not an acceptable image")
    assert state() == (0, 0, 0) and not any(p.is_file() for p in media_root.rglob("*"))


def test_messages_name_the_zip_not_the_temporary_folder(tmp_path):
    source = write_zip(tmp_path / "flat.zip", {"1.jpg": picture()})
    with pytest.raises(ImportProblems) as refused:
        get_importer("albums").run(source, {}, Steps())
    assert refused.value.problems == [("flat.zip", "no album sub-folders (each sub-folder of the folder is one album)")]


def test_an_entry_leaving_the_zip_refuses_the_whole_import(tmp_path):
    source = write_zip(tmp_path / "albums.zip", {"beach/1.jpg": picture(), "../evil/x.jpg": picture()})
    with pytest.raises(ImportProblems) as refused:
        get_importer("albums").run(source, {}, Steps())
    assert refused.value.problems == [("../evil/x.jpg", "entry escapes the target folder ('..' in its path); refused")]
    assert state() == (0, 0, 0)


def test_two_manifests_are_refused(tmp_path):
    source = write_zip(tmp_path / "m.zip", {"a.json": b"{}", "b.json": b"{}"})
    with pytest.raises(ImportProblems, match="1 problem") as refused:
        get_importer("albums").run(source, {}, Steps())
    assert refused.value.problems == [("the zip", "more than one JSON manifest (a.json, b.json)")]


def test_a_file_that_is_not_a_zip(tmp_path):
    source = tmp_path / "albums.zip"
    source.write_bytes(b"hello")
    with pytest.raises(ImportProblems) as refused:
        get_importer("albums").run(source, {}, Steps())
    assert refused.value.problems[0][1].startswith("albums.zip: not a readable zip file")
