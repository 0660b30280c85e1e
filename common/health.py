"""Health endpoints for load balancers, answered before any other middleware (no host check, no HTTPS redirect,
no session, no authentication, no rate limit):

- `/healthz`: the process answers (liveness). No database query: a database outage must not make a load
  balancer take every web process out of service or restart them.
- `/readyz`: the process can reach its database (`SELECT 1`): 200 "ok", else 503 "database unavailable".

`/metrics` (Prometheus, with its token: common.observability.metrics_view) is answered here too, so a scraper may
name the instance by address over plain HTTP."""
from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse

from common.observability.metrics_view import PATH as METRICS_PATH
from common.observability.metrics_view import metrics_answer

logger = logging.getLogger(__name__)

LIVENESS_PATH = "/healthz"
READINESS_PATH = "/readyz"


def _plain(text: str, status: int = 200) -> HttpResponse:
    response = HttpResponse(text, content_type="text/plain; charset=utf-8", status=status)
    response["Cache-Control"] = "no-store"
    return response


def database_ready() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        logger.warning("readiness check: the database is not answering: %s", exc)
        connection.close()  # the next check connects afresh
        return False
    return True


class HealthCheckMiddleware:
    """First in MIDDLEWARE: GET and HEAD of /healthz and /readyz are answered here; everything else passes on."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path_info.rstrip("/")
        if path == METRICS_PATH and request.method in ("GET", "HEAD"):
            status, body, content_type = metrics_answer(request.headers.get("Authorization"), with_queues=True)
            response = HttpResponse(body, content_type=content_type, status=status)
            response["Cache-Control"] = "no-store"
            return response
        if path == LIVENESS_PATH or path == READINESS_PATH:
            if request.method not in ("GET", "HEAD"):
                response = _plain("method not allowed", status=405)
                response["Allow"] = "GET, HEAD"
                return response
            if path == LIVENESS_PATH:
                return _plain("ok")
            if database_ready():
                return _plain("ok")
            response = _plain("database unavailable", status=503)
            response._has_been_logged = True  # type: ignore[attr-defined]  # logged once above, not as a server error
            return response
        return self.get_response(request)
