"""A real Celery worker process on the configured broker, sharing the test database (PostgreSQL)."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import connection

from config.celery import app

ROOT = Path(__file__).resolve().parent.parent


def database_url() -> str:
    """The test database as a DATABASE_URL, for processes started by a test."""
    db = connection.settings_dict
    user = db["USER"] or ""
    auth = f"{user}:{db['PASSWORD']}@" if db["PASSWORD"] else (f"{user}@" if user else "")
    return f"postgres://{auth}{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@contextmanager
def celery_worker(log_path: Path, env: dict[str, str]) -> Iterator[subprocess.Popen]:
    """Start `celery worker` with the test database and these environment variables; tasks sent by this
    process go to it until the block ends. The worker's log is written to log_path."""
    app.conf.task_always_eager = False
    app.control.purge()
    name = f"test-{os.getpid()}-{time.monotonic_ns()}@localhost"
    full_env = {**os.environ, "DATABASE_URL": database_url(), "DJANGO_SETTINGS_MODULE": "config.settings", **env}
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "--loglevel=INFO",
             "--without-gossip", "--without-mingle", "-n", name],
            cwd=ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 60
            while not app.control.ping(destination=[name], timeout=0.5):
                assert process.poll() is None, log_path.read_text()
                assert time.monotonic() < deadline, "the Celery worker did not answer within 60 s"
            yield process
        finally:
            process.terminate()
            process.wait(timeout=30)
