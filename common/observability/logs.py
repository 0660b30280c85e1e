"""Log lines: JSON (python-json-logger, LOG_FORMAT=json), one object per line with time, level, logger, message, the
request id and whatever a call adds with `extra=`, for a log collector; or plain text (LOG_FORMAT=text) for people.
The default (default_log_format): text with DEBUG or when standard error is a terminal, else JSON."""
from __future__ import annotations

import sys
from typing import Any, TextIO

from pythonjsonlogger.json import JsonFormatter as _JsonFormatter

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(_JsonFormatter):
    """Fields: time (ISO 8601, UTC), level, logger, message, request_id, then the record's extras (task_id, …)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("fmt", "%(levelname)s %(name)s %(message)s %(request_id)s")
        kwargs.setdefault("rename_fields", {"levelname": "level", "name": "logger"})
        kwargs.setdefault("timestamp", "time")
        super().__init__(*args, **kwargs)


def default_log_format(debug: bool, stream: TextIO | None = None) -> str:
    """LOG_FORMAT when it is not set: "text" with DEBUG or when `stream` (standard error, where the lines go) is a
    terminal, a person reading; else "json" (a service manager, a container or a pipe collecting the lines)."""
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return "text" if debug or (callable(isatty) and isatty()) else "json"


def logging_config(log_format: str, level: str) -> dict[str, Any]:
    """The LOGGING setting (Django's dictConfig; Celery workers apply the same, see celery_signals)."""
    if log_format not in ("json", "text"):
        raise ValueError(f"LOG_FORMAT={log_format!r} is neither json nor text")
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": "common.observability.request_id.RequestIdFilter"}},
        "formatters": {
            "json": {"()": "common.observability.logs.JsonFormatter"},
            "text": {"format": TEXT_FORMAT},
        },
        "handlers": {
            "console": {"class": "logging.StreamHandler", "filters": ["request_id"], "formatter": log_format},
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {"celery.app.trace": {"level": "WARNING"}},
    }


def apply_logging_settings() -> None:
    """Configure this process's logging from the LOGGING setting (what Django does at start)."""
    import logging.config

    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)
    logging.getLogger(__name__).debug("logging configured (%s)", settings.LOG_FORMAT)
