"""Importing photo albums: a folder of album folders, or a JSON manifest (docs/formats/albums.md).

All or nothing: every album, photo and image file is checked first (`check_albums`); any problem is
reported (album, photo, manifest entry) and nothing is written. Then everything is written in one
transaction (`write_albums`). Re-importing an album keeps the photos it already has (same photo id),
adds the new ones and updates the album fields the input gives.

Times: `datetaken` is stored timezone-aware. A value without a UTC offset (VIST's "YYYY-MM-DD HH:MM:SS",
an EXIF DateTimeOriginal without OffsetTimeOriginal, ...) is taken to be UTC."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.core.validators import URLValidator
from django.db import transaction
from PIL import ExifTags
from PIL import Image as PILImage

from annotation.services.image_files import ImageRejected, inspect_image
from annotation.services.images import import_image_bytes
from config.json_input import JsonInputError, limits, parse_json
from config.text_input import unstorable

from ..models import Album, Photo

ALBUM_JSON = "album.json"
IGNORED_FILES = {ALBUM_JSON, "Thumbs.db", "desktop.ini"}
ALBUM_KEYS = {"id", "title", "description", "event_label", "owner", "flickr", "photos"}
FOLDER_ALBUM_KEYS = ALBUM_KEYS - {"id"}
PHOTO_KEYS = {"file", "id", "datetaken", "title", "text", "tags", "license", "latitude", "longitude", "secret", "url"}
FOLDER_PHOTO_KEYS = PHOTO_KEYS - {"file"}
FLICKR_KEYS = {"primary", "date_create", "date_update", "farm", "server", "secret"}
# Album field -> longest value the model takes (None: no limit).
ALBUM_TEXT_FIELDS: dict[str, int | None] = {"title": 300, "description": None, "event_label": 100, "owner": 100}
# Input key -> (Photo field, longest value).
PHOTO_TEXT_FIELDS: dict[str, tuple[str, int | None]] = {
    "title": ("title", 300), "text": ("text", None), "license": ("licence", 100), "secret": ("secret", 100),
}
ID_MAX = 100
URL_MAX = 500
DATETAKEN = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})?")
EXIF_DATETIME = "%Y:%m:%d %H:%M:%S"


class AlbumImportError(ValueError):
    """The input cannot be imported; `errors` lists every problem found (nothing was written)."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


@dataclass
class PhotoSpec:
    where: str  # names the album, the photo and its entry, for messages
    external_id: str
    path: Path
    name: str  # the file name recorded on the Image (original_name)
    datetaken: datetime | None = None
    fields: dict[str, Any] = field(default_factory=dict)  # Photo fields other than datetaken


@dataclass
class AlbumSpec:
    where: str
    external_id: str
    fields: dict[str, Any] = field(default_factory=dict)  # only the Album fields the input gives
    photos: list[PhotoSpec] = field(default_factory=list)


@dataclass
class AlbumImportReport:
    albums_created: int = 0
    albums_updated: int = 0
    photos_added: int = 0
    photos_kept: int = 0
    images_stored: int = 0  # new Image rows (the others were already known by content)

    def __str__(self) -> str:
        return (
            f"albums: {self.albums_created} created, {self.albums_updated} updated; "
            f"photos: {self.photos_added} added, {self.photos_kept} kept; "
            f"images: {self.images_stored} stored"
        )


# ---------------------------------------------------------------------------------------------------------------
# Field parsing: each function returns the clean value, or appends a message to `errors` and returns None.


def _identifier(value: Any, what: str, where: str, errors: list[str]) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        errors.append(f"{where}: the {what} id is missing or empty")
        return None
    if value != value.strip() or len(value) > ID_MAX:
        errors.append(f"{where}: the {what} id '{value}' must have no surrounding spaces and at most {ID_MAX} "
                      "characters")
        return None
    return value


def _text(value: Any, key: str, limit: int | None, where: str, errors: list[str]) -> str | None:
    if value is None:
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        errors.append(f"{where}: '{key}' must be a string")
        return None
    if limit is not None and len(value) > limit:
        errors.append(f"{where}: '{key}' is longer than {limit} characters")
        return None
    return value


def parse_datetaken(value: str) -> datetime:
    """'YYYY-MM-DD HH:MM:SS' (or ISO 8601 with 'T', fractions, 'Z' or an offset) -> aware UTC datetime.

    A value without an offset is UTC. Raises ValueError when the text is not such a date and time."""
    refusal = f"'{value}' is not a date and time like 2004-11-27 10:40:46"
    if not isinstance(value, str) or not DATETAKEN.fullmatch(value.strip()):
        raise ValueError(refusal)
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError as exc:  # the right shape but no such moment (2004-11-31, 25:00:00)
        raise ValueError(f"{refusal} ({exc})") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _datetaken(value: Any, where: str, errors: list[str]) -> datetime | None:
    try:
        return parse_datetaken(value)
    except ValueError as exc:
        errors.append(f"{where}: bad datetaken: {exc}")
        return None


def _tags(value: Any, where: str, errors: list[str]) -> list[str] | None:
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list) and all(isinstance(tag, str) for tag in value):
        spaced = [tag for tag in value if not tag.strip() or tag.split() != [tag]]
        if spaced:
            errors.append(f"{where}: tag '{spaced[0]}' is empty or contains spaces (tags are single words)")
            return None
        return list(value)
    errors.append(f"{where}: 'tags' must be a list of strings or a space-separated string")
    return None


def _coordinate(value: Any, key: str, limit: float, where: str, errors: list[str]) -> float | None:
    if value is None or value == "":
        return None
    try:
        if isinstance(value, bool):
            raise ValueError
        number = float(value)
    except (TypeError, ValueError):
        errors.append(f"{where}: {key} '{value}' is not a number")
        return None
    if not math.isfinite(number) or not -limit <= number <= limit:
        errors.append(f"{where}: {key} {value} is out of range (-{limit:g} to {limit:g})")
        return None
    return number


def _url(value: Any, where: str, errors: list[str]) -> str | None:
    url = _text(value, "url", URL_MAX, where, errors)
    if url:
        try:
            URLValidator(schemes=["http", "https"])(url)
        except ValidationError:
            errors.append(f"{where}: url '{url}' is not an http(s) URL")
            return None
    return url


def _flickr(value: Any, where: str, errors: list[str]) -> dict[str, str] | None:
    if not isinstance(value, dict):
        errors.append(f"{where}: 'flickr' must be an object")
        return None
    unknown = sorted(set(value) - FLICKR_KEYS)
    if unknown:
        errors.append(f"{where}: unknown flickr field(s) {', '.join(unknown)} "
                      f"(known: {', '.join(sorted(FLICKR_KEYS))})")
        return None
    clean = {key: _text(item, f"flickr.{key}", 100, where, errors) for key, item in value.items()}
    return None if None in clean.values() else clean  # type: ignore[return-value]


def _unknown_keys(record: dict, allowed: set[str], where: str, errors: list[str]) -> bool:
    unknown = sorted(set(record) - allowed)
    if unknown:
        errors.append(f"{where}: unknown field(s) {', '.join(unknown)} (known: {', '.join(sorted(allowed))})")
    return bool(unknown)


def parse_photo_fields(record: dict, where: str, errors: list[str]) -> tuple[dict[str, Any], datetime | None]:
    """The Photo fields of one photo record (its `file` and `id` aside), and its datetaken if given."""
    fields: dict[str, Any] = {}
    for key, (name, limit) in PHOTO_TEXT_FIELDS.items():
        fields[name] = _text(record.get(key), key, limit, where, errors)
    fields["tags"] = _tags(record.get("tags"), where, errors)
    fields["latitude"] = _coordinate(record.get("latitude"), "latitude", 90, where, errors)
    fields["longitude"] = _coordinate(record.get("longitude"), "longitude", 180, where, errors)
    fields["url"] = _url(record.get("url"), where, errors)
    given = record.get("datetaken")
    datetaken = None if given in (None, "") else _datetaken(given, where, errors)
    return fields, datetaken


def parse_album_fields(record: dict, where: str, errors: list[str]) -> dict[str, Any]:
    """The Album fields a record gives (absent keys are left out, so re-imports keep what is stored)."""
    fields: dict[str, Any] = {}
    for key, limit in ALBUM_TEXT_FIELDS.items():
        if key in record:
            fields[key] = _text(record[key], key, limit, where, errors)
    if "flickr" in record:
        fields["flickr"] = _flickr(record["flickr"], where, errors)
    return fields


# ---------------------------------------------------------------------------------------------------------------
# Reading the two layouts.


def _decode_json(path: Path, where: str, errors: list[str]) -> Any:
    try:
        data = path.read_bytes()
    except OSError as exc:
        errors.append(f"{where}: cannot be read ({exc.strerror or exc})")
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        errors.append(f"{where} line {line}: not UTF-8 text (byte {exc.start})")
        return None
    try:
        return parse_json(text, limits(max_bytes=settings.IMPORT_MAX_TOTAL_BYTES))
    except JsonInputError as exc:
        if exc.line is not None:
            errors.append(f"{where} line {exc.line} column {exc.column}: not valid JSON ({exc.syntax})")
        else:
            errors.append(f"{where}: {exc}")
        return None


def _hidden(name: str) -> bool:
    return name.startswith(".") or name == "__MACOSX"


def _leaves(path: Path, folder: Path) -> bool:
    """Whether `path` (followed through `..` and symbolic links) lies outside `folder`."""
    return not path.resolve().is_relative_to(folder.resolve())


def _folder_album(folder: Path, errors: list[str]) -> AlbumSpec | None:
    where = f"album '{folder.name}' (folder {folder.name}/)"
    album_id = _identifier(folder.name, "album", where, errors)
    if album_id is None:
        return None
    meta: dict = {}
    meta_where = f"{folder.name}/{ALBUM_JSON}"
    if (folder / ALBUM_JSON).is_file():
        meta = _decode_json(folder / ALBUM_JSON, meta_where, errors)
        if meta is None:
            return None
        if not isinstance(meta, dict):
            errors.append(f"{meta_where}: must be a JSON object")
            return None
        _unknown_keys(meta, FOLDER_ALBUM_KEYS, meta_where, errors)
    album = AlbumSpec(where, album_id, parse_album_fields(meta, meta_where, errors))
    photo_meta = meta.get("photos", {})
    if not isinstance(photo_meta, dict):
        errors.append(f"{meta_where}: 'photos' must be an object keyed by file name")
        photo_meta = {}
    files = sorted(p for p in folder.iterdir() if not _hidden(p.name) and p.name not in IGNORED_FILES)
    for sub in (p for p in files if p.is_dir()):
        errors.append(f"{where}: sub-folder '{sub.name}' is not allowed (an album's photos are the files "
                      "directly in its folder)")
    names = {p.name for p in files}
    for name in sorted(set(photo_meta) - names):
        errors.append(f"{meta_where}: photos['{name}'] names a file that is not in the folder")
    for path in files:
        if unstorable(path.name):
            errors.append(f"{where}: the file name {path.name!r} holds {unstorable(path.name)}")
        elif _leaves(path, folder):
            errors.append(f"{where}: file '{path.name}' leaves the album folder")
    files = [p for p in files if not unstorable(p.name) and not _leaves(p, folder)]
    for path in (p for p in files if p.is_file()):
        record = photo_meta.get(path.name, {})
        entry_where = f"{where}, photo file '{path.name}'"
        if not isinstance(record, dict):
            errors.append(f"{meta_where}: photos['{path.name}'] must be an object")
            continue
        if _unknown_keys(record, FOLDER_PHOTO_KEYS, f"{meta_where} photos['{path.name}']", errors):
            continue
        photo_id = _identifier(record.get("id", path.stem), "photo", entry_where, errors)
        fields, datetaken = parse_photo_fields(record, f"{entry_where} ({meta_where})", errors)
        if photo_id is not None:
            album.photos.append(PhotoSpec(f"{where}, photo '{photo_id}' (file {path.name})", photo_id, path,
                                          f"{folder.name}/{path.name}", datetaken, fields))
    return album


def read_album_folder(path: Path, errors: list[str]) -> list[AlbumSpec]:
    """Each non-hidden sub-folder of `path` is one album (id = folder name); its files are the photos."""
    folders = sorted(p for p in path.iterdir() if p.is_dir() and not _hidden(p.name))
    if not folders:
        errors.append(f"{path}: no album sub-folders (each sub-folder of the folder is one album)")
    albums = [_folder_album(folder, errors) for folder in folders]
    return [album for album in albums if album is not None]


def _manifest_photo(record: Any, base: Path, album_where: str, index: int, errors: list[str]) -> PhotoSpec | None:
    where = f"{album_where} photos[{index}]"
    if not isinstance(record, dict):
        errors.append(f"{where}: must be an object")
        return None
    photo_id = _identifier(record.get("id"), "photo", where, errors)
    if photo_id is not None:
        where = f"{where} (photo '{photo_id}')"
    if _unknown_keys(record, PHOTO_KEYS, where, errors):
        return None
    file = record.get("file")
    if not isinstance(file, str) or not file.strip():
        errors.append(f"{where}: 'file' (the image path, relative to the manifest's folder) is missing")
        return None
    if Path(file).is_absolute():
        errors.append(f"{where}: file '{file}' must be relative to the manifest's folder")
        return None
    if _leaves(base / file, base):
        errors.append(f"{where}: file '{file}' leaves the album folder (the manifest's folder)")
        return None
    fields, datetaken = parse_photo_fields(record, where, errors)
    if photo_id is None:
        return None
    return PhotoSpec(f"{where}, file {file}", photo_id, base / file, file, datetaken, fields)


def _manifest_album(record: Any, base: Path, index: int, source: str, errors: list[str]) -> AlbumSpec | None:
    where = f"{source} albums[{index}]"
    if not isinstance(record, dict):
        errors.append(f"{where}: must be an object")
        return None
    album_id = _identifier(record.get("id"), "album", where, errors)
    if album_id is not None:
        where = f"{where} (album '{album_id}')"
    _unknown_keys(record, ALBUM_KEYS, where, errors)
    fields = parse_album_fields(record, where, errors)
    photos = record.get("photos")
    if not isinstance(photos, list):
        errors.append(f"{where}: 'photos' must be a list" if photos is not None else f"{where}: has no photos")
        photos = []
    specs = [_manifest_photo(photo, base, where, i, errors) for i, photo in enumerate(photos)]
    if album_id is None:
        return None
    return AlbumSpec(where, album_id, fields, [spec for spec in specs if spec is not None])


def read_manifest(path: Path, errors: list[str]) -> list[AlbumSpec]:
    """A JSON manifest: {"albums": [{"id", ..., "photos": [{"file", "id", ...}]}]}; files relative to it."""
    document = _decode_json(path, path.name, errors)
    if document is None:
        return []
    if not isinstance(document, dict) or not isinstance(document.get("albums"), list):
        errors.append(f"{path.name}: expected a JSON object with an 'albums' list")
        return []
    _unknown_keys(document, {"albums"}, path.name, errors)
    albums = [_manifest_album(r, path.parent, i, path.name, errors) for i, r in enumerate(document["albums"])]
    return [album for album in albums if album is not None]


# ---------------------------------------------------------------------------------------------------------------
# Checking the albums and their image files.


def exif_datetaken(data: bytes) -> datetime | None:
    """EXIF DateTimeOriginal (with OffsetTimeOriginal when present; UTC otherwise), or None."""
    try:
        with PILImage.open(BytesIO(data)) as image:
            exif = image.getexif().get_ifd(ExifTags.IFD.Exif)
    except Exception:  # unreadable EXIF only means "no EXIF date"
        return None
    original = exif.get(ExifTags.Base.DateTimeOriginal)
    if not isinstance(original, str):
        return None
    try:
        moment = datetime.strptime(original.strip("\x00 "), EXIF_DATETIME)
    except ValueError:
        return None
    offset = exif.get(ExifTags.Base.OffsetTimeOriginal)
    if isinstance(offset, str) and re.fullmatch(r"[+-]\d{2}:\d{2}", offset.strip("\x00 ")):
        return datetime.fromisoformat(moment.isoformat() + offset.strip("\x00 ")).astimezone(UTC)
    return moment.replace(tzinfo=UTC)


def file_datetaken(path: Path) -> datetime:
    """The file's modification time, in UTC, to the second."""
    return datetime.fromtimestamp(path.stat().st_mtime, UTC).replace(microsecond=0)


def _check_photo_file(photo: PhotoSpec, errors: list[str]) -> None:
    """The file exists and is an acceptable image; fills in datetaken (EXIF, else the file's time)."""
    if not photo.path.is_file():
        errors.append(f"{photo.where}: the file does not exist")
        return
    size = photo.path.stat().st_size
    if size > settings.IMAGE_MAX_BYTES:
        errors.append(f"{photo.where}: the file is {size} bytes, over the limit of {settings.IMAGE_MAX_BYTES}")
        return
    try:
        data = photo.path.read_bytes()
        inspect_image(data)
    except OSError as exc:
        errors.append(f"{photo.where}: the file cannot be read ({exc.strerror or exc})")
        return
    except ImageRejected as exc:
        errors.append(f"{photo.where}: not an acceptable image: {exc}")
        return
    if photo.datetaken is None:
        photo.datetaken = exif_datetaken(data) or file_datetaken(photo.path)


def _check_album(album: AlbumSpec, errors: list[str]) -> None:
    if not album.photos:
        errors.append(f"{album.where}: the album has no photos")
    seen: dict[str, PhotoSpec] = {}
    for photo in album.photos:
        if photo.external_id in seen:
            errors.append(f"{photo.where}: duplicate photo id '{photo.external_id}' in album "
                          f"'{album.external_id}' (also {seen[photo.external_id].where})")
        seen.setdefault(photo.external_id, photo)
        _check_photo_file(photo, errors)


def check_albums(path: Path | str) -> list[AlbumSpec]:
    """Read and check everything (fields, files, image bytes) without writing; raise AlbumImportError."""
    path = Path(path)
    errors: list[str] = []
    if path.is_dir():
        albums = read_album_folder(path, errors)
    elif path.is_file():
        albums = read_manifest(path, errors)
    else:
        raise AlbumImportError([f"{path} does not exist"])
    seen: dict[str, AlbumSpec] = {}
    for album in albums:
        if album.external_id in seen:
            errors.append(f"{album.where}: duplicate album id (also {seen[album.external_id].where})")
        seen.setdefault(album.external_id, album)
        _check_album(album, errors)
    if errors:
        raise AlbumImportError(errors)
    return albums


# ---------------------------------------------------------------------------------------------------------------
# Writing.


def _save_album(spec: AlbumSpec, report: AlbumImportReport) -> Album:
    album = Album.objects.filter(external_id=spec.external_id).first()
    if album is None:
        report.albums_created += 1
        return Album.objects.create(external_id=spec.external_id, **spec.fields)
    for name, value in spec.fields.items():
        setattr(album, name, value)
    album.save()
    report.albums_updated += 1
    return album


def _taken(photo: PhotoSpec) -> datetime:
    """The photo's datetaken, which checking the photo fills in; writing an unchecked photo is a programming error."""
    if photo.datetaken is None:
        raise ValueError(f"{photo.where}: no datetaken (the photo was not checked before writing)")
    return photo.datetaken


def _add_photo(album: Album, spec: PhotoSpec, report: AlbumImportReport, stored: list[str]) -> None:
    image, created = import_image_bytes(spec.name, spec.path.read_bytes())
    if created:
        stored.append(image.original.name)
        report.images_stored += 1
    Photo.objects.create(album=album, image=image, external_id=spec.external_id, datetaken=_taken(spec),
                         **spec.fields)
    report.photos_added += 1


def _write_album(spec: AlbumSpec, report: AlbumImportReport, stored: list[str]) -> None:
    album = _save_album(spec, report)
    known = set(album.photos.values_list("external_id", flat=True))
    new = sorted((p for p in spec.photos if p.external_id not in known), key=lambda p: (_taken(p), p.external_id))
    report.photos_kept += len(spec.photos) - len(new)
    for photo in new:
        _add_photo(album, photo, report, stored)


def write_albums(albums: list[AlbumSpec]) -> AlbumImportReport:
    """Write checked albums in one transaction; on any failure nothing stays (rows nor stored files)."""
    report = AlbumImportReport()
    stored: list[str] = []
    try:
        with transaction.atomic():
            for album in albums:
                _write_album(album, report, stored)
    except BaseException as exc:
        for name in stored:  # the rows are rolled back; the files stored for them must go too
            default_storage.delete(name)
        if isinstance(exc, ImageRejected | OSError):
            raise AlbumImportError([f"nothing was imported: a file changed during the import ({exc})"]) from exc
        raise
    return report


def import_albums(path: Path | str) -> AlbumImportReport:
    """Import a folder of album folders or a JSON manifest; all or nothing (raises AlbumImportError)."""
    return write_albums(check_albums(path))


__all__ = [
    "AlbumImportError", "AlbumImportReport", "AlbumSpec", "PhotoSpec", "check_albums", "exif_datetaken",
    "file_datetaken", "import_albums", "parse_datetaken", "read_album_folder", "read_manifest", "write_albums",
]
