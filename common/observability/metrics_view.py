"""GET /metrics: Prometheus's text format, only with `Authorization: Bearer $METRICS_TOKEN`. Without METRICS_TOKEN
the path does not exist (404): metrics are never public by default. Served by the web (with the queue depth) and
by a worker's health port (its own jobs)."""
from __future__ import annotations

import hmac

from django.conf import settings
from prometheus_client import CONTENT_TYPE_LATEST

from .metrics import exposition

PATH = "/metrics"


def metrics_answer(authorization: str | None, *, with_queues: bool) -> tuple[int, bytes, str]:
    """(status, body, content type) for a scrape carrying this Authorization header."""
    token = settings.METRICS_TOKEN
    if not token:
        return 404, b"not found", "text/plain; charset=utf-8"
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
        return 401, b"a bearer token is needed (METRICS_TOKEN)", "text/plain; charset=utf-8"
    return 200, exposition(with_queues=with_queues), CONTENT_TYPE_LATEST
