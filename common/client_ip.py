"""The one client address both limits count by: the login throttle and the arrival limit."""
from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str | None:
    """`REMOTE_ADDR`, or behind a reverse proxy the header named by `RATELIMIT_IP_META_KEY`. In a list such as
    `X-Forwarded-For: <claimed>, <seen by our proxy>` the last address counts: the client writes the others."""
    raw = request.META.get(settings.RATELIMIT_IP_META_KEY or "REMOTE_ADDR", "")
    return raw.split(",")[-1].strip() or None
