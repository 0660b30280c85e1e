"""The VIST records (all strings but the order fields), keys in the released files' (sorted) order."""
from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import datetime
from typing import Any

from django.conf import settings

SPLITS = ("train", "val", "test")


def split_of(album_external_id: str, seed: str) -> str:
    """80/10/10 by a hash of the album id: deterministic for a seed, and stable as albums are added."""
    digest = hashlib.sha256(f"{seed}\x00{album_external_id}".encode()).digest()
    bucket = int.from_bytes(digest[:8], "big") % 100
    return "train" if bucket < 80 else "val" if bucket < 90 else "test"


class WorkerIds:
    """De-identified worker ids: a keyed hash of the marketplace id, 15 upper-case letters and digits,
    the same in every export of this installation and never the marketplace's own id."""

    def __init__(self, workers: dict[int, tuple[str, str]]) -> None:
        self._workers = workers
        self._cache: dict[int | None, str] = {None: ""}
        self._key = hashlib.sha256(("vist-worker-id:" + settings.SECRET_KEY).encode()).digest()

    def __call__(self, worker_id: int | None) -> str:
        cached = self._cache.get(worker_id)
        if cached is None:
            provider, external = self._workers[worker_id]  # type: ignore[index]
            mac = hmac.new(self._key, f"{provider}:{external}".encode(), hashlib.sha256).digest()
            cached = self._cache[worker_id] = base64.b32encode(mac).decode()[:15]
        return cached


def _coordinate(value: float | None) -> str:
    return "0" if value is None else repr(value)


def image_record(album_id: str, photo: tuple) -> dict[str, Any]:
    (external_id, datetaken, title, text, tags, licence, latitude, longitude, secret, url) = photo
    return {
        "album_id": album_id,
        "datetaken": datetaken.isoformat(" ", "seconds")[:19],  # YYYY-MM-DD HH:MM:SS (isoformat: 5x strftime's speed)
        "id": external_id,
        "latitude": _coordinate(latitude),
        "license": licence,
        "longitude": _coordinate(longitude),
        "media": "photo",
        "secret": secret,
        "tags": " ".join(tags) if isinstance(tags, list) else str(tags or ""),
        "text": text,
        "title": title,
        "url_o": url,
    }


def _epoch(value: Any) -> str:
    if isinstance(value, datetime):
        return str(int(value.timestamp()))
    return "" if value is None else str(value)


def album_record(album: tuple, photo_count: int, first_photo: str) -> dict[str, Any]:
    (_, external_id, title, description, event_label, owner, flickr) = album
    flickr = flickr or {}
    return {
        "date_create": _epoch(flickr.get("date_create")),
        "date_update": _epoch(flickr.get("date_update")),
        "description": description,
        "farm": str(flickr.get("farm", "")),
        "id": external_id,
        "owner": owner,
        "photos": str(flickr.get("photos") or photo_count),  # an imported album's own count (VIST's)
        "primary": str(flickr.get("primary") or first_photo),
        "secret": str(flickr.get("secret", "")),
        "server": str(flickr.get("server", "")),
        "title": title,
        "vist_label": event_label,
    }
