"""Gunicorn's configuration for the web processes: `gunicorn config.wsgi -c config/gunicorn.conf.py -b HOST:PORT`.

Each value can be changed from the environment (WEB_CONCURRENCY, WEB_THREADS, WEB_TIMEOUT, WEB_KEEPALIVE) or on
the command line after `-c` (`--workers 8`). Every thread holds one persistent database connection
(DATABASE_CONN_MAX_AGE), so workers x threads, plus the Celery workers' concurrency, must stay under
PostgreSQL's max_connections (100 by default)."""
from __future__ import annotations

import math
import os
from pathlib import Path

from common.observability.logs import default_log_format


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    return int(raw) if raw.strip() else default


# Sync processes with a few threads each: a submission spends part of its time waiting for PostgreSQL, which
# another thread of the same process uses; processes (one per core and one more) use every core despite the GIL;
# threads also keep HTTP connections alive between requests (the sync worker closes each one).
workers = _int("WEB_CONCURRENCY", 2 * (os.cpu_count() or 1) + 1)
threads = _int("WEB_THREADS", 4)
worker_class = "gthread"

# A request's database work is bounded by DATABASE_CONNECT_TIMEOUT + DATABASE_STATEMENT_TIMEOUT_MS (it then answers
# 503); the worker timeout is longer, so that gunicorn restarts only a process whose main loop is stuck.
_statement_seconds = math.ceil(_int("DATABASE_STATEMENT_TIMEOUT_MS", 30_000) / 1000)
timeout = _int("WEB_TIMEOUT", max(60, _statement_seconds + _int("DATABASE_CONNECT_TIMEOUT", 5) + 25))
graceful_timeout = 30
keepalive = _int("WEB_KEEPALIVE", 5)  # seconds an idle client connection is kept (behind a proxy: its idle timeout)

# Heartbeat files on a memory file system: a slow disk must not get workers killed.
if Path("/dev/shm").is_dir():
    worker_tmp_dir = "/dev/shm"

# Gunicorn's own lines (start, worker timeouts) as JSON objects when the application's are (LOG_FORMAT, the same
# default: common.observability.logs); the application logs one line per request itself, so no access log here.
_debug = os.environ.get("DEBUG", "").strip().lower() in {"1", "true", "yes", "on"}
if (os.environ.get("LOG_FORMAT", "") or default_log_format(_debug)) == "json":
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"generic": {
            "()": "pythonjsonlogger.json.JsonFormatter", "fmt": "%(levelname)s %(name)s %(message)s",
            "rename_fields": {"levelname": "level", "name": "logger"}, "timestamp": "time",
        }},
    }


# Prometheus's multiprocess mode (PROMETHEUS_MULTIPROC_DIR, one directory for this server's processes): the files
# of a previous run are removed at start, and a finished worker's live values are dropped.
def on_starting(server: object) -> None:
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
    if directory:
        Path(directory).mkdir(parents=True, exist_ok=True)
        for stale in Path(directory).glob("*.db"):
            stale.unlink()


def child_exit(server: object, worker: object) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR", ""):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[attr-defined]
