"""The two readings of the queue depth /metrics reports: the broker's queue lengths and the background-job rows
that are still queued (read by the function settings.QUEUED_JOB_ROWS names: the job queue's own count, since this
library knows no app)."""
from __future__ import annotations

import logging

from celery import current_app
from django.conf import settings
from django.utils.module_loading import import_string

logger = logging.getLogger(__name__)

BROKER_TIMEOUT_SECONDS = 2.0


def queue_names() -> list[str]:
    app = current_app
    names = {app.conf.task_default_queue}
    names.update(queue.name for queue in app.conf.task_queues or ())
    return sorted(names)


def broker_queue_lengths() -> dict[str, int] | None:
    """Messages waiting in each queue; {} without a broker (tasks run in-process), None if the broker fails."""
    app = current_app
    if app.conf.task_always_eager:
        return {}
    lengths: dict[str, int] = {}
    try:
        with app.connection_for_read(connect_timeout=BROKER_TIMEOUT_SECONDS) as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0)
            for name in queue_names():
                channel = conn.channel()
                try:
                    lengths[name] = channel.queue_declare(queue=name, passive=True).message_count
                except conn.channel_errors:
                    lengths[name] = 0  # no such queue yet (Redis keeps no empty list): nothing waits
                finally:
                    channel.close()
    except Exception as exc:  # noqa: BLE001  (any transport's failure means the same: no reading)
        logger.warning("metrics: the broker did not answer the queue-length read: %s", exc)
        return None
    return lengths


def queued_job_rows() -> dict[str, int]:
    """Queued rows of each background-job model, by model label; {} if the database fails."""
    return import_string(settings.QUEUED_JOB_ROWS)()
