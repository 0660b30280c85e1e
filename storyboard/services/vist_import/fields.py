"""VIST import: one record's checks. Each function returns the clean record, or adds its problems (naming the file
and the record's JSON path) and returns None."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...models import Setting
from ..albums.fields import coordinate, identifier, parse_datetaken
from .records import Problems

ALBUM_FLICKR = ("primary", "date_create", "date_update", "farm", "server", "secret", "photos")
ALBUM_TEXT = {"title": ("title", 300), "description": ("description", None), "owner": ("owner", 100),
              "vist_label": ("event_label", 100)}
IMAGE_TEXT = {"title": ("title", 300), "text": ("text", None), "license": ("licence", 100), "secret": ("secret", 100)}
URL_MAX = 500
TEXT_MAX = 5000
ORDER_MAX = 100
SETTINGS = {s.value for s in Setting}


@dataclass(frozen=True, slots=True)
class Line:
    """One annotation, checked: `story` and `storylet` are "" for DII, `storylet` and `setting` for DIS."""

    album: str
    photo: str
    order: int
    text: str
    original: str
    worker: str
    story: str = ""
    storylet: str = ""
    setting: str = ""


def _string(record: dict, key: str, limit: int | None, where: str, problems: Problems,
            required: bool = False) -> str | None:
    value = record.get(key)
    if value is None and not required:
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        problems.add(f"{where}: '{key}' must be a string" + (" (it is missing)" if value is None else ""))
        return None
    if limit is not None and len(value) > limit:
        problems.add(f"{where}: '{key}' is longer than {limit} characters")
        return None
    return value


def _id(record: dict, key: str, where: str, problems: Problems, digits: bool = False) -> str | None:
    errors: list[str] = []
    value = identifier(record.get(key), key, where, errors)
    if value is not None and digits and not value.isdigit():
        errors.append(f"{where}: {key} '{value}' must be a whole number")
        value = None
    for error in errors:
        problems.add(error)
    return value


def _coordinate(value: Any, key: str, limit: float, where: str, problems: Problems) -> float | None | bool:
    """The number; None when unknown ("0", "", absent: VIST writes "0"); False after a problem."""
    if value in ("0", 0):
        return None
    errors: list[str] = []
    number = coordinate(value, key, limit, where, errors)
    for error in errors:
        problems.add(error)
    return False if errors else number


def album_fields(record: Any, where: str, problems: Problems) -> tuple[str, dict[str, Any]] | None:
    if not isinstance(record, dict):
        problems.add(f"{where}: an album must be an object")
        return None
    before = problems.count
    album_id = _id(record, "id", where, problems)
    fields: dict[str, Any] = {}
    for key, (name, limit) in ALBUM_TEXT.items():
        fields[name] = _string(record, key, limit, where, problems)
    flickr = {key: _string(record, key, 100, where, problems) for key in ALBUM_FLICKR if key in record}
    fields["flickr"] = flickr
    if album_id is None or problems.count > before:
        return None
    return album_id, fields


def image_fields(record: Any, where: str, problems: Problems) -> tuple[str, str, datetime, dict[str, Any]] | None:
    """(photo id, album id, datetaken, the other Photo fields)."""
    if not isinstance(record, dict):
        problems.add(f"{where}: an image must be an object")
        return None
    before = problems.count
    photo_id = _id(record, "id", where, problems)
    album_id = _id(record, "album_id", where, problems)
    fields: dict[str, Any] = {}
    for key, (name, limit) in IMAGE_TEXT.items():
        fields[name] = _string(record, key, limit, where, problems)
    tags = _string(record, "tags", None, where, problems)
    fields["tags"] = (tags or "").split()
    fields["latitude"] = _coordinate(record.get("latitude"), "latitude", 90, where, problems)
    fields["longitude"] = _coordinate(record.get("longitude"), "longitude", 180, where, problems)
    url = record.get("url_o") or record.get("url_m") or ""
    if not isinstance(url, str) or len(url) > URL_MAX or (url and not url.startswith(("http://", "https://"))):
        problems.add(f"{where}: url_o / url_m must be an http(s) address of at most {URL_MAX} characters")
    fields["url"] = url
    taken = record.get("datetaken")
    try:
        datetaken = parse_datetaken(taken) if isinstance(taken, str) else None
    except ValueError as exc:
        problems.add(f"{where}: bad datetaken: {exc}")
        datetaken = None
    if datetaken is None and not isinstance(taken, str):
        problems.add(f"{where}: datetaken must be a string like 2004-11-27 10:40:46")
    if photo_id is None or album_id is None or datetaken is None or problems.count > before:
        return None
    return photo_id, album_id, datetaken, fields


def annotation_line(item: Any, tier: str, where: str, problems: Problems) -> Line | None:
    """One annotation (a list of one object) of a SIS, DII or DIS file, checked."""
    if not isinstance(item, list) or len(item) != 1 or not isinstance(item[0], dict):
        problems.add(f"{where}: an annotation must be a list of one object")
        return None
    record, where = item[0], f"{where}[0]"
    before = problems.count
    expected = {"sis": "story-in-sequence", "dii": "descriptions-in-isolation", "dis": "descriptions-in-sequence"}
    if "tier" in record and record["tier"] != expected[tier]:
        problems.add(f"{where}: tier {record['tier']!r} in a {expected[tier]} file")
    album = _id(record, "album_id", where, problems)
    photo = _id(record, "photo_flickr_id", where, problems)
    order_key = "worker_arranged_photo_order" if tier == "sis" else "photo_order_in_story"
    order = record.get(order_key)
    if isinstance(order, str) and order.isdigit():
        order = int(order)
    if not isinstance(order, int) or isinstance(order, bool) or not 0 <= order < ORDER_MAX:
        problems.add(f"{where}: {order_key} must be a whole number from 0 to {ORDER_MAX - 1}, got {order!r}")
    text = _string(record, "text", TEXT_MAX, where, problems, required=True)
    original = _string(record, "original_text", TEXT_MAX, where, problems, required=True)
    worker = _string(record, "worker_id", 100, where, problems)
    story = storylet = ""
    setting: Any = ""
    if tier in ("sis", "dis"):
        story = _id(record, "story_id", where, problems, digits=True) or ""
    if tier == "sis":
        storylet = _id(record, "storylet_id", where, problems, digits=True) or ""
        setting = record.get("setting")
        if setting not in SETTINGS:
            problems.add(f"{where}: setting must be one of {', '.join(sorted(SETTINGS))}, got {setting!r}")
    if problems.count > before or album is None or photo is None:
        return None
    return Line(album, photo, order if isinstance(order, int) else 0, text or "", original or "", worker or "", story,
                storylet, str(setting or ""))
