"""MTurk tests run against the real boto3 client with botocore's Stubber: every request is checked
against the service model (names, types, required members) and every stubbed response against the
output shape. Nothing leaves the machine."""
from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest
from botocore.stub import Stubber

from mturk.providers.mturk import client as mturk_client


def stubbed_client(sandbox: bool) -> tuple[object, Stubber]:
    client = boto3.client(
        "mturk", region_name="sandbox" if sandbox else "us-east-1",
        aws_access_key_id="testing", aws_secret_access_key="testing",
    )
    return client, Stubber(client)


@pytest.fixture(autouse=True)
def mturk_settings(settings):
    settings.PUBLIC_BASE_URL = "https://crowd.example.org"
    settings.MTURK_REQUEST_PREFIX = "t1"
    settings.MTURK_RETRY_BASE_SECONDS = 0.5
    settings.MTURK_MAX_ATTEMPTS = 4
    return settings


@pytest.fixture
def sleeps(monkeypatch) -> list[float]:
    """Backoff delays our retry loop asked for (no real sleeping)."""
    delays: list[float] = []
    monkeypatch.setattr(mturk_client, "sleep", delays.append)
    return delays


def installed_stub(sandbox: bool) -> Iterator[Stubber]:
    """A Stubber on the process's client for one environment; asserts every stubbed call was made."""
    client, stubber = stubbed_client(sandbox)
    mturk_client.set_client(sandbox, client)
    with stubber:
        yield stubber
        stubber.assert_no_pending_responses()
    mturk_client.reset_clients()


@pytest.fixture
def stub(sleeps) -> Iterator[Stubber]:
    """The production client (campaigns with sandbox False)."""
    yield from installed_stub(sandbox=False)


@pytest.fixture
def sandbox_stub(sleeps) -> Iterator[Stubber]:
    yield from installed_stub(sandbox=True)
