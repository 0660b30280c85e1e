"""The database connection settings: the URL, plus the timeouts that make a frozen PostgreSQL fail fast."""
from __future__ import annotations

import dj_database_url
from dj_database_url import DBConfig


def database_settings(
    url: str, *, conn_max_age: int, connect_timeout: int, statement_timeout_ms: int
) -> DBConfig:
    """Django's DATABASES["default"] for `url`. On PostgreSQL a connection attempt gives up after
    `connect_timeout` seconds and every statement (lock waits included) after `statement_timeout_ms`
    milliseconds (0: no limit), so a frozen server makes requests fail instead of hanging."""
    config = dj_database_url.parse(url, conn_max_age=conn_max_age)
    if config["ENGINE"] == "django.db.backends.postgresql":
        options = config.setdefault("OPTIONS", {})
        if connect_timeout > 0:
            options["connect_timeout"] = connect_timeout
        if statement_timeout_ms > 0:
            options["options"] = f"-c statement_timeout={statement_timeout_ms}"
    return config
