"""Whether a Celery worker can work: it reaches the broker and the database. Checked without `celery inspect ping`
(a round trip through the broker and a busy worker's pool is too slow and too fragile for a probe): by
`manage.py check_worker_health` (exit status) and by the worker's own small HTTP server (WORKER_HEALTH_PORT):
GET /healthz (the worker process answers), /readyz (broker and database: 200 "ok", else 503 naming what fails),
/metrics (the worker's jobs, with the token)."""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from celery import current_app as app
from django.db import connection

from common.health import database_ready

from .metrics_view import PATH as METRICS_PATH
from .metrics_view import metrics_answer

logger = logging.getLogger(__name__)

BROKER_TIMEOUT_SECONDS = 3.0


@dataclass(frozen=True)
class WorkerHealth:
    broker: bool
    database: bool

    @property
    def ok(self) -> bool:
        return self.broker and self.database

    def describe(self) -> str:
        failing = [name for name, up in (("broker", self.broker), ("database", self.database)) if not up]
        return "ok" if not failing else " and ".join(failing) + " unavailable"


def broker_reachable() -> bool:
    """A connection to CELERY_BROKER_URL opens (Redis: it answers PING); no broker (in-process tasks) is fine."""
    if app.conf.task_always_eager:
        return True
    try:
        with app.connection_for_write(connect_timeout=BROKER_TIMEOUT_SECONDS) as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0)
            conn.default_channel  # noqa: B018  (Redis's channel pings the server when it opens)
    except Exception as exc:  # noqa: BLE001  (any transport's failure means the same)
        logger.warning("worker health: the broker is not answering: %s", exc)
        return False
    return True


def check_worker_health() -> WorkerHealth:
    try:
        return WorkerHealth(broker=broker_reachable(), database=database_ready())
    finally:
        connection.close()  # the probe's thread keeps no database connection


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802  (http.server's name)
        path = self.path.split("?", 1)[0].rstrip("/")
        if path == "/healthz":
            self._answer(200, b"ok")
        elif path == "/readyz":
            health = check_worker_health()
            self._answer(200 if health.ok else 503, health.describe().encode())
        elif path == METRICS_PATH:
            status, body, content_type = metrics_answer(self.headers.get("Authorization"), with_queues=False)
            self._answer(status, body, content_type)
        else:
            self._answer(404, b"not found")

    def _answer(self, status: int, body: bytes, content_type: str = "text/plain; charset=utf-8") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002  (probes are not logged)
        return


def start_health_server(host: str, port: int) -> ThreadingHTTPServer:
    """Serve the worker's probes from a daemon thread of this process; returns the server (its port if 0)."""
    server = ThreadingHTTPServer((host, port), _Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="worker-health", daemon=True).start()
    logger.info("worker health: http://%s:%s/readyz", host, server.server_address[1])
    return server
