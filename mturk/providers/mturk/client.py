"""The boto3 `mturk` client (one per process and environment) and our retry policy around it.

botocore retries some errors itself, but not with our idempotency tokens in mind and not in a way a
background job can reason about. Every call goes through `call`, which retries throttling and
`ServiceFault` with exponential backoff and turns everything else into `MarketplaceError`."""
from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Callable
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError
from django.conf import settings

from ..base import ProviderError, ProviderUnavailable

PRODUCTION_REGION = "us-east-1"
SANDBOX_REGION = "sandbox"  # botocore resolves it to mturk-requester-sandbox.us-east-1.amazonaws.com
RETRYABLE_CODES = frozenset({"ThrottlingException", "ServiceFault", "ServiceUnavailable", "InternalFailure"})

_clients: dict[bool, Any] = {}
_lock = threading.Lock()
# Tests and benchmarks replace the sleep (no real waiting); production sleeps.
sleep: Callable[[float], None] = time.sleep


class MarketplaceError(ProviderError):
    """MTurk refused a request. `turk_code` is MTurk's TurkErrorCode (e.g. AWS.MechanicalTurk.HitAlreadyExists)."""

    def __init__(self, message: str, code: str = "", turk_code: str = "", operation: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.turk_code = turk_code
        self.operation = operation


class MarketplaceUnavailable(MarketplaceError, ProviderUnavailable):
    """Throttling or a service fault that outlasted our retries: try again later (the job is retried)."""


def get_client(sandbox: bool) -> Any:
    """The process's client for production or the sandbox. MTURK_ENDPOINT_URL points both at an
    MTurk-compatible service. Credentials come from the standard AWS chain (environment variables,
    shared files, instance roles); boto3 reads them itself."""
    with _lock:
        client = _clients.get(sandbox)
        if client is None:
            endpoint = settings.MTURK_ENDPOINT_URL or None
            client = boto3.client(
                "mturk",
                region_name=SANDBOX_REGION if sandbox and not endpoint else PRODUCTION_REGION,
                endpoint_url=endpoint,
                config=Config(retries={"total_max_attempts": 1, "mode": "standard"},  # our retries only
                              connect_timeout=10, read_timeout=30),
            )
            _clients[sandbox] = client
        return client


def set_client(sandbox: bool, client: Any) -> None:
    """Install a client (a stubbed one in tests and benchmarks)."""
    with _lock:
        _clients[sandbox] = client


def reset_clients() -> None:
    with _lock:
        _clients.clear()


def _codes(exc: ClientError) -> tuple[str, str]:
    error = exc.response.get("Error", {})
    turk = exc.response.get("TurkErrorCode") or error.get("TurkErrorCode") or ""
    return str(error.get("Code", "")), str(turk)


def call(client: Any, operation: str, **params: Any) -> dict[str, Any]:
    """Call `client.<operation>(**params)`, retrying throttling and service faults with backoff."""
    attempts = settings.MTURK_MAX_ATTEMPTS
    for attempt in range(1, attempts + 1):
        try:
            return getattr(client, operation)(**params)
        except ClientError as exc:
            code, turk_code = _codes(exc)
            message = exc.response.get("Error", {}).get("Message", "") or str(exc)
            if code in RETRYABLE_CODES:
                if attempt == attempts:
                    raise MarketplaceUnavailable(
                        f"MTurk is unavailable for {operation} after {attempts} attempts: {code} {message}",
                        code, turk_code, operation,
                    ) from exc
                delay = settings.MTURK_RETRY_BASE_SECONDS * 2 ** (attempt - 1)
                sleep(delay * (1 + random.random() / 2))
                continue
            raise MarketplaceError(f"MTurk refused {operation}: {message}", code, turk_code, operation) from exc
        except BotoCoreError as exc:  # connection errors, missing credentials, bad parameters
            raise MarketplaceError(f"MTurk {operation} failed: {exc}", type(exc).__name__, "", operation) from exc
    raise AssertionError("unreachable")


def paginate(client: Any, operation: str, key: str, **params: Any) -> list[dict[str, Any]]:
    """All pages of a list operation (MaxResults 100, following NextToken)."""
    items: list[dict[str, Any]] = []
    token: str | None = None
    while True:
        page = call(client, operation, MaxResults=100, **params, **({"NextToken": token} if token else {}))
        items.extend(page.get(key, []))
        token = page.get("NextToken")
        if not token or not page.get(key):
            return items


HIT_ID_IN_MESSAGE = re.compile(r"\b([A-Z0-9]{30})\b")


def hit_id_from_message(message: str) -> str | None:
    """HitAlreadyExists messages name the existing HIT; the id is 30 upper-case letters and digits."""
    match = HIT_ID_IN_MESSAGE.search(message)
    return match.group(1) if match else None
