"""/metrics: hidden without METRICS_TOKEN, refused without the token, and counting requests, submissions, queued
jobs, the broker's queue and job durations."""
from __future__ import annotations

import pytest

from config.celery import app
from mturk.models import DatasetExport
from tests.factories import GOOD_TEXT, make_campaign, submitted
from tests.worker_flow import start_task, submit

from .metrics_reading import TOKEN, scrape, value


@pytest.fixture
def metrics_on(settings):
    settings.METRICS_TOKEN = TOKEN


def test_metrics_do_not_exist_without_a_token_setting(client, settings):
    settings.METRICS_TOKEN = ""
    response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer anything")
    assert response.status_code == 404
    assert b"platform_" not in response.content


@pytest.mark.parametrize("authorization", [None, "Bearer wrong-token", f"Token {TOKEN}", f"Basic {TOKEN}"])
def test_metrics_refuse_a_missing_or_wrong_token(client, metrics_on, authorization):
    headers = {"HTTP_AUTHORIZATION": authorization} if authorization else {}
    response = client.get("/metrics", **headers)
    assert response.status_code == 401
    assert b"platform_" not in response.content


@pytest.mark.django_db
def test_metrics_answer_a_scraper_by_address_over_plain_http(client, metrics_on, settings):
    """Answered before the host check and the HTTPS redirect, like the health probes."""
    settings.SECURE_SSL_REDIRECT = True
    response = client.get("/metrics", HTTP_HOST="10.0.3.7:8000", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"


@pytest.mark.django_db
def test_requests_are_counted_by_view_method_and_status(client, metrics_on):
    labels = {"view": "login", "method": "GET", "status": "200"}
    before = scrape(client)
    assert client.get("/accounts/login/").status_code == 200
    assert client.get("/accounts/login/").status_code == 200
    assert client.get("/no/such/page/").status_code == 404
    after = scrape(client)
    assert value(after, "platform_http_requests_total", **labels) - value(
        before, "platform_http_requests_total", **labels) == 2
    unresolved = {"view": "<unresolved>", "method": "GET", "status": "404"}
    assert value(after, "platform_http_requests_total", **unresolved) - value(
        before, "platform_http_requests_total", **unresolved) == 1
    assert value(after, "platform_http_request_duration_seconds_count", view="login") - value(
        before, "platform_http_request_duration_seconds_count", view="login") == 2
    # the scrapes themselves and the health probes are not requests of the application
    assert not any(key[0] == "platform_http_requests_total" and ("view", "metrics") in key[1] for key in after)


@pytest.mark.django_db
def test_a_submission_is_counted_once(client, metrics_on):
    campaign = make_campaign(images=1, assignments=1)
    before = value(scrape(client), "platform_submissions_total", task_kind="describe_image")
    token = start_task(client, campaign)
    body = {"token": token, "answer": {"text": GOOD_TEXT}}
    assert submit(client, body).status_code == 201
    assert submit(client, body).status_code == 200  # a retry stores nothing new
    after = value(scrape(client), "platform_submissions_total", task_kind="describe_image")
    assert after - before == 1


@pytest.mark.django_db
def test_queued_jobs_are_read_from_the_database(client, metrics_on, researcher):
    DatasetExport.objects.create(format="imageclef", created_by=researcher)
    DatasetExport.objects.create(format="imageclef", created_by=researcher)
    DatasetExport.objects.create(format="imageclef", created_by=researcher, status=DatasetExport.Status.DONE)
    samples = scrape(client)
    assert value(samples, "platform_jobs_queued", kind="mturk.datasetexport") == 2
    assert ("platform_jobs_queued", (("kind", "mturk.importjob"),)) in samples  # every kind, also at 0
    assert value(samples, "platform_jobs_queued", kind="mturk.importjob") == 0


@pytest.mark.django_db
def test_without_a_broker_no_queue_is_read_and_the_broker_counts_as_up(client, metrics_on):
    samples = scrape(client)
    assert value(samples, "platform_broker_up") == 1
    assert not [key for key in samples if key[0] == "platform_broker_queue_messages"]


@pytest.fixture
def memory_broker():
    """Tasks are sent to kombu's in-memory broker (nothing runs them): the queue's messages can be counted."""
    app.conf.task_always_eager = False
    with app.connection_for_write() as conn:
        conn.SimpleQueue(app.conf.task_default_queue).clear()
    yield
    with app.connection_for_write() as conn:
        conn.SimpleQueue(app.conf.task_default_queue).clear()


@pytest.mark.django_db
def test_messages_waiting_in_the_broker_are_counted(client, metrics_on, memory_broker):
    from mturk.tasks import release_idle_tasks

    assert value(scrape(client), "platform_broker_queue_messages", queue="celery") == 0
    release_idle_tasks.delay()
    release_idle_tasks.delay()
    release_idle_tasks.delay()
    samples = scrape(client)
    assert value(samples, "platform_broker_queue_messages", queue="celery") == 3
    assert value(samples, "platform_broker_up") == 1


@pytest.mark.django_db
def test_a_broker_that_does_not_answer_is_reported_not_raised(client, metrics_on, caplog, broker_down):
    samples = scrape(client)
    assert value(samples, "platform_broker_up") == 0
    assert value(samples, "platform_jobs_queued", kind="mturk.datasetexport") == 0
    assert ("platform_jobs_queued", (("kind", "mturk.datasetexport"),)) in samples
    assert "the broker did not answer the queue-length read" in caplog.text


@pytest.mark.django_db
def test_job_durations_are_observed_by_job_and_outcome(client, metrics_on):
    campaign = make_campaign(images=1, assignments=1)
    submitted(campaign)
    labels = {"job": "mturk.tasks.release_idle_tasks", "outcome": "success"}
    before = value(scrape(client), "platform_job_duration_seconds_count", **labels)
    from mturk.tasks import release_idle_tasks

    release_idle_tasks.delay()  # in-process here; the same signals fire in a worker
    samples = scrape(client)
    assert value(samples, "platform_job_duration_seconds_count", **labels) - before == 1
    assert value(samples, "platform_job_duration_seconds_bucket", le="+Inf", **labels) - before == 1
