"""The client address the login throttle counts by: the same one the arrival limit uses."""
from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str | None:
    """`REMOTE_ADDR`, or behind a reverse proxy the header named by `RATELIMIT_IP_META_KEY` (its first address)."""
    raw = request.META.get(settings.RATELIMIT_IP_META_KEY or "REMOTE_ADDR", "")
    return raw.split(",")[0].strip() or None
