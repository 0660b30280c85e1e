from __future__ import annotations

import socket

import pytest


@pytest.fixture
def unused_port() -> int:
    """A local TCP port nothing listens on (a service that is down: connections are refused at once)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
