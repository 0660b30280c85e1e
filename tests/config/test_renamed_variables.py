"""A renamed environment variable: the new name wins, the deprecated one is read while the new one is unset, and
the system checks warn while the deprecated one is set."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from config.checks import renamed_variables_check
from config.env import env_int_renamed


@pytest.mark.parametrize(("environ", "expected"), [
    ({}, 300),
    ({"MTURK_SYNC_SECONDS": "120"}, 120),
    ({"MARKETPLACE_SYNC_SECONDS": "60"}, 60),
    ({"MARKETPLACE_SYNC_SECONDS": "60", "MTURK_SYNC_SECONDS": "120"}, 60),
    ({"MARKETPLACE_SYNC_SECONDS": "", "MTURK_SYNC_SECONDS": "120"}, 120),
])
def test_the_new_name_wins_and_the_old_one_is_the_fallback(monkeypatch, environ, expected):
    for name in ("MARKETPLACE_SYNC_SECONDS", "MTURK_SYNC_SECONDS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert env_int_renamed("MARKETPLACE_SYNC_SECONDS", 300) == expected


def test_the_checks_warn_while_the_old_name_is_set(monkeypatch):
    monkeypatch.delenv("MTURK_SYNC_SECONDS", raising=False)
    assert renamed_variables_check(None) == []
    monkeypatch.setenv("MTURK_SYNC_SECONDS", "120")
    [warning] = renamed_variables_check(None)
    assert warning.id == "config.W001"
    assert "MTURK_SYNC_SECONDS is deprecated: set MARKETPLACE_SYNC_SECONDS" in warning.msg


def test_the_beat_schedule_takes_the_old_name_when_the_new_one_is_unset(monkeypatch):
    code = ("import django; django.setup(); from django.conf import settings; "
            "print(settings.MARKETPLACE_SYNC_SECONDS, settings.CELERY_BEAT_SCHEDULE['sync-marketplaces']['schedule'])")
    environ = {name: value for name, value in os.environ.items() if name != "MARKETPLACE_SYNC_SECONDS"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**environ, "MTURK_SYNC_SECONDS": "45", "DJANGO_SETTINGS_MODULE": "config.settings"})
    assert result.stdout.split() == ["45", "45.0"]
