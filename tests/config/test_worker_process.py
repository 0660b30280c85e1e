"""A real Celery worker process (PostgreSQL and a broker): the job a request queues logs that request's id, the
job's duration reaches the worker's /metrics, and the worker's health port answers."""
from __future__ import annotations

import json
import os
import time
import urllib.request

import pytest
from django.db import connection

from tests.celery_process import celery_worker

from .metrics_reading import TOKEN

pytestmark = [
    pytest.mark.celery_worker,
    pytest.mark.skipif(not os.environ.get("CELERY_BROKER_URL"), reason="set CELERY_BROKER_URL to use a real worker"),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the worker process needs a shared database"),
]


def _job_lines(log: str, request_id: str) -> list[dict]:
    lines = []
    for raw in log.splitlines():
        if raw.startswith("{"):
            line = json.loads(raw)
            if line.get("request_id") == request_id:
                lines.append(line)
    return lines


@pytest.mark.django_db(transaction=True)
def test_a_job_in_the_worker_logs_the_request_id_and_its_duration(api, tmp_path, unused_port, media_root, settings):
    settings.METRICS_TOKEN = TOKEN
    env = {"LOG_FORMAT": "json", "WORKER_HEALTH_PORT": str(unused_port), "METRICS_TOKEN": TOKEN,
           "MEDIA_ROOT": str(media_root), "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "prometheus")}
    log_path = tmp_path / "worker.log"
    with celery_worker(log_path, env):
        response = api.post("/api/exports/", {"format": "imageclef"}, format="json",
                            HTTP_X_REQUEST_ID="req-real-worker")
        assert response.status_code == 202, response.content
        deadline = time.monotonic() + 60
        while len(_job_lines(log_path.read_text(), "req-real-worker")) < 2:
            assert time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.2)
        with urllib.request.urlopen(f"http://127.0.0.1:{unused_port}/readyz", timeout=5) as ready:
            assert (ready.status, ready.read()) == (200, b"ok")
        scrape = urllib.request.Request(f"http://127.0.0.1:{unused_port}/metrics",
                                        headers={"Authorization": f"Bearer {TOKEN}"})
        with urllib.request.urlopen(scrape, timeout=5) as metrics:
            body = metrics.read().decode()
    started, finished = _job_lines(log_path.read_text(), "req-real-worker")
    assert started["message"] == "job mturk.tasks.build_dataset_export started"
    assert finished["message"] == "job mturk.tasks.build_dataset_export finished: success"
    assert finished["job_id"] == started["job_id"] and finished["duration_ms"] > 0
    assert ('platform_job_duration_seconds_count{job="mturk.tasks.build_dataset_export",outcome="success"} 1.0'
            in body)
