"""The OpenAPI schema and its page list every endpoint and field: staff only, unless API_SCHEMA_PUBLIC."""
from __future__ import annotations

import pytest
from django.test import Client, override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db
OPENAPI_JSON = "application/vnd.oai.openapi+json"


@pytest.mark.parametrize("url", ["/api/schema/", "/api/docs/"])
def test_anonymous_is_refused(url):
    response = APIClient().get(url, HTTP_ACCEPT=OPENAPI_JSON if "schema" in url else "text/html")
    assert response.status_code in (401, 403)
    assert b"/api/campaigns/" not in response.content


def test_a_non_staff_token_is_refused(django_user_model):
    user = django_user_model.objects.create_user("plain", password="plain-password")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    assert client.get("/api/schema/", HTTP_ACCEPT=OPENAPI_JSON).status_code == 403


def test_staff_token_reads_the_schema(api):
    response = api.get("/api/schema/", HTTP_ACCEPT=OPENAPI_JSON)
    assert response.status_code == 200
    assert "/api/campaigns/" in response.json()["paths"]


def test_staff_logged_in_to_the_console_sees_the_page(researcher):
    client = Client()
    client.force_login(researcher)
    page = client.get("/api/docs/")
    assert page.status_code == 200
    assert b"swagger" in page.content.lower()
    assert client.get("/api/schema/", HTTP_ACCEPT=OPENAPI_JSON).status_code == 200


@override_settings(API_SCHEMA_PUBLIC=True)
def test_the_setting_publishes_them():
    response = APIClient().get("/api/schema/", HTTP_ACCEPT=OPENAPI_JSON)
    assert response.status_code == 200
    assert "/api/campaigns/" in response.json()["paths"]
    assert APIClient().get("/api/docs/").status_code == 200
