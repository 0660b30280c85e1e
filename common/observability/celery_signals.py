"""Celery's side: the request id rides in a message header from the request that queues a job to the job's log
lines; each job's run time goes to the job-duration histogram; workers log as the web does (LOGGING); the
multiprocess metric files are cleared at a worker's start and a finished pool process's are marked dead; the
health port starts with the worker (WORKER_HEALTH_PORT)."""
from __future__ import annotations

import contextvars
import logging
import os
import sys
import time
from typing import Any

from celery.exceptions import Retry
from celery.signals import (
    before_task_publish,
    setup_logging,
    task_postrun,
    task_prerun,
    worker_init,
    worker_process_shutdown,
    worker_ready,
)

from .metrics import JOB_SECONDS, clear_multiprocess_dir, mark_process_dead
from .request_id import current_request_id

logger = logging.getLogger(__name__)

HEADER = "request_id"

# task id -> (start time, the request id's reset token): a job's prerun and postrun run in the same thread.
_running: dict[str, tuple[float, contextvars.Token[str] | None]] = {}


@before_task_publish.connect
def _carry_request_id(headers: dict[str, Any] | None = None, **kwargs: Any) -> None:
    request_id = current_request_id.get()
    if request_id and headers is not None:
        headers.setdefault(HEADER, request_id)


def request_id_of(task: Any) -> str:
    """The request id a job was queued with: custom headers are attributes of task.request (protocol 2)."""
    value = getattr(task.request, HEADER, None) or (task.request.headers or {}).get(HEADER)
    return value if isinstance(value, str) else ""


def _in_process(task: Any) -> bool:
    """A job run in the process that asked for it (no broker: CELERY_TASK_ALWAYS_EAGER), inside a command or a
    request that reports its outcome itself."""
    return bool(getattr(task.request, "is_eager", False))


@task_prerun.connect
def _job_started(task_id: str = "", task: Any = None, **kwargs: Any) -> None:
    request_id = request_id_of(task) if task is not None else ""
    token = current_request_id.set(request_id) if request_id else None  # in-process jobs keep the request's
    _running[task_id] = (time.perf_counter(), token)
    if task is not None:  # an in-process job's start is a step of its command or request: DEBUG
        logger.log(logging.DEBUG if _in_process(task) else logging.INFO, "job %s started", task.name,
                   extra={"job": task.name, "job_id": task_id})


def _outcome(state: str | None, retval: Any) -> tuple[str, str]:
    """(outcome, reason): a run that raised in-process (no broker) ends without a state while its exception is
    on its way to the caller; a failed or retried run's reason is its exception's message."""
    error: BaseException | None = retval if isinstance(retval, BaseException) else None
    if state is None:
        error = sys.exc_info()[1]
        state = "FAILURE" if error is not None else None
    if isinstance(error, Retry) and error.exc is not None:
        error = error.exc
    outcome = (state or "unknown").lower()
    reason = ""
    if error is not None and outcome in ("failure", "retry"):
        reason = " ".join(str(error).split()) or type(error).__name__
    return outcome, reason


@task_postrun.connect
def _job_finished(task_id: str = "", task: Any = None, state: str | None = None, retval: Any = None,
                  **kwargs: Any) -> None:
    started, token = _running.pop(task_id, (None, None))
    if started is not None and task is not None:
        seconds = time.perf_counter() - started
        outcome, reason = _outcome(state, retval)
        JOB_SECONDS.labels(job=task.name, outcome=outcome).observe(seconds)
        extra = {"job": task.name, "job_id": task_id, "outcome": outcome, "duration_ms": round(seconds * 1000, 1)}
        quiet = _in_process(task) and outcome == "success"  # a step of its command or request, which says so
        level = logging.DEBUG if quiet else logging.INFO
        if reason:
            extra["error"] = reason
            logger.log(level, "job %s finished: %s (%s)", task.name, outcome, reason, extra=extra)
        else:
            logger.log(level, "job %s finished: %s", task.name, outcome, extra=extra)
    if token is not None:
        current_request_id.reset(token)


@setup_logging.connect
def _log_as_the_web_does(**kwargs: Any) -> None:
    """A receiver here stops Celery from installing its own handlers: the worker's lines use LOGGING too."""
    from .logs import apply_logging_settings

    apply_logging_settings()


@worker_init.connect
def _fresh_metric_files(**kwargs: Any) -> None:
    clear_multiprocess_dir()


@worker_process_shutdown.connect
def _pool_process_gone(pid: int | None = None, **kwargs: Any) -> None:
    mark_process_dead(pid or os.getpid())


@worker_ready.connect
def _start_health_port(**kwargs: Any) -> None:
    from django.conf import settings

    from .worker_health import start_health_server

    if settings.WORKER_HEALTH_PORT:
        start_health_server(settings.WORKER_HEALTH_BIND, settings.WORKER_HEALTH_PORT)
