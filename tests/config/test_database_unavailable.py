"""A frozen or stalled database: requests answer 503 (HTML for pages, JSON for the API) with Retry-After instead
of hanging, and the next request after the outage succeeds without a restart."""
from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Iterator

import psycopg2
import pytest
from django.db import connection, connections
from django.db.backends.postgresql.base import DatabaseWrapper
from django.test import Client
from django.urls import reverse

from config.database import database_settings
from mturk.work.tokens import assignment_token
from tests.factories import GOOD_TEXT


@pytest.fixture
def frozen_postgres() -> Iterator[str]:
    """A TCP server that accepts connections and never answers, like a PostgreSQL host that froze."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept_forever() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue
            except OSError:
                return

    thread = threading.Thread(target=accept_forever, daemon=True)
    thread.start()
    yield f"postgres://postgres@127.0.0.1:{server.getsockname()[1]}/frozen"
    stop.set()
    thread.join()
    for held_socket in held:
        held_socket.close()
    server.close()


class DefaultDatabase:
    """Points the `default` connection at another database, and back at the real one."""

    def __init__(self) -> None:
        self.real = connections["default"]

    def point_at(self, url: str) -> None:
        config = database_settings(url, conn_max_age=0, connect_timeout=2, statement_timeout_ms=30_000)
        connections["default"] = DatabaseWrapper(connections.configure_settings({"default": config})["default"])

    def restore(self) -> None:
        connections["default"] = self.real


@pytest.fixture
def default_database(db) -> Iterator[DefaultDatabase]:
    switch = DefaultDatabase()
    yield switch
    switch.restore()


def test_settings_give_postgresql_connect_and_statement_timeouts():
    config = database_settings("postgres://u@db:5432/n", conn_max_age=0, connect_timeout=5, statement_timeout_ms=30_000)
    assert config["OPTIONS"] == {"connect_timeout": 5, "options": "-c statement_timeout=30000"}
    unlimited = database_settings("postgres://u@db:5432/n", conn_max_age=0, connect_timeout=5, statement_timeout_ms=0)
    assert "options" not in unlimited["OPTIONS"]
    sqlite = database_settings("sqlite:////tmp/x.sqlite3", conn_max_age=0, connect_timeout=5, statement_timeout_ms=1)
    assert "connect_timeout" not in sqlite.get("OPTIONS", {})


def test_a_frozen_database_answers_503_and_the_next_request_recovers(
    researcher_client, api, frozen_postgres, default_database, caplog
):
    submission = {"token": assignment_token(1, "W1"), "answer": {"text": GOOD_TEXT}}
    default_database.point_at(frozen_postgres)
    with caplog.at_level(logging.ERROR, logger="common.database_unavailable"):
        page = researcher_client.get(reverse("dashboard"))
        api_answer = api.get("/api/campaigns/")
        submit_answer = Client().post(reverse("task-submit"), submission, content_type="application/json")

    assert page.status_code == 503
    assert page["Retry-After"]
    assert "Temporarily unavailable" in page.content.decode()
    assert api_answer.status_code == 503
    assert api_answer["Retry-After"]
    assert "database" in api_answer.json()["error"]
    assert submit_answer.status_code == 503
    assert "database" in submit_answer.json()["error"]
    assert any("database unavailable during GET /" in record.getMessage() for record in caplog.records)

    default_database.restore()  # the database is back
    assert researcher_client.get(reverse("dashboard")).status_code == 200
    assert api.get("/api/campaigns/").status_code == 200


on_postgresql = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")),
    reason="needs DATABASE_URL=postgres://... (statement_timeout is PostgreSQL's)",
)


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_statement_stuck_on_a_lock_is_cancelled_with_503_then_requests_succeed(researcher_client, caplog):
    url = os.environ["DATABASE_URL"]
    timeouts = database_settings(url, conn_max_age=0, connect_timeout=5, statement_timeout_ms=300)
    options = connection.settings_dict["OPTIONS"]
    saved = dict(options)
    options.update(timeouts["OPTIONS"])
    connection.close()  # the next query connects with the short statement timeout
    params = connection.get_connection_params()
    params.pop("options", None)
    locker = psycopg2.connect(**params)
    try:
        with locker.cursor() as cursor:  # another session holds the session table (a stuck migration, a long lock)
            cursor.execute("LOCK TABLE django_session IN ACCESS EXCLUSIVE MODE")
        with caplog.at_level(logging.ERROR, logger="common.database_unavailable"):
            stuck = researcher_client.get(reverse("dashboard"))
        assert stuck.status_code == 503
        assert stuck["Retry-After"]
        assert any("statement timeout" in record.getMessage() for record in caplog.records)
        locker.rollback()  # the lock is gone
        assert researcher_client.get(reverse("dashboard")).status_code == 200
    finally:
        locker.close()
        options.clear()
        options.update(saved)
        connection.close()
