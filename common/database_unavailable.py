"""A database that fails or times out during a request answers 503 with Retry-After, not a 500 or a hang."""
from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 10
MESSAGE = "The database is not answering. Nothing was saved by this request; please try again in a moment."
JSON_PATH_PREFIXES = ("/api/", "/task/submit/")


def _close_connections() -> None:
    """Drops every opened connection so that the next request connects afresh (recovery needs no restart)."""
    for connection in connections.all(initialized_only=True):
        try:
            connection.close()
        except Exception:  # a broken connection may fail to close; it is discarded either way
            logger.debug("closing a broken database connection failed", exc_info=True)


class DatabaseUnavailableMiddleware:
    """Turns OperationalError and InterfaceError raised by a view into a 503: JSON {"error": ...} for the API
    and task submissions, an HTML page otherwise."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, (OperationalError, InterfaceError)):
            return None
        logger.error("database unavailable during %s %s: %s", request.method, request.path, exception)
        _close_connections()
        if request.path.startswith(JSON_PATH_PREFIXES):
            response: HttpResponse = JsonResponse({"error": MESSAGE}, status=503)
        else:
            html = render_to_string("database_unavailable.html", {"message": MESSAGE})
            response = HttpResponse(html, status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
