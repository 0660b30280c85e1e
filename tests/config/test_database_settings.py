"""Connections: persistent with health checks on PostgreSQL by default, one per request on SQLite."""
from __future__ import annotations

import os
import subprocess
import sys

from config.database import POSTGRESQL_CONN_MAX_AGE, database_settings


def test_postgresql_keeps_connections_and_checks_them_before_reuse():
    config = database_settings("postgres://u@db:5432/n", connect_timeout=5, statement_timeout_ms=30_000)
    assert config["CONN_MAX_AGE"] == POSTGRESQL_CONN_MAX_AGE > 0
    assert config["CONN_HEALTH_CHECKS"] is True


def test_sqlite_opens_a_connection_per_request_by_default():
    config = database_settings("sqlite:////tmp/x.sqlite3", connect_timeout=5, statement_timeout_ms=30_000)
    assert config["CONN_MAX_AGE"] == 0


def test_an_explicit_max_age_wins():
    config = database_settings("postgres://u@db:5432/n", conn_max_age=0, connect_timeout=5, statement_timeout_ms=1)
    assert config["CONN_MAX_AGE"] == 0
    config = database_settings("sqlite:////tmp/x.sqlite3", conn_max_age=60, connect_timeout=5, statement_timeout_ms=1)
    assert config["CONN_MAX_AGE"] == 60


def settings_database(**environ: str) -> str:
    env = {key: value for key, value in os.environ.items() if not key.startswith("DATABASE_")}
    code = ("import django; django.setup(); from django.conf import settings; "
            "d = settings.DATABASES['default']; print(d['CONN_MAX_AGE'], d['CONN_HEALTH_CHECKS'])")
    result = subprocess.run([sys.executable, "-c", code], env={**env, **environ, "DJANGO_SETTINGS_MODULE":
                            "config.settings"}, capture_output=True, text=True, check=True)
    return result.stdout.strip()


def test_the_environment_sets_the_max_age():
    url = "postgres://u@db:5432/n"
    assert settings_database(DATABASE_URL=url) == f"{POSTGRESQL_CONN_MAX_AGE} True"
    assert settings_database(DATABASE_URL=url, DATABASE_CONN_MAX_AGE="0") == "0 True"
    assert settings_database(DATABASE_URL=url, DATABASE_CONN_MAX_AGE="30") == "30 True"
