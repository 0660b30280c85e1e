"""Arrival limits on the worker links: one shared per-client counter (django-ratelimit, in the default cache).

Every way a worker arrives for a task (the local campaign link's "Start task", a marketplace's iframe)
counts against `settings.ARRIVAL_RATE` for the client's IP address (`RATELIMIT_IP_META_KEY` names the
proxy header that carries it, when there is a reverse proxy)."""
from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django_ratelimit.core import get_usage

from config.client_ip import client_ip

_PERIOD_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _client_key(group: str, request: HttpRequest) -> str:
    return client_ip(request) or "unknown"


def arrival_allowed(request: HttpRequest, group: str) -> bool:
    """Counts this arrival for the client (IP, honouring the proxy setting) and says whether it is under
    the rate `settings.ARRIVAL_RATE` (env `ARRIVAL_RATE`, a django-ratelimit rate like "30/m")."""
    usage = get_usage(request, group=group, key=_client_key, rate=settings.ARRIVAL_RATE, increment=True)
    return usage is None or not usage["should_limit"]


def retry_after_seconds() -> int:
    """How long a refused client should wait at most: one period of `ARRIVAL_RATE` (the window then resets)."""
    _count, period = settings.ARRIVAL_RATE.split("/")
    multiplier = int(period[:-1]) if period[:-1] else 1
    return multiplier * _PERIOD_SECONDS[period[-1].lower()]
