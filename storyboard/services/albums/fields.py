"""Album import: the input keys, the specs read from album.json files or a manifest, the report, and the field
parsers (each returns the clean value or appends a message to `errors`)."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

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
    image_set: str = ""  # the collection the albums' photos are in

    def __str__(self) -> str:
        return (
            f"albums: {self.albums_created} created, {self.albums_updated} updated; "
            f"photos: {self.photos_added} added, {self.photos_kept} kept; "
            f"images: {self.images_stored} stored"
            + (f"; in the collection '{self.image_set}'" if self.image_set else "")
        )


# ---------------------------------------------------------------------------------------------------------------
# Field parsing: each function returns the clean value, or appends a message to `errors` and returns None.


def identifier(value: Any, what: str, where: str, errors: list[str]) -> str | None:
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


def coordinate(value: Any, key: str, limit: float, where: str, errors: list[str]) -> float | None:
    """A latitude or longitude within +-limit; None when absent or after a problem (added to `errors`)."""
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


def unknown_keys(record: dict, allowed: set[str], where: str, errors: list[str]) -> bool:
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
    fields["latitude"] = coordinate(record.get("latitude"), "latitude", 90, where, errors)
    fields["longitude"] = coordinate(record.get("longitude"), "longitude", 180, where, errors)
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
