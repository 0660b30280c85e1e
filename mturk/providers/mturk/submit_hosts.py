"""Where the worker's browser may hand a finished MTurk assignment off to (`turkSubmitTo`).

MTurk appends `turkSubmitTo` to our task URL, but anyone can put anything in a URL: a forged value
would make our page post the worker's answer (and completion code) to a third party. Only the
origins in settings.MTURK_SUBMIT_HOSTS are accepted, compared exactly (scheme, host and port) after
stripping one trailing slash; the hand-off URL is rebuilt from the normalised origin, never copied
from the request."""
from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from django.conf import settings

SUBMIT_PATH = "/mturk/externalSubmit"
_SAFE = re.compile(r"[A-Za-z0-9:/.\-\[\]]+")  # an origin needs nothing else (no '@', '%', '\', spaces)


def normalise_origin(value: str) -> str | None:
    """`scheme://host[:port]` in lower case, or None if `value` is anything but a bare http(s) origin
    (with at most one trailing slash): no user info, path, query or fragment."""
    if not value or not _SAFE.fullmatch(value):
        return None
    if value.endswith("/"):
        value = value[:-1]
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 -- raises ValueError on a malformed port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    if parts.username is not None or parts.password is not None or parts.path or parts.query or parts.fragment:
        return None
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


def allowed_origins(hosts: Iterable[str] | None = None) -> set[str]:
    """The allow-list (default settings.MTURK_SUBMIT_HOSTS), normalised; entries that are not bare
    origins are ignored."""
    entries = settings.MTURK_SUBMIT_HOSTS if hosts is None else hosts
    return {origin for origin in (normalise_origin(entry.strip()) for entry in entries) if origin is not None}


def handoff_url(turk_submit_to: str, hosts: Iterable[str] | None = None) -> str | None:
    """`<origin>/mturk/externalSubmit` for an allow-listed `turkSubmitTo`, else None."""
    origin = normalise_origin(turk_submit_to)
    if origin is None:
        return None
    if origin not in allowed_origins(hosts):
        return None
    return origin + SUBMIT_PATH
