"""Redis down: workers still start, do and submit tasks.

The cache is Django's real RedisCache pointed at a closed port (a real connection error on every call): the arrival
limit counts in the process instead, with the same rate, and says so once in the log; the task page, the activity
signal and the submission need no cache. With Redis back (db 4 of the local server, when it runs) the shared
counter is used again."""
from __future__ import annotations

import logging
import socket

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from redis.exceptions import ConnectionError as RedisConnectionError

from mturk.models import Assignment
from mturk.states import AssignmentStatus
from mturk.work import throttle
from mturk.work.tokens import read_assignment_token
from tests.factories import GOOD_TEXT, make_campaign
from tests.worker_flow import press_start, submit, token_of

pytestmark = pytest.mark.django_db

LIVE_REDIS = "redis://127.0.0.1:6379/4"


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def redis_cache(location: str) -> dict[str, dict[str, object]]:
    return {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": location,
                        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}}


@pytest.fixture
def cache_down(settings):
    settings.CACHES = redis_cache(f"redis://127.0.0.1:{closed_port()}/0")
    with pytest.raises(RedisConnectionError):  # the cache really is unreachable
        cache.get("anything")
    return settings


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "mturk.work.throttle" and r.levelno == logging.WARNING]


def test_with_the_cache_down_workers_start_work_and_submit_and_the_limit_still_holds(client, cache_down, caplog):
    cache_down.ARRIVAL_RATE = "3/m"
    campaign = make_campaign(images=4, assignments=1)
    caplog.set_level(logging.WARNING, logger="mturk.work.throttle")

    started = [press_start(Client(), campaign, remote_addr="192.0.2.10") for _ in range(3)]  # three new workers
    refused = press_start(Client(), campaign, remote_addr="192.0.2.10")
    other_client = press_start(Client(), campaign, remote_addr="192.0.2.11")

    assert [r.status_code for r in started] == [303, 303, 303]
    assert refused.status_code == 429 and refused["Retry-After"] == "60"
    assert other_client.status_code == 303
    assert Assignment.objects.filter(hit__campaign=campaign).count() == 4  # the refused start took nothing
    token = token_of(started[0])
    page = client.get(reverse("task-page") + f"?t={token}")
    assert page.status_code == 200 and "data-token=" in page.content.decode()
    activity = client.post(reverse("task-activity"), {"t": token})
    assert activity.status_code == 200 and activity.json() == {"state": "active"}
    stored = submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
    assert stored.status_code == 201 and stored.json()["status"] == "stored"
    answered = Assignment.objects.get(pk=read_assignment_token(token).assignment_id)
    assert answered.status == AssignmentStatus.SUBMITTED and answered.answer == {"text": GOOD_TEXT}
    logged = warnings_of(caplog)
    assert len(logged) == 1  # once per period, not once per arrival
    assert "cache is unavailable (ConnectionError" in logged[0] and "counted per process" in logged[0]


def test_the_cache_is_retried_after_a_pause_and_the_warning_comes_again_after_a_period(
        rf, cache_down, caplog, monkeypatch):
    cache_down.ARRIVAL_RATE = "100/m"
    calls = []
    real_get_usage = throttle.get_usage
    monkeypatch.setattr(throttle, "get_usage", lambda *a, **k: calls.append(1) or real_get_usage(*a, **k))
    clock = [1000.0]
    monkeypatch.setattr(throttle, "_clock", lambda: clock[0])
    caplog.set_level(logging.WARNING, logger="mturk.work.throttle")

    def arrive() -> bool:
        return throttle.arrival_allowed(rf.post("/w/x/", REMOTE_ADDR="192.0.2.20"))

    assert arrive() and arrive()
    assert len(calls) == 1  # the second arrival did not wait for the cache again
    clock[0] += throttle.CACHE_RETRY_SECONDS
    assert arrive()
    assert len(calls) == 2 and len(warnings_of(caplog)) == 1  # retried, failed again, already said
    clock[0] += 60
    assert arrive()
    assert len(calls) == 3 and len(warnings_of(caplog)) == 2  # a new period: said again


def test_the_process_count_starts_again_with_each_window(settings):
    settings.ARRIVAL_RATE = "2/m"
    counter = throttle.LocalCounter()
    assert [counter.count("a", now=120.0) for _ in range(3)] == [True, True, False]
    assert counter.count("b", now=150.0)
    assert counter.count("a", now=180.0)  # the next minute
    assert list(counter._counts) == ["a"]  # the previous window's clients are forgotten


def test_with_redis_back_arrivals_are_counted_in_the_shared_cache_again(rf, settings, caplog):
    settings.CACHES = redis_cache(f"redis://127.0.0.1:{closed_port()}/0")
    settings.ARRIVAL_RATE = "2/m"
    caplog.set_level(logging.WARNING, logger="mturk.work.throttle")
    arrival = rf.post("/w/x/", REMOTE_ADDR="192.0.2.30")
    assert throttle.arrival_allowed(arrival)  # counted in the process
    settings.CACHES = redis_cache(LIVE_REDIS)
    try:
        cache.clear()
    except RedisConnectionError:
        pytest.skip("no Redis server on 127.0.0.1:6379")
    throttle._health.failed_at = -1e9  # the pause is over
    try:
        assert [throttle.arrival_allowed(arrival) for _ in range(3)] == [True, True, False]
        assert [k for k in cache._cache.get_client().keys("*")]  # the count lives in Redis
        assert warnings_of(caplog)[-1] == "arrival limit: the cache is back; arrivals are counted in it again"
    finally:
        cache.clear()


def start_queries(campaign) -> int:
    """SQL statements of one new worker's Start task (savepoints included), from a fresh browser and address."""
    with CaptureQueriesContext(connection) as captured:
        response = press_start(Client(), campaign, remote_addr=f"192.0.2.{100 + Assignment.objects.count()}")
    assert response.status_code == 303
    return len(captured.captured_queries)


def test_a_start_makes_the_same_queries_with_the_cache_down_and_whatever_the_campaign_size(settings):
    small, large = make_campaign(images=2, assignments=3), make_campaign(images=12, assignments=3)
    counted = [start_queries(small), start_queries(large)]
    settings.CACHES = redis_cache(f"redis://127.0.0.1:{closed_port()}/0")
    counted += [start_queries(small), start_queries(large)]
    # the same 20 statements (savepoints included) on SQLite and PostgreSQL; the cache is not the database
    assert counted == [20, 20, 20, 20]
