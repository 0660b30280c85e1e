"""The arrival limit on the worker links: one per-client counter (django-ratelimit, in the default cache) shared by
every way a worker arrives for a task.

Every arrival (the local campaign link's "Start task" and a return's next task, a Prolific session's start and its
next task, an MTurk iframe arrival) calls `arrival_allowed`, which counts it in ONE group for the client's IP
address (`RATELIMIT_IP_META_KEY` names the proxy header that carries it, when there is a reverse proxy): a client
gets `settings.ARRIVAL_RATE` arrivals per period whatever the path or the made-up worker ids it arrives with.

When the cache cannot be reached (Redis down), arrivals are not refused: each process counts them itself
(`LocalCounter`, the same rate and window) and logs one warning per period of the rate while the cache is down; the
cache is tried again after `CACHE_RETRY_SECONDS`. With several web processes a client then gets up to the rate in
each of them until the cache is back."""
from __future__ import annotations

import logging
import threading
import time

from django.conf import settings
from django.http import HttpRequest
from django_ratelimit.core import get_usage
from redis.exceptions import RedisError

from common.client_ip import client_ip

logger = logging.getLogger(__name__)

GROUP = "arrival"  # the one group every arrival path counts in
CACHE_RETRY_SECONDS = 5  # after a cache error, arrivals are counted in the process for this long before a retry
CACHE_ERRORS = (RedisError, OSError)  # a RedisCache that cannot connect, time-outs, a refused socket

_PERIOD_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_clock = time.monotonic  # when the cache failed and was last reported (tests replace it)


def rate_limit_and_period() -> tuple[int, int]:
    """`ARRIVAL_RATE` as (arrivals allowed, period in seconds): "30/m" is (30, 60), "100/5m" is (100, 300)."""
    count, period = settings.ARRIVAL_RATE.split("/")
    multiplier = int(period[:-1]) if period[:-1] else 1
    return int(count), multiplier * _PERIOD_SECONDS[period[-1].lower()]


def retry_after_seconds() -> int:
    """How long a refused client should wait at most: one period of `ARRIVAL_RATE` (the window then resets)."""
    return rate_limit_and_period()[1]


class LocalCounter:
    """Arrivals per client in this process, in fixed windows of the rate's period (the stand-in while the cache is
    down). Only the current window's counts are kept, so memory is bounded by the clients of one period."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._window: tuple[int, int] = (0, 0)  # (period, window start)
        self._counts: dict[str, int] = {}

    def count(self, client: str, now: float | None = None) -> bool:
        """Counts this arrival; True while the client is within the rate."""
        limit, period = rate_limit_and_period()
        now = time.time() if now is None else now
        window = (period, int(now // period) * period)
        with self._lock:
            if window != self._window:
                self._window, self._counts = window, {}
            self._counts[client] = self._counts.get(client, 0) + 1
            return self._counts[client] <= limit

    def clear(self) -> None:
        with self._lock:
            self._window, self._counts = (0, 0), {}


class _CacheHealth:
    """When the cache last failed, and when its failure was last logged (one warning per period)."""

    def __init__(self) -> None:
        self.failed_at: float | None = None
        self.warned_at: float | None = None

    def usable(self, now: float) -> bool:
        return self.failed_at is None or now - self.failed_at >= CACHE_RETRY_SECONDS

    def failed(self, now: float, error: Exception) -> None:
        self.failed_at = now
        period = retry_after_seconds()
        if self.warned_at is None or now - self.warned_at >= period:
            self.warned_at = now
            logger.warning("arrival limit: the cache is unavailable (%s: %s); arrivals are counted per process "
                           "(ARRIVAL_RATE %s in each) until it is back", type(error).__name__, error,
                           settings.ARRIVAL_RATE)

    def recovered(self) -> None:
        if self.failed_at is not None:
            logger.warning("arrival limit: the cache is back; arrivals are counted in it again")
        self.failed_at = self.warned_at = None


local_counter = LocalCounter()
_health = _CacheHealth()


def _client_key(group: str, request: HttpRequest) -> str:
    return client_ip(request) or "unknown"


def arrival_allowed(request: HttpRequest) -> bool:
    """Counts this arrival for the client (IP, honouring the proxy setting) and says whether it is under the rate
    `settings.ARRIVAL_RATE` (env `ARRIVAL_RATE`, a django-ratelimit rate like "30/m"). Never raises for a cache
    that is down: the process counts instead (module docstring)."""
    now = _clock()
    if _health.usable(now):
        try:
            usage = get_usage(request, group=GROUP, key=_client_key, rate=settings.ARRIVAL_RATE, increment=True)
        except CACHE_ERRORS as exc:
            _health.failed(now, exc)
        else:
            _health.recovered()
            return usage is None or not usage["should_limit"]
    if not getattr(settings, "RATELIMIT_ENABLE", True):
        return True
    return local_counter.count(_client_key(GROUP, request))


def reset_fallback() -> None:
    """Forget the process's own counts and the cache's failure (tests; a process that knows the cache is back)."""
    local_counter.clear()
    _health.failed_at = _health.warned_at = None
