"""The database connection settings: the URL, persistent connections with health checks, and the timeouts that
make a frozen PostgreSQL fail fast."""
from __future__ import annotations

import dj_database_url
from dj_database_url import DBConfig

# PostgreSQL: a connection is kept and reused for this many seconds (opening one costs more than a submission).
POSTGRESQL_CONN_MAX_AGE = 600


def database_settings(
    url: str, *, conn_max_age: int | None = None, connect_timeout: int, statement_timeout_ms: int
) -> DBConfig:
    """Django's DATABASES["default"] for `url`. A connection is reused for `conn_max_age` seconds (None: 600 on
    PostgreSQL, 0 on SQLite, where opening one is cheap) and checked before it is reused in a new request, so a
    connection the server dropped is replaced instead of failing the request. On PostgreSQL a connection attempt
    gives up after `connect_timeout` seconds and every statement (lock waits included) after
    `statement_timeout_ms` milliseconds (0: no limit), so a frozen server makes requests fail instead of hanging."""
    is_postgresql = dj_database_url.parse(url)["ENGINE"] == "django.db.backends.postgresql"
    if conn_max_age is None:
        conn_max_age = POSTGRESQL_CONN_MAX_AGE if is_postgresql else 0
    config = dj_database_url.parse(url, conn_max_age=conn_max_age, conn_health_checks=True)
    if is_postgresql:
        options = config.setdefault("OPTIONS", {})
        if connect_timeout > 0:
            options["connect_timeout"] = connect_timeout
        if statement_timeout_ms > 0:
            options["options"] = f"-c statement_timeout={statement_timeout_ms}"
    return config
