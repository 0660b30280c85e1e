"""The shared arrival limit: counted per client address, in one group for every arrival path, in the cache."""
from __future__ import annotations

from django.test import RequestFactory

from mturk.work.throttle import arrival_allowed, retry_after_seconds


def _arrival(ip: str, **meta: str):
    return RequestFactory().post("/w/x/", REMOTE_ADDR=ip, **meta)


def test_arrivals_over_the_rate_are_refused_per_client(settings):
    settings.ARRIVAL_RATE = "3/m"
    answers = [arrival_allowed(_arrival("10.0.0.1")) for _ in range(5)]
    assert answers == [True, True, True, False, False]
    assert arrival_allowed(_arrival("10.0.0.2"))  # another client has its own count


def test_the_proxy_header_names_the_client(settings):
    settings.ARRIVAL_RATE = "1/m"
    settings.RATELIMIT_IP_META_KEY = "HTTP_X_REAL_IP"
    assert arrival_allowed(_arrival("10.0.0.9", HTTP_X_REAL_IP="192.0.2.1"))
    assert not arrival_allowed(_arrival("10.0.0.9", HTTP_X_REAL_IP="192.0.2.1"))
    assert arrival_allowed(_arrival("10.0.0.9", HTTP_X_REAL_IP="192.0.2.2"))  # same proxy, other client


def test_a_forwarded_for_list_counts_its_last_address_the_one_the_proxy_saw(settings):
    settings.ARRIVAL_RATE = "1/m"
    settings.RATELIMIT_IP_META_KEY = "HTTP_X_FORWARDED_FOR"
    assert arrival_allowed(_arrival("10.0.0.9", HTTP_X_FORWARDED_FOR="1.1.1.1, 192.0.2.1"))
    # the client made up a new first address: still the same client
    assert not arrival_allowed(_arrival("10.0.0.9", HTTP_X_FORWARDED_FOR="8.8.8.8, 192.0.2.1"))


def test_retry_after_is_one_period_of_the_rate(settings):
    settings.ARRIVAL_RATE = "30/m"
    assert retry_after_seconds() == 60
    settings.ARRIVAL_RATE = "100/5m"
    assert retry_after_seconds() == 300
