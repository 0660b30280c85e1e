"""Ranking tests run inside one transaction that never commits, so the leaderboard job queued on commit would never
run: here it runs as soon as it is queued (in-process, as without a broker). A test that asks for `real_on_commit`
keeps the real queueing after commit (with django_capture_on_commit_callbacks)."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from annotation.ranking.services import board_queue
from annotation.ranking.tasks import refresh_leaderboard


@pytest.fixture
def real_on_commit() -> None:
    """Keep the leaderboard job queued after commit (see the module docstring)."""


@pytest.fixture(autouse=True)
def leaderboard_job_at_once(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    if "real_on_commit" not in request.fixturenames:
        monkeypatch.setattr(board_queue, "_queue", lambda ids: [refresh_leaderboard.delay(i) for i in ids])
    yield
