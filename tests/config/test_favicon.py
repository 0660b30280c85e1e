"""Every page links the site's icon, and /favicon.ico (what browsers ask for whatever a page links) leads to it
instead of a 404."""
from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_favicon_ico_is_served():
    response = Client().get("/favicon.ico", follow=True)
    assert response.status_code == 200
    assert response.redirect_chain == [("/static/favicon.svg", 301)]
    assert response["Content-Type"] == "image/svg+xml"
    assert b"<svg" in b"".join(response.streaming_content)


def test_the_pages_link_the_icon(researcher_client):
    for url in ("/", "/accounts/login/"):
        page = (researcher_client if url == "/" else Client()).get(url).content.decode()
        assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in page, url
