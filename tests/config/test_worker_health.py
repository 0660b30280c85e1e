"""A worker's health: it reaches the broker and the database, checked without a round trip through a worker
(`manage.py check_worker_health` and the worker's own health port)."""
from __future__ import annotations

import urllib.error
import urllib.request
from io import StringIO
from unittest import mock

import pytest
from django.core.management import CommandError, call_command
from django.db import OperationalError
from django.db.backends.utils import CursorWrapper

from common.observability.worker_health import check_worker_health, start_health_server
from config.celery import app

from .metrics_reading import TOKEN


@pytest.fixture
def database_down():
    with mock.patch.object(CursorWrapper, "execute", side_effect=OperationalError("connection refused")):
        yield


@pytest.mark.django_db
def test_the_command_says_ok_when_broker_and_database_answer():
    out = StringIO()
    call_command("check_worker_health", stdout=out)
    assert out.getvalue().strip() == "ok"


@pytest.mark.django_db
def test_the_command_names_a_broker_that_does_not_answer(broker_down):
    with pytest.raises(CommandError, match="^broker unavailable$"):
        call_command("check_worker_health")


@pytest.mark.django_db
def test_the_command_names_a_database_that_does_not_answer(database_down):
    with pytest.raises(CommandError, match="^database unavailable$"):
        call_command("check_worker_health")


@pytest.mark.django_db
def test_both_down_are_both_named(broker_down, database_down):
    health = check_worker_health()
    assert (health.broker, health.database, health.ok) == (False, False, False)
    assert health.describe() == "broker and database unavailable"


@pytest.mark.django_db
def test_a_redis_broker_that_answers_is_reachable(settings):
    """The real Redis of the test run, when there is one (CELERY_BROKER_URL on redis://)."""
    url = settings.CELERY_BROKER_URL
    if not url.startswith("redis://"):
        pytest.skip("no Redis broker configured (CELERY_BROKER_URL)")
    app.conf.task_always_eager = False
    assert check_worker_health().broker is True


def _get(port: int, path: str, token: str | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@pytest.fixture
def health_port():
    server = start_health_server("127.0.0.1", 0)
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.mark.django_db(transaction=True)  # the server's thread has its own database connection
def test_the_health_port_answers_probes_and_metrics(health_port, settings):
    settings.METRICS_TOKEN = TOKEN
    assert _get(health_port, "/healthz") == (200, b"ok")
    assert _get(health_port, "/readyz") == (200, b"ok")
    assert _get(health_port, "/readyz/") == (200, b"ok")
    assert _get(health_port, "/metrics")[0] == 401
    status, body = _get(health_port, "/metrics", TOKEN)
    assert status == 200
    assert b"# TYPE platform_job_duration_seconds histogram" in body
    assert b"platform_jobs_queued" not in body  # the queue depth is the web's to report
    assert _get(health_port, "/other")[0] == 404


@pytest.mark.django_db(transaction=True)
def test_the_health_port_says_503_when_the_broker_is_down(health_port, broker_down):
    assert _get(health_port, "/healthz") == (200, b"ok")  # the process lives: no restart for a broker outage
    assert _get(health_port, "/readyz") == (503, b"broker unavailable")
