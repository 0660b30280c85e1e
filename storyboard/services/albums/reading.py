"""Album import, first pass: the two layouts (a folder of album folders, a JSON manifest) read, every album, photo
and image file checked (check_albums)."""
from __future__ import annotations

import re
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path
from typing import Any

from django.conf import settings
from PIL import ExifTags
from PIL import Image as PILImage

from annotation.services.image_files import ImageRejected, inspect_image
from common.json_input import JsonInputError, limits, parse_json
from common.safe_archives import ReadRefused, open_file, read_capped
from common.text_input import damaged, unstorable

from .fields import (
    ALBUM_JSON,
    ALBUM_KEYS,
    EXIF_DATETIME,
    FOLDER_ALBUM_KEYS,
    FOLDER_PHOTO_KEYS,
    IGNORED_FILES,
    PHOTO_KEYS,
    AlbumImportError,
    AlbumSpec,
    PhotoSpec,
    identifier,
    parse_album_fields,
    parse_photo_fields,
    unknown_keys,
)

# ---------------------------------------------------------------------------------------------------------------
# Reading the two layouts.


def _decode_json(path: Path, where: str, errors: list[str]) -> Any:
    try:
        with open_file(path, where, settings.IMPORT_MAX_DOCUMENT_BYTES) as stream:
            data = read_capped(stream, where, settings.IMPORT_MAX_DOCUMENT_BYTES)
    except ReadRefused as exc:
        errors.append(str(exc))
        return None
    except OSError as exc:
        errors.append(f"{where}: cannot be read ({exc.strerror or exc})")
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        errors.append(f"{where}: {damaged(exc.start, line)}")
        return None
    try:
        return parse_json(text, limits(max_bytes=settings.IMPORT_MAX_DOCUMENT_BYTES))
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
    album_id = identifier(folder.name, "album", where, errors)
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
        unknown_keys(meta, FOLDER_ALBUM_KEYS, meta_where, errors)
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
        if unknown_keys(record, FOLDER_PHOTO_KEYS, f"{meta_where} photos['{path.name}']", errors):
            continue
        photo_id = identifier(record.get("id", path.stem), "photo", entry_where, errors)
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
    photo_id = identifier(record.get("id"), "photo", where, errors)
    if photo_id is not None:
        where = f"{where} (photo '{photo_id}')"
    if unknown_keys(record, PHOTO_KEYS, where, errors):
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
    album_id = identifier(record.get("id"), "album", where, errors)
    if album_id is not None:
        where = f"{where} (album '{album_id}')"
    unknown_keys(record, ALBUM_KEYS, where, errors)
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
    unknown_keys(document, {"albums"}, path.name, errors)
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
        with open_file(photo.path, photo.where, settings.IMAGE_MAX_BYTES) as stream:
            data = read_capped(stream, photo.where, settings.IMAGE_MAX_BYTES)
        inspect_image(data)
    except ReadRefused as exc:
        errors.append(str(exc))
        return
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
