"""Prometheus metrics (prometheus_client). Counters and histograms are updated where things happen (requests in
the middleware, submissions in the submission service, jobs from Celery's signals); the queue depth is read when
/metrics is scraped. Several processes (gunicorn workers, Celery's pool): set PROMETHEUS_MULTIPROC_DIR to an empty
directory per service before they start; the scrape then adds up every process's file (multiprocess mode)."""
from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.multiprocess import MultiProcessCollector

logger = logging.getLogger(__name__)

REQUESTS = Counter(
    "platform_http_requests", "HTTP requests answered, by view (URL name), method and status.",
    ["view", "method", "status"],
)
REQUEST_SECONDS = Histogram(
    "platform_http_request_duration_seconds", "Time to answer an HTTP request, by view (URL name).", ["view"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, float("inf")),
)
SUBMISSIONS = Counter("platform_submissions", "Worker answers stored (each assignment once), by task kind.",
                      ["task_kind"])
JOB_SECONDS = Histogram(
    "platform_job_duration_seconds", "Run time of background jobs (Celery tasks), by job and outcome.",
    ["job", "outcome"],
    buckets=(0.05, 0.25, 1.0, 5.0, 15.0, 60.0, 300.0, 900.0, 1800.0, 3600.0, 4 * 3600.0, float("inf")),
)


def multiprocess_dir() -> str:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")


class _ThisProcess:
    """This process's metrics (single-process mode)."""

    def collect(self) -> Iterable[Metric]:
        return REGISTRY.collect()


class QueueDepthCollector:
    """Read at each scrape: messages waiting in the broker's queues and background-job rows still queued."""

    def collect(self) -> Iterator[Metric]:
        from .queue_depth import broker_queue_lengths, queued_job_rows

        lengths = broker_queue_lengths()
        broker = GaugeMetricFamily("platform_broker_queue_messages",
                                   "Messages waiting in the broker's queue (not yet taken by a worker).",
                                   labels=["queue"])
        for queue, length in sorted((lengths or {}).items()):
            broker.add_metric([queue], length)
        yield broker
        yield GaugeMetricFamily("platform_broker_up", "1 if the broker answered this scrape's queue reads, else 0.",
                                value=0 if lengths is None else 1)
        jobs = GaugeMetricFamily("platform_jobs_queued", "Background jobs requested and not yet started, by kind.",
                                 labels=["kind"])
        for kind, count in sorted(queued_job_rows().items()):
            jobs.add_metric([kind], count)
        yield jobs


def exposition(*, with_queues: bool) -> bytes:
    """The text format of every process's metrics (all of them in multiprocess mode), plus the queue depth."""
    registry = CollectorRegistry()
    if multiprocess_dir():
        MultiProcessCollector(registry)
    else:
        registry.register(_ThisProcess())
    if with_queues:
        registry.register(QueueDepthCollector())
    return generate_latest(registry)


def mark_process_dead(pid: int) -> None:
    """A finished process's live gauges are dropped (gunicorn's child_exit, Celery's pool process shutdown)."""
    if multiprocess_dir():
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)


def clear_multiprocess_dir() -> None:
    """At a service's start: the files of a previous run would be added to this run's counts."""
    directory = multiprocess_dir()
    if not directory:
        return
    os.makedirs(directory, exist_ok=True)
    for name in os.listdir(directory):
        if name.endswith(".db"):
            os.remove(os.path.join(directory, name))
