"""The `prolific_fake` fixture: a fake Prolific on 127.0.0.1 (a free port, its own thread) for one test, with
the PROLIFIC_* settings pointing at it and the process's client rebuilt before and after.

Register it in a conftest.py with `from tests.prolific_fake.fixtures import prolific_fake  # noqa: F401`."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from mturk.providers.prolific.client import reset_client

from .server import FakeProlificServer
from .state import FakeProlific

TIMEOUT_SECONDS = 2.0  # the client's per-request timeout against the fake (a hang fault lasts longer)


@pytest.fixture
def prolific_fake(settings) -> Iterator[FakeProlific]:
    state = FakeProlific()
    state.hang_seconds = TIMEOUT_SECONDS * 3
    server = FakeProlificServer(state).start()
    settings.PROLIFIC_API_URL = server.url
    settings.PROLIFIC_TOKEN = state.token
    settings.PROLIFIC_WORKSPACE_ID = state.workspace_id
    settings.PROLIFIC_PROJECT_ID = ""
    settings.PROLIFIC_RETRY_BASE_SECONDS = 0
    settings.PROLIFIC_TIMEOUT_SECONDS = TIMEOUT_SECONDS
    reset_client()
    _forget_fees()
    try:
        yield state
    finally:
        reset_client()
        _forget_fees()
        server.stop()
    assert not state.internal_errors, "the fake Prolific failed:\n" + "\n".join(state.internal_errors)


def _forget_fees() -> None:
    """The fee share is remembered per process; each fake has its own percentages."""
    from mturk.providers.prolific.costs import forget_fee_ratio

    forget_fee_ratio()
