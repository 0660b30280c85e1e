"""Album import (storyboard/services/albums/, `manage.py import_albums`): folders, JSON manifests,
idempotent re-imports, and bad inputs that must change nothing."""
from __future__ import annotations

import io
import itertools
import json
import os
from datetime import UTC, datetime
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from PIL import ExifTags
from PIL import Image as PILImage

from annotation.image_sets.models import ImageSet
from annotation.models import Image
from storyboard.models import Album, Photo
from storyboard.services.albums import writing as service
from storyboard.services.albums.fields import AlbumImportError, parse_datetaken
from storyboard.services.albums.reading import check_albums
from storyboard.services.albums.writing import import_albums

pytestmark = pytest.mark.django_db

_colours = itertools.count(1)


def picture(fmt: str = "JPEG", exif_datetime: str | None = None, exif_offset: str | None = None) -> bytes:
    """A small image of a colour no other call uses, optionally with EXIF DateTimeOriginal."""
    n = next(_colours)
    image = PILImage.new("RGB", (24, 16), (n * 37 % 256, n * 91 % 256, (n * 53 + n // 256) % 256))
    kwargs: dict[str, Any] = {}
    if exif_datetime is not None:
        exif = PILImage.Exif()
        exif.get_ifd(ExifTags.IFD.Exif)[ExifTags.Base.DateTimeOriginal] = exif_datetime
        if exif_offset is not None:
            exif.get_ifd(ExifTags.IFD.Exif)[ExifTags.Base.OffsetTimeOriginal] = exif_offset
        kwargs["exif"] = exif
    buffer = io.BytesIO()
    image.save(buffer, fmt, **kwargs)
    return buffer.getvalue()


def write(path: Path, data: bytes, mtime: datetime | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if mtime is not None:
        os.utime(path, (mtime.timestamp(), mtime.timestamp()))
    return path


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def state(media_root: Path) -> tuple[int, int, int, int, list[tuple[str, str]]]:
    """Row counts, stored files and album titles: what a refused import must leave unchanged."""
    files = sum(1 for p in Path(media_root).rglob("*") if p.is_file()) if Path(media_root).exists() else 0
    return (Album.objects.count(), Photo.objects.count(), Image.objects.count(), files,
            list(Album.objects.values_list("external_id", "title")))


def photo_record(file: str, photo_id: str, **fields: Any) -> dict[str, Any]:
    return {"file": file, "id": photo_id, "datetaken": "2004-11-27 10:40:46", **fields}


def manifest(tmp_path: Path, albums: list[dict[str, Any]], name: str = "manifest.json") -> Path:
    path = tmp_path / "in" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"albums": albums}), encoding="utf-8")
    return path


def two_photo_album(tmp_path: Path, album_id: str = "a1") -> dict[str, Any]:
    write(tmp_path / "in" / "img" / f"{album_id}-1.jpg", picture())
    write(tmp_path / "in" / "img" / f"{album_id}-2.png", picture("PNG"))
    return {"id": album_id, "title": "First title", "description": "kept", "photos": [
        photo_record(f"img/{album_id}-1.jpg", "p1", datetaken="2004-11-27 10:40:46"),
        photo_record(f"img/{album_id}-2.png", "p2", datetaken="2004-11-27 09:00:00"),
    ]}


# --- folder layout --------------------------------------------------------------------------------------------


def test_folder_import_orders_photos_by_exif_time_then_file_time(tmp_path):
    root = tmp_path / "albums"
    trip = root / "trip-2021"
    write(trip / "a.jpg", picture(), mtime=utc(2021, 1, 3, 12, 0, 0))  # no EXIF: file time
    write(trip / "b.png", picture("PNG"), mtime=utc(2021, 1, 1, 8, 30, 0))
    write(trip / "c.jpg", picture(exif_datetime="2020:12:31 23:59:58"), mtime=utc(2021, 1, 5))  # EXIF wins
    write(trip / "d.jpg", picture(exif_datetime="2021:01:02 10:00:00", exif_offset="+02:00"), mtime=utc(2020, 1, 1))
    write(trip / ".DS_Store", b"not an image, but hidden")
    write(trip / ".thumbs" / "x.jpg", b"hidden folder")
    write(root / ".git" / "HEAD", b"hidden album folder")
    write(root / "beach" / "only.jpg", picture(), mtime=utc(2019, 7, 1))

    report = import_albums(root)

    assert (report.albums_created, report.albums_updated, report.photos_added, report.photos_kept) == (2, 0, 5, 0)
    assert report.images_stored == 5
    assert sorted(Album.objects.values_list("external_id", flat=True)) == ["beach", "trip-2021"]
    album = Album.objects.get(external_id="trip-2021")
    assert [(p.external_id, p.datetaken) for p in album.photos.all()] == [
        ("c", utc(2020, 12, 31, 23, 59, 58)),
        ("b", utc(2021, 1, 1, 8, 30, 0)),
        ("d", utc(2021, 1, 2, 8, 0, 0)),  # 10:00 at +02:00
        ("a", utc(2021, 1, 3, 12, 0, 0)),
    ]
    assert album.photos.get(external_id="b").image.original_name == "trip-2021/b.png"
    assert (album.title, album.description, album.flickr) == ("", "", {})


def test_folder_album_json_gives_album_and_photo_metadata(tmp_path):
    root = tmp_path / "albums"
    write(root / "party" / "x.jpg", picture(), mtime=utc(2022, 5, 1))
    write(root / "party" / "y.jpg", picture(), mtime=utc(2022, 5, 2))
    (root / "party" / "album.json").write_text(json.dumps({
        "title": "Birthday", "description": "Ann turns 30", "event_label": "birthday", "owner": "50148267@N00",
        "flickr": {"primary": "y", "farm": "4"},
        "photos": {"y.jpg": {"id": "cake", "datetaken": "2022-04-30 18:00:00", "title": "The cake",
                             "tags": "cake candles", "latitude": "51.5", "longitude": -0.12}},
    }), encoding="utf-8")

    import_albums(root)

    album = Album.objects.get(external_id="party")
    assert (album.title, album.description, album.event_label, album.owner) == (
        "Birthday", "Ann turns 30", "birthday", "50148267@N00")
    assert album.flickr == {"primary": "y", "farm": "4"}
    cake, x = album.photos.all()
    assert (cake.external_id, cake.datetaken, cake.title, cake.tags) == (
        "cake", utc(2022, 4, 30, 18), "The cake", ["cake", "candles"])
    assert (cake.latitude, cake.longitude) == (51.5, -0.12)
    assert (x.external_id, x.datetaken, x.title, x.tags, x.latitude) == ("x", utc(2022, 5, 1), "", [], None)


# --- manifest layout ------------------------------------------------------------------------------------------


def test_manifest_import_stores_every_field(tmp_path):
    write(tmp_path / "in" / "photos" / "1741642.jpg", picture())
    write(tmp_path / "in" / "photos" / "1741643.png", picture("PNG"))
    path = manifest(tmp_path, [{
        "id": "72157607155047588", "title": "Father's Day 2008",
        "description": "Photo's from Father's Day 2008 at Tread, Wangaratta", "event_label": "father's_day",
        "owner": "50148267@N00",
        "flickr": {"primary": "1741642", "date_create": "1220783782", "date_update": 1306981520, "farm": "4",
                   "server": "3010", "secret": "fa6c97bfe2"},
        "photos": [
            {"file": "photos/1741642.jpg", "id": "1741642", "datetaken": "2004-11-27 10:40:46",
             "title": "The venue.", "text": "Inside the hall", "tags": "stevenage fairies craftfair xmas 2004",
             "license": "1", "latitude": "51.920449", "longitude": "-0.212688", "secret": "81837e8e9e",
             "url": "https://farm1.staticflickr.com/2/1741642_81837e8e9e_o.jpg"},
            {"file": "photos/1741643.png", "id": 1741643, "datetaken": "2004-11-27T09:40:46+01:00",
             "tags": ["stall", "cakes"], "license": 4, "latitude": 0, "longitude": None},
        ],
    }])

    report = import_albums(path)

    assert (report.albums_created, report.photos_added) == (1, 2)
    album = Album.objects.get()
    assert (album.external_id, album.title, album.event_label, album.owner) == (
        "72157607155047588", "Father's Day 2008", "father's_day", "50148267@N00")
    assert album.description == "Photo's from Father's Day 2008 at Tread, Wangaratta"
    assert album.flickr == {"primary": "1741642", "date_create": "1220783782", "date_update": "1306981520",
                            "farm": "4", "server": "3010", "secret": "fa6c97bfe2"}
    second, first = album.photos.all()  # 08:40:46 UTC comes before 10:40:46 UTC
    assert (first.external_id, first.datetaken, first.title, first.text) == (
        "1741642", utc(2004, 11, 27, 10, 40, 46), "The venue.", "Inside the hall")
    assert first.tags == ["stevenage", "fairies", "craftfair", "xmas", "2004"]
    assert (first.licence, first.latitude, first.longitude, first.secret) == ("1", 51.920449, -0.212688, "81837e8e9e")
    assert first.url == "https://farm1.staticflickr.com/2/1741642_81837e8e9e_o.jpg"
    assert first.image.original_name == "photos/1741642.jpg" and first.image.format == "JPEG"
    assert (second.external_id, second.datetaken, second.tags, second.licence) == (
        "1741643", utc(2004, 11, 27, 8, 40, 46), ["stall", "cakes"], "4")
    assert (second.latitude, second.longitude, second.title, second.url) == (0.0, None, "", "")


def test_manifest_photo_without_datetaken_uses_exif(tmp_path):
    write(tmp_path / "in" / "e.jpg", picture(exif_datetime="2015:06:07 08:09:10"))
    path = manifest(tmp_path, [{"id": "a", "photos": [{"file": "e.jpg", "id": "e"}]}])
    import_albums(path)
    assert Photo.objects.get().datetaken == utc(2015, 6, 7, 8, 9, 10)


def test_same_image_in_two_albums_is_stored_once(tmp_path):
    data = picture()
    write(tmp_path / "in" / "one.jpg", data)
    write(tmp_path / "in" / "copy.jpg", data)
    path = manifest(tmp_path, [{"id": "a", "photos": [photo_record("one.jpg", "p")]},
                               {"id": "b", "photos": [photo_record("copy.jpg", "p")]}])
    report = import_albums(path)
    assert (report.photos_added, report.images_stored, Image.objects.count()) == (2, 1, 1)
    assert Photo.objects.filter(external_id="p").values("image").distinct().count() == 1


# --- re-import ------------------------------------------------------------------------------------------------


def test_reimport_keeps_photos_adds_new_ones_and_updates_the_album(tmp_path, media_root):
    album = two_photo_album(tmp_path)
    path = manifest(tmp_path, [album])
    import_albums(path)
    before = state(media_root)
    first_ids = dict(Photo.objects.values_list("external_id", "pk"))

    again = import_albums(path)
    assert (again.albums_created, again.albums_updated, again.photos_added, again.photos_kept) == (0, 1, 0, 2)
    assert again.images_stored == 0
    assert state(media_root) == before

    write(tmp_path / "in" / "img" / "new.jpg", picture())
    album["title"] = "Second title"
    del album["description"]  # absent: the stored description stays
    album["photos"][0]["title"] = "ignored: the photo is already there"
    album["photos"].append(photo_record("img/new.jpg", "p3", datetaken="2004-11-27 09:30:00"))
    path = manifest(tmp_path, [album])
    third = import_albums(path)

    assert (third.albums_created, third.albums_updated, third.photos_added, third.photos_kept) == (0, 1, 1, 2)
    stored = Album.objects.get()
    assert (stored.title, stored.description) == ("Second title", "kept")
    assert [p.external_id for p in stored.photos.all()] == ["p2", "p3", "p1"]
    assert Photo.objects.get(external_id="p1").title == ""
    assert {k: v for k, v in Photo.objects.values_list("external_id", "pk") if k != "p3"} == first_ids


def test_reimport_of_a_folder_is_idempotent(tmp_path, media_root):
    root = tmp_path / "albums"
    write(root / "walk" / "1.jpg", picture(), mtime=utc(2020, 1, 1))
    first = import_albums(root)
    before = state(media_root)
    second = import_albums(root)
    assert (first.albums_created, first.photos_added) == (1, 1)
    assert (second.albums_created, second.albums_updated, second.photos_added, second.photos_kept) == (0, 1, 0, 1)
    assert state(media_root) == before


# --- bad input: nothing changes, the culprit is named -----------------------------------------------------------


def _missing_file(album: dict) -> None:
    album["photos"][1]["file"] = "img/nowhere.jpg"


def _duplicate_id(album: dict) -> None:
    album["photos"][1]["id"] = "p1"


def _bad_datetaken(album: dict) -> None:
    album["photos"][1]["datetaken"] = "27/11/2004 10:40"


def _impossible_datetaken(album: dict) -> None:
    album["photos"][1]["datetaken"] = "0000-00-00 00:00:00"


def _not_an_image(album: dict) -> None:
    album["photos"][1]["file"] = "img/notes.jpg"


def _truncated_image(album: dict) -> None:
    album["photos"][1]["file"] = "img/truncated.jpg"


def _latitude(album: dict) -> None:
    album["photos"][1]["latitude"] = 91


def _longitude(album: dict) -> None:
    album["photos"][1]["longitude"] = "-180.5"


def _url(album: dict) -> None:
    album["photos"][1]["url"] = "ftp://example.org/x.jpg"


def _unknown_field(album: dict) -> None:
    album["photos"][1]["licence"] = "1"


def _tags(album: dict) -> None:
    album["photos"][1]["tags"] = ["ok", "two words"]


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (_missing_file, "file does not exist"),
        (_duplicate_id, "duplicate photo id 'p1' in album 'a1'"),
        (_bad_datetaken, "bad datetaken: '27/11/2004 10:40' is not a date and time"),
        (_impossible_datetaken, "bad datetaken"),
        (_not_an_image, "not an acceptable image: not an image"),
        (_truncated_image, "not an acceptable image: damaged or truncated"),
        (_latitude, "latitude 91 is out of range"),
        (_longitude, "longitude -180.5 is out of range"),
        (_url, "is not an http(s) URL"),
        (_unknown_field, "unknown field(s) licence"),
        (_tags, "tag 'two words' is empty or contains spaces"),
    ],
)
def test_bad_photo_in_manifest_changes_nothing(tmp_path, media_root, spoil, message):
    write(tmp_path / "in" / "img" / "notes.jpg", b"these are my notes, not a picture")
    write(tmp_path / "in" / "img" / "truncated.jpg", picture()[:-200])
    good = two_photo_album(tmp_path, "a0")
    import_albums(manifest(tmp_path, [good], "first.json"))  # an existing album the bad import would update
    before = state(media_root)
    good["title"] = "must not be written"
    write(tmp_path / "in" / "img" / "extra.jpg", picture())
    good["photos"].append(photo_record("img/extra.jpg", "extra"))
    bad = two_photo_album(tmp_path, "a1")
    spoil(bad)

    with pytest.raises(AlbumImportError) as caught:
        import_albums(manifest(tmp_path, [good, bad]))

    errors = caught.value.errors
    assert len(errors) == 1, errors
    assert message in errors[0]
    assert "manifest.json albums[1] (album 'a1') photos[1]" in errors[0]
    culprit = "p1" if spoil is _duplicate_id else "p2"  # the duplicate takes the id of the first photo
    assert f"photos[1] (photo '{culprit}')" in errors[0]
    assert state(media_root) == before


def test_every_problem_is_reported_at_once(tmp_path, media_root):
    album = two_photo_album(tmp_path)
    album["photos"][0]["latitude"] = -95
    album["photos"][1]["file"] = "img/gone.png"
    before = state(media_root)
    with pytest.raises(AlbumImportError) as caught:
        import_albums(manifest(tmp_path, [album, {"id": "a1", "photos": []}]))
    text = "\n".join(caught.value.errors)
    assert "photos[0] (photo 'p1'): latitude -95 is out of range" in text
    assert "photos[1] (photo 'p2'), file img/gone.png: the file does not exist" in text
    assert "albums[1] (album 'a1'): duplicate album id" in text
    assert "albums[1] (album 'a1'): the album has no photos" in text
    assert len(caught.value.errors) == 4
    assert state(media_root) == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"albums": [{"id": "a", "title": "caf\xe9", "photos": []}]}'.encode("latin-1"),
         "manifest.json: not text: the file looks damaged at byte 37 (line 1)"),
        (b'{"albums": [\n  {"id": "a",}\n]}', "manifest.json line 2 column 14: not valid JSON"),
        (b'{"albums": {"id": "a"}}', "expected a JSON object with an 'albums' list"),
        (b'{"albums": [{"id": "a", "photos": []}]}', "albums[0] (album 'a'): the album has no photos"),
        (b'{"albums": [{"id": "a"}]}', "albums[0] (album 'a'): has no photos"),
        (b'{"albums": [{"title": "no id", "photos": []}]}', "albums[0]: the album id is missing"),
        (b'{"albums": [{"id": "a", "flickr": {"farm": "1", "views": "3"}, "photos": []}]}',
         "unknown flickr field(s) views"),
        (b'{"albums": [{"id": "a", "photos": [{"id": "p", "datetaken": "2004-11-27 10:40:46"}]}]}',
         "albums[0] (album 'a') photos[0] (photo 'p'): 'file' (the image path"),
        (b'{"albums": [{"id": "a", "photos": [{"file": "/etc/x.jpg", "id": "p"}]}]}',
         "file '/etc/x.jpg' must be relative"),
        (b'{"albums": [{"id": "a", "photos": [{"file": "../../../../etc/passwd", "id": "p"}]}]}',
         "albums[0] (album 'a') photos[0] (photo 'p'): file '../../../../etc/passwd' leaves the album folder"),
        (b'{"albums": [{"id": "a", "title": "x\\u0000", "photos": []}]}',
         "manifest.json: $.albums[0].title: the text holds a NUL character"),
        (b'{"albums": [{"id": "a", "title": "x\\udc80", "photos": []}]}',
         "manifest.json: $.albums[0].title: the text holds a lone surrogate"),
        (b'{"albums": [{"id": ' + b"9" * 5000 + b', "photos": []}]}',
         "manifest.json: $.albums[0].id: a number with more than"),
        (b'{"albums": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "manifest.json: $: nested deeper than"),
    ],
)
def test_bad_manifest_changes_nothing(tmp_path, media_root, content, message):
    import_albums(manifest(tmp_path, [two_photo_album(tmp_path, "a")], "first.json"))
    before = state(media_root)
    path = tmp_path / "in" / "manifest.json"
    path.write_bytes(content)
    with pytest.raises(AlbumImportError) as caught:
        import_albums(path)
    assert any(message in error for error in caught.value.errors), caught.value.errors
    assert state(media_root) == before


def _folder_not_an_image(album: Path) -> None:
    write(album / "readme.txt", b"hello")


def _folder_duplicate_stem(album: Path) -> None:
    write(album / "one.png", picture("PNG"))


def _folder_bad_album_json(album: Path) -> None:
    write(album / "album.json", json.dumps({"photos": {"one.jpg": {"datetaken": "yesterday"}}}).encode())


def _folder_album_json_not_utf8(album: Path) -> None:
    write(album / "album.json", '{\n"title": "f\xeate"}'.encode("latin-1"))


def _folder_unknown_photo(album: Path) -> None:
    write(album / "album.json", json.dumps({"photos": {"three.jpg": {"title": "where?"}}}).encode())


def _folder_nested(album: Path) -> None:
    write(album / "more" / "x.jpg", picture())


def _folder_symlink_out(album: Path) -> None:
    outside = write(album.parent.parent / "outside.jpg", picture())
    (album / "three.jpg").symlink_to(outside)


def _folder_undecodable_name(album: Path) -> None:
    write(album / os.fsdecode(b"caf\xe9.jpg"), picture())


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (_folder_not_an_image, "album 'b' (folder b/), photo 'readme' (file readme.txt): not an acceptable image"),
        (_folder_duplicate_stem, "album 'b' (folder b/), photo 'one' (file one.png): duplicate photo id 'one'"),
        (_folder_bad_album_json, "album 'b' (folder b/), photo file 'one.jpg' (b/album.json): bad datetaken"),
        (_folder_album_json_not_utf8, "b/album.json: not text: the file looks damaged at byte 13 (line 2)"),
        (_folder_unknown_photo, "b/album.json: photos['three.jpg'] names a file that is not in the folder"),
        (_folder_nested, "album 'b' (folder b/): sub-folder 'more' is not allowed"),
        (_folder_symlink_out, "album 'b' (folder b/): file 'three.jpg' leaves the album folder"),
        (_folder_undecodable_name, "album 'b' (folder b/): the file name 'caf\\udce9.jpg' holds a lone surrogate"),
    ],
)
def test_bad_album_folder_changes_nothing(tmp_path, media_root, spoil, message):
    root = tmp_path / "albums"
    write(root / "a" / "first.jpg", picture())
    write(root / "b" / "one.jpg", picture())
    write(root / "b" / "two.jpg", picture())
    spoil(root / "b")
    before = state(media_root)
    with pytest.raises(AlbumImportError) as caught:
        import_albums(root)
    assert [error for error in caught.value.errors if message in error], caught.value.errors
    assert state(media_root) == before == (0, 0, 0, 0, [])


def test_empty_album_folder_and_folder_without_albums(tmp_path):
    root = tmp_path / "albums"
    (root / "empty").mkdir(parents=True)
    write(root / "empty" / ".hidden.jpg", picture())
    with pytest.raises(AlbumImportError, match=r"album 'empty' \(folder empty/\): the album has no photos"):
        check_albums(root)
    single = tmp_path / "single"
    write(single / "x.jpg", picture())
    with pytest.raises(AlbumImportError, match="no album sub-folders"):
        check_albums(single)
    with pytest.raises(AlbumImportError, match="does not exist"):
        check_albums(tmp_path / "nowhere")
    assert Album.objects.count() == 0


def test_failure_while_writing_rolls_back_rows_and_stored_files(tmp_path, media_root, monkeypatch):
    path = manifest(tmp_path, [two_photo_album(tmp_path)])
    real = service.import_image_bytes
    calls = []

    def second_call_fails(name: str, data: bytes, key: str | None = None):
        calls.append(name)
        if len(calls) == 2:  # the file was replaced after the check
            raise service.ImageRejected("not an image (or not a format Pillow can read)")
        return real(name, data, key)

    monkeypatch.setattr(service, "import_image_bytes", second_call_fails)
    with pytest.raises(AlbumImportError, match="nothing was imported: a file changed during the import"):
        import_albums(path)
    assert len(calls) == 2
    assert state(media_root) == (0, 0, 0, 0, [])


# --- datetaken --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2004-11-27 10:40:46", utc(2004, 11, 27, 10, 40, 46)),
        ("2004-11-27T10:40:46Z", utc(2004, 11, 27, 10, 40, 46)),
        ("2004-11-27 10:40:46-05:00", utc(2004, 11, 27, 15, 40, 46)),
    ],
)
def test_datetaken_is_utc(text, expected):
    assert parse_datetaken(text) == expected


@pytest.mark.parametrize("text", ["2004-11-27", "2004-13-01 00:00:00", "2004-11-27 25:00:00", "1101550846", ""])
def test_bad_datetaken_is_refused(text):
    with pytest.raises(ValueError, match="is not a date and time"):
        parse_datetaken(text)


# --- command ----------------------------------------------------------------------------------------------------


def test_command_imports_and_reports_counts(tmp_path):
    path = manifest(tmp_path, [two_photo_album(tmp_path)])
    out = StringIO()
    call_command("import_albums", str(path), stdout=out)
    assert out.getvalue().strip() == ("albums: 1 created, 0 updated; photos: 2 added, 0 kept; images: 2 stored; "
                                      f"in the collection '{path.stem}'")
    out = StringIO()
    call_command("import_albums", str(path), "--set", "Holidays", "--tag", "pilot", stdout=out)
    assert out.getvalue().strip() == ("albums: 0 created, 1 updated; photos: 0 added, 2 kept; images: 0 stored; "
                                      "in the collection 'Holidays'")
    photos = sorted(Photo.objects.values_list("image_id", flat=True))
    for name in (path.stem, "Holidays"):  # the photos kept on a re-import are filed in the collection named too
        image_set = ImageSet.objects.get(name=name)
        assert sorted(image_set.images.values_list("pk", flat=True)) == photos and image_set.source == "albums"
    assert list(ImageSet.objects.get(name="Holidays").tags.values_list("name", flat=True)) == ["pilot"]
    with pytest.raises(CommandError, match="--set/--tag: the collection name"):
        call_command("import_albums", str(path), "--set", "x" * 101)


def test_command_refuses_bad_input_naming_the_culprit(tmp_path, media_root):
    album = two_photo_album(tmp_path)
    album["photos"][1]["datetaken"] = "2004-11-31 10:00:00"
    path = manifest(tmp_path, [album])
    with pytest.raises(CommandError) as caught:
        call_command("import_albums", str(path))
    message = str(caught.value)
    assert message.startswith("1 problem(s), nothing was imported:")
    assert "manifest.json albums[0] (album 'a1') photos[1] (photo 'p2'): bad datetaken" in message
    assert state(media_root) == (0, 0, 0, 0, [])
    with pytest.raises(CommandError, match="does not exist"):
        call_command("import_albums", str(tmp_path / "missing.json"))
