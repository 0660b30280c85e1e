from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture(autouse=True)
def empty_cache():
    """Each test starts with no arrival counted (the rate-limit counters live in the cache, and in the process while
    the cache is down)."""
    from django.core.cache import cache

    from mturk.work.throttle import reset_fallback

    cache.clear()
    reset_fallback()
    yield
    cache.clear()
    reset_fallback()


@pytest.fixture
def researcher(db):
    return get_user_model().objects.create_user("alice", "alice@example.org", "s3cret-pass", is_staff=True)


@pytest.fixture
def researcher_client(client, researcher):
    client.force_login(researcher)
    return client


@pytest.fixture
def api(researcher) -> APIClient:
    token, _ = Token.objects.get_or_create(user=researcher)
    api_client = APIClient()
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return api_client


@pytest.fixture(autouse=True)
def celery_in_process():
    """Background tasks run in-process unless a test asks for the real worker (see test_celery_worker)."""
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous
