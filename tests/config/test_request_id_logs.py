"""Request ids: taken from X-Request-ID or made, answered, on every log line of the request, and carried in the
message of each job the request queues, to that job's log lines."""
from __future__ import annotations

import json
import logging
import re

import pytest

from common.observability.celery_signals import HEADER
from common.observability.logs import JsonFormatter, logging_config
from common.observability.request_id import RequestIdFilter, current_request_id
from config.celery import app


@pytest.mark.django_db
def test_a_plausible_request_id_is_kept_and_answered(client, caplog):
    caplog.set_level(logging.INFO, logger="config.requests")
    response = client.get("/accounts/login/", HTTP_X_REQUEST_ID="lb-7f3a.42")
    assert response["X-Request-ID"] == "lb-7f3a.42"
    [line] = [r for r in caplog.records if r.name == "config.requests"]
    assert line.request_id == "lb-7f3a.42"
    assert (line.method, line.path, line.status, line.view) == ("GET", "/accounts/login/", 200, "login")


@pytest.mark.django_db
@pytest.mark.parametrize("given", [None, "", "two words", "x" * 129, 'quote"d', "new\nline"])
def test_a_missing_or_implausible_request_id_is_replaced(client, given):
    headers = {} if given is None else {"HTTP_X_REQUEST_ID": given}
    response = client.get("/accounts/login/", **headers)
    assert re.fullmatch(r"[0-9a-f]{32}", response["X-Request-ID"])


@pytest.mark.django_db
def test_each_request_gets_its_own_id(client):
    first = client.get("/accounts/login/")["X-Request-ID"]
    second = client.get("/accounts/login/")["X-Request-ID"]
    assert first != second
    assert current_request_id.get() == ""  # nothing leaks out of a request


def test_health_probes_are_neither_logged_nor_given_an_id(client, caplog):
    caplog.set_level(logging.INFO, logger="config.requests")
    response = client.get("/healthz")
    assert "X-Request-ID" not in response
    assert not [r for r in caplog.records if r.name == "config.requests"]


def _json_line(record: logging.LogRecord) -> dict:
    RequestIdFilter().filter(record)
    return json.loads(JsonFormatter().format(record))


def test_a_json_log_line_has_time_level_logger_message_request_id_and_extras():
    token = current_request_id.set("req-1")
    try:
        record = logging.LogRecord("mturk.services", logging.WARNING, __file__, 1, "stored %s answers", (3,), None)
        record.campaign = 12
        line = _json_line(record)
    finally:
        current_request_id.reset(token)
    assert line["message"] == "stored 3 answers"
    assert (line["level"], line["logger"], line["request_id"], line["campaign"]) == (
        "WARNING", "mturk.services", "req-1", 12)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\+00:00", line["time"])


def test_the_log_format_is_json_or_text_and_nothing_else():
    assert logging_config("json", "INFO")["handlers"]["console"]["formatter"] == "json"
    assert logging_config("text", "DEBUG")["root"]["level"] == "DEBUG"
    with pytest.raises(ValueError, match="LOG_FORMAT='xml' is neither json nor text"):
        logging_config("xml", "INFO")


@pytest.fixture
def memory_broker():
    app.conf.task_always_eager = False
    with app.connection_for_write() as conn:
        conn.SimpleQueue(app.conf.task_default_queue).clear()
    yield
    with app.connection_for_write() as conn:
        conn.SimpleQueue(app.conf.task_default_queue).clear()


@pytest.mark.django_db(transaction=True)
def test_a_job_queued_by_a_request_carries_its_id(api, memory_broker):
    """POST /api/exports/ queues the export's job when its row commits, inside the request (real transactions
    here): the message sent to the broker has the request's id."""
    response = api.post("/api/exports/", {"format": "imageclef"}, format="json", HTTP_X_REQUEST_ID="req-export-9")
    assert response.status_code == 202, response.content
    with app.connection_for_read() as conn:
        message = conn.SimpleQueue(app.conf.task_default_queue).get(timeout=1)
    assert message.headers["task"] == "mturk.tasks.build_dataset_export"
    assert message.headers[HEADER] == "req-export-9"


@pytest.mark.django_db
def test_a_job_without_a_request_is_sent_without_an_id(memory_broker):
    from mturk.tasks import release_idle_tasks

    release_idle_tasks.delay()
    with app.connection_for_read() as conn:
        message = conn.SimpleQueue(app.conf.task_default_queue).get(timeout=1)
    assert HEADER not in message.headers


@pytest.mark.django_db
def test_a_job_logs_with_the_id_it_was_queued_with(caplog):
    """What the worker does with such a message: the job's lines carry the id, and it is gone after the job (run
    in-process here, where they are DEBUG lines: test_quiet_commands)."""
    from mturk.tasks import release_idle_tasks

    caplog.set_level(logging.DEBUG, logger="common.observability.celery_signals")
    release_idle_tasks.apply(headers={HEADER: "req-from-the-web"})
    lines = [r for r in caplog.records if r.name == "common.observability.celery_signals"]
    assert [(r.getMessage(), r.request_id) for r in lines] == [
        ("job mturk.tasks.release_idle_tasks started", "req-from-the-web"),
        ("job mturk.tasks.release_idle_tasks finished: success", "req-from-the-web"),
    ]
    assert lines[1].outcome == "success" and lines[1].duration_ms >= 0
    assert current_request_id.get() == ""
