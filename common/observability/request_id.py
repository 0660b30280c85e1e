"""The request id: taken from the X-Request-ID header (a proxy's or a load balancer's) when it is a plausible id,
else made here; answered in the response's X-Request-ID, put on every log line written while the request runs,
and carried into the Celery jobs it queues (celery_signals)."""
from __future__ import annotations

import contextvars
import logging
import re
import uuid

HEADER = "X-Request-ID"
META_KEY = "HTTP_X_REQUEST_ID"
# What a client may hand us: short, printable, no spaces or quotes (it is echoed and logged).
_ACCEPTED = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")

current_request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="")


def new_request_id() -> str:
    return uuid.uuid4().hex


def request_id_from_header(value: str | None) -> str:
    """The client's id if it is acceptable, else a new one."""
    if value and _ACCEPTED.fullmatch(value):
        return value
    return new_request_id()


class RequestIdFilter(logging.Filter):
    """Puts `request_id` on every record (empty outside a request or a job that has one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", ""):
            record.request_id = current_request_id.get()
        return True
