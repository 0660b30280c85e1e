"""Schemathesis against the served OpenAPI schema: every operation, generated valid and invalid input.

Each response must not be a server error and must match the schema the API declares for it. The number
of examples per operation is bounded (SCHEMATHESIS_MAX_EXAMPLES, default 10) and derandomized, so a run
is short and a failure is reproducible."""
from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import override_settings
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from tests.factories import make_campaign, make_image

with override_settings(API_SCHEMA_PUBLIC=True):  # read before any test, without a token
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
MAX_EXAMPLES = int(os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "10"))


@pytest.fixture
def keep_test_connection() -> Iterator[None]:
    """Requests go through the WSGI handler, which closes the database connection after each one (on
    PostgreSQL that would end the test's transaction); Django's own test client disconnects the same
    signal handlers."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def api_headers(django_user_model, keep_test_connection) -> Iterator[dict[str, str]]:
    """A staff token, and a little data so that generated ids sometimes exist."""
    staff = django_user_model.objects.create_user("fuzz", password="fuzz-password", is_staff=True)
    make_image()
    make_campaign(images=1)
    yield {"Authorization": f"Token {Token.objects.create(user=staff).key}"}


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much])
def test_no_server_error_and_every_response_matches_its_schema(case, api_headers):
    case.call_and_validate(headers=api_headers, checks=[not_a_server_error, response_schema_conformance])
