"""What the database benchmarks share: Django on a throw-away database, and a query counter.

The database is the configured server's test database (DATABASE_URL), or an in-memory SQLite one;
media go to a temporary folder. Nothing of the project's own data is touched."""
from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def throwaway_database() -> Iterator[None]:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("MEDIA_ROOT", tempfile.mkdtemp())
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    settings.ALLOWED_HOSTS = ["testserver"]
    old = connection.creation.create_test_db(verbosity=0)
    try:
        yield
    finally:
        connection.creation.destroy_test_db(old, verbosity=0)


def count_queries(connection: Any, call: Callable[[], object]) -> int:
    """SQL statements executed by one call (request signals reset Django's own query log)."""
    executed: list[str] = []

    def wrapper(execute, sql, params, many, context):
        executed.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        call()
    return len(executed)
