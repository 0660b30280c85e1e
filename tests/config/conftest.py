from __future__ import annotations

import socket

import pytest


@pytest.fixture
def unused_port() -> int:
    """A local TCP port nothing listens on (a service that is down: connections are refused at once)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def broker_down(unused_port, monkeypatch):
    """A broker URL where nothing listens (Redis down), with tasks no longer run in-process (Celery reads
    CELERY_BROKER_URL from the environment before its configuration)."""
    from config.celery import app

    app.conf.task_always_eager = False
    url = f"redis://127.0.0.1:{unused_port}/0"
    previous = app.conf.broker_url  # read before the variable is set: it would be read back
    monkeypatch.setenv("CELERY_BROKER_URL", url)
    app.conf.broker_url = url
    yield url
    app.conf.broker_url = previous
