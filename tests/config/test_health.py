"""/healthz answers without the database and before host checks, redirects and sessions; /readyz checks the
database."""
from __future__ import annotations

import logging
from unittest import mock

import pytest
from django.db import OperationalError
from django.db.backends.utils import CursorWrapper


def test_healthz_answers_ok_without_the_database(client):
    """No django_db mark: any database access in this test would raise."""
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok"
    assert response["Content-Type"].startswith("text/plain")
    assert response["Cache-Control"] == "no-store"
    assert not response.cookies


def test_healthz_answers_a_load_balancer_probe_by_address_behind_https(client, settings):
    """A probe names the instance by address (not in ALLOWED_HOSTS) over plain HTTP while HTTPS=1 redirects."""
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/healthz", HTTP_HOST="10.0.3.7:8000").status_code == 200
    assert client.get("/", HTTP_HOST="10.0.3.7:8000").status_code == 400  # other pages still check the host


def test_healthz_with_a_trailing_slash_and_head(client):
    assert client.get("/healthz/").status_code == 200
    assert client.head("/healthz").status_code == 200


def test_healthz_refuses_other_methods(client):
    response = client.post("/healthz")
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"


@pytest.mark.django_db
def test_readyz_checks_the_database(client, settings, django_assert_num_queries):
    settings.SECURE_SSL_REDIRECT = True
    with django_assert_num_queries(1):
        response = client.get("/readyz", HTTP_HOST="10.0.3.7:8000")
    assert (response.status_code, response.content) == (200, b"ok")


@pytest.mark.django_db
def test_readyz_answers_503_when_the_database_fails_and_logs_no_error(client, caplog):
    with mock.patch.object(CursorWrapper, "execute", side_effect=OperationalError("server closed the connection")):
        with caplog.at_level(logging.INFO):
            response = client.get("/readyz")
        healthz = client.get("/healthz")
    assert (response.status_code, response.content) == (503, b"database unavailable")
    assert healthz.status_code == 200  # liveness does not depend on the database
    assert [r.levelname for r in caplog.records] == ["WARNING"]
    assert "server closed the connection" in caplog.records[0].getMessage()
