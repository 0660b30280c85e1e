"""Login throttling (django-axes): the login page and the admin's lock a username from one address after
LOGIN_FAILURE_LIMIT wrong passwords, log it, show it to staff, and lift it after the cool-off."""
from __future__ import annotations

import logging
from datetime import timedelta

import pytest
import time_machine
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

pytestmark = pytest.mark.django_db

PASSWORD = "the-right-pass-42"


@pytest.fixture
def staff_user():
    return get_user_model().objects.create_user("carol", password=PASSWORD, is_staff=True, is_superuser=True)


def _login(client, url: str, password: str, username: str = "carol", ip: str = "203.0.113.7"):
    return client.post(url, {"username": username, "password": password}, REMOTE_ADDR=ip)


def _fail_until_locked(client, url: str) -> None:
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _login(client, url, "wrong-password")


@pytest.mark.parametrize("url_name", ["login", "admin:login"])
def test_the_right_password_is_refused_after_the_failure_limit(client, staff_user, url_name):
    url = reverse(url_name)
    _fail_until_locked(client, url)
    response = _login(client, url, PASSWORD)
    assert response.status_code == 429
    page = response.content.decode()
    assert "Too many login attempts" in page and "carol" in page
    assert "_auth_user_id" not in client.session
    assert client.get(reverse("dashboard")).status_code == 302  # not logged in


def test_fewer_failures_than_the_limit_still_log_in(client, staff_user):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _login(client, reverse("login"), "wrong-password").status_code == 200
    assert _login(client, reverse("login"), PASSWORD).status_code == 302
    assert client.get(reverse("dashboard")).status_code == 200


def test_the_lock_is_per_username_and_address(client, staff_user):
    get_user_model().objects.create_user("dave", password=PASSWORD, is_staff=True)
    _fail_until_locked(client, reverse("login"))
    assert _login(client, reverse("login"), PASSWORD, ip="198.51.100.9").status_code == 302  # carol elsewhere
    client.logout()
    assert _login(client, reverse("login"), PASSWORD, username="dave").status_code == 302  # dave, same address


def test_the_lock_lifts_after_the_cool_off(client, staff_user):
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        _fail_until_locked(client, reverse("login"))
        assert _login(client, reverse("login"), PASSWORD).status_code == 429
        traveller.shift(settings.AXES_COOLOFF_TIME + timedelta(seconds=1))
        assert _login(client, reverse("login"), PASSWORD).status_code == 302


def test_a_lock_out_is_logged_and_listed_for_staff(client, staff_user, caplog):
    with caplog.at_level(logging.WARNING, logger="axes"):
        _fail_until_locked(client, reverse("login"))
    assert any("Locking out" in record.getMessage() and "carol" in record.getMessage() for record in caplog.records)
    attempt = AccessAttempt.objects.get(username="carol", ip_address="203.0.113.7")
    assert attempt.failures_since_start == settings.AXES_FAILURE_LIMIT

    client.force_login(staff_user)
    admin_list = client.get(reverse("admin:axes_accessattempt_changelist")).content.decode()
    assert "carol" in admin_list and "203.0.113.7" in admin_list


def test_the_dashboard_tells_staff_about_current_lock_outs(client, staff_user):
    client.force_login(staff_user)
    assert "locked out" not in client.get(reverse("dashboard")).content.decode()
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        _fail_until_locked(client, reverse("login"))
        assert "1 login(s) locked out" in client.get(reverse("dashboard")).content.decode()
        traveller.shift(settings.AXES_COOLOFF_TIME + timedelta(seconds=1))
        assert "locked out" not in client.get(reverse("dashboard")).content.decode()
