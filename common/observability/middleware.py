"""Second in MIDDLEWARE (after the health probes, which it neither logs nor counts): gives each request its id
(request_id), answers it in X-Request-ID, counts the request by view and status (metrics) and writes one log line
per request (logger config.requests: method, path, status, view, duration_ms, request_id)."""
from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from .metrics import REQUEST_SECONDS, REQUESTS
from .request_id import HEADER, META_KEY, current_request_id, request_id_from_header

logger = logging.getLogger("config.requests")

UNRESOLVED = "<unresolved>"  # no URL matched (404s, refused hosts): one label, whatever the path


class RequestObservabilityMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = request_id_from_header(request.META.get(META_KEY))
        token = current_request_id.set(request_id)
        started = time.perf_counter()
        try:
            response = self.get_response(request)
            seconds = time.perf_counter() - started
            match = getattr(request, "resolver_match", None)
            view = (match.view_name or match._func_path) if match is not None else UNRESOLVED
            REQUESTS.labels(view=view, method=_method(request.method), status=str(response.status_code)).inc()
            REQUEST_SECONDS.labels(view=view).observe(seconds)
            response[HEADER] = request_id
            logger.info("%s %s %s", request.method, request.path, response.status_code, extra={
                "method": request.method, "path": request.path, "status": response.status_code, "view": view,
                "duration_ms": round(seconds * 1000, 1),
            })
            return response
        finally:
            current_request_id.reset(token)


_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}


def _method(method: str | None) -> str:
    return method if method in _METHODS else "other"  # made-up methods are one label
