"""One METEOR JVM for the whole test session.

Loading METEOR's paraphrase table takes seconds, so the story tests lend every report and
evaluation the same real jar process instead of starting one each (production starts one per
report or evaluation request)."""
from __future__ import annotations

import pytest

from metrics.meteor import Meteor


class _Borrowed:
    def __init__(self, meteor: Meteor) -> None:
        self._meteor = meteor

    def __enter__(self) -> Meteor:
        return self._meteor

    def __exit__(self, *exc: object) -> None:
        return None


@pytest.fixture(scope="session")
def _session_meteor():
    started: list[Meteor] = []

    def lend() -> _Borrowed:
        if not started:
            started.append(Meteor())
        return _Borrowed(started[0])

    yield lend
    for meteor in started:
        meteor.close()


@pytest.fixture(autouse=True)
def shared_meteor(_session_meteor, monkeypatch):
    for module in ("storyboard.reports", "storyboard.services.story_runs", "storyboard.services.agreement_scores"):
        monkeypatch.setattr(f"{module}.Meteor", _session_meteor)
