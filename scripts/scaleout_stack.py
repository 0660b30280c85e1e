"""The processes of the scale-out run (scripts/scaleout.py): two gunicorn web nodes, HAProxy in front of them, two
Celery workers, moto's S3 server; each in its own process group with its own VAR_DIR and log under the run's
folder. The database is dropped and created afresh, the Redis database flushed. `Stack.stop()` ends every process
it started (SIGTERM, then SIGKILL), whatever happened before."""
from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import string
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"  # Debian's package (scripts/install-system-deps.sh)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def recreate_database(url: str) -> None:
    """DROP (closing its connections) and CREATE the database named in `url`, on the same server."""
    import psycopg2

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    if not name or not all(c in string.ascii_letters + string.digits + "_" for c in name):
        raise SystemExit(f"the scale-out database name {name!r} must be letters, digits and _")
    connection = psycopg2.connect(host=parts.hostname, port=parts.port or 5432, user=parts.username,
                                  password=parts.password, dbname="postgres", connect_timeout=5)
    connection.autocommit = True
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        cursor.execute(f'CREATE DATABASE "{name}"')
    connection.close()


def flush_redis(url: str) -> None:
    import redis

    redis.Redis.from_url(url, socket_connect_timeout=5).flushdb()


@dataclass
class Process:
    name: str
    popen: subprocess.Popen[bytes]
    log: Path
    killed_at: float | None = None

    def alive(self) -> bool:
        return self.popen.poll() is None

    def kill(self) -> None:
        """SIGKILL to the whole process group (gunicorn's master and workers, Celery's main process and pool)."""
        self.killed_at = time.monotonic()
        os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait(timeout=10)


@dataclass
class Stack:
    run_dir: Path
    database_url: str
    redis_url: str
    web_concurrency: int = 2
    processes: dict[str, Process] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)
    secret_key: str = field(default_factory=lambda: secrets.token_urlsafe(50))
    bucket: str = "scaleout"

    def __post_init__(self) -> None:
        self.ports["balancer"] = free_port()  # known before the web nodes start: their PUBLIC_BASE_URL

    @property
    def balancer(self) -> str:
        return f"http://127.0.0.1:{self.ports['balancer']}"

    @property
    def s3_endpoint(self) -> str:
        return f"http://127.0.0.1:{self.ports['s3']}"

    def environment(self, prolific: dict[str, str]) -> dict[str, str]:
        """What every web and worker process gets: the deployment's settings (DEBUG off, a real signing key,
        PostgreSQL, Redis as broker and cache, S3), addresses behind the balancer, and the fake Prolific."""
        env = {name: value for name, value in os.environ.items()
               if not name.startswith(("AWS_", "PROLIFIC_", "DJANGO_", "CELERY_", "CACHE_", "DATABASE_"))}
        env.update({
            "DEBUG": "0", "SECRET_KEY": self.secret_key, "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": self.database_url, "CELERY_BROKER_URL": self.redis_url, "CACHE_URL": self.redis_url,
            "AWS_STORAGE_BUCKET_NAME": self.bucket, "AWS_S3_ENDPOINT_URL": self.s3_endpoint,
            "AWS_S3_REGION_NAME": "us-east-1", "AWS_ACCESS_KEY_ID": "scaleout", "AWS_SECRET_ACCESS_KEY": "scaleout",
            "PUBLIC_BASE_URL": self.balancer, "ALLOWED_HOSTS": "127.0.0.1,localhost",
            # Behind HAProxy: the client address is the last one of X-Forwarded-For (HAProxy appends it). Every
            # simulated worker comes from 127.0.0.1, so the arrival limit is raised for the run.
            "RATELIMIT_IP_META_KEY": "HTTP_X_FORWARDED_FOR", "ARRIVAL_RATE": "10000/m",
            "STORY_SCORES_AFTER_APPROVAL": "0", "LOG_LEVEL": "INFO", "PYTHONUNBUFFERED": "1",
            # Leases and the sweeper on a scale the run can wait for: a killed worker's job is taken up by the
            # other worker within about lease + sweep seconds (the defaults are 120 s and 60 s).
            "JOB_LEASE_SECONDS": "8", "JOB_SWEEP_SECONDS": "3",
            **prolific,
        })
        return env

    # ---- starting -------------------------------------------------------------------------------------------
    def _spawn(self, name: str, command: list[str], env: dict[str, str]) -> Process:
        log = self.run_dir / f"{name}.log"
        with log.open("wb") as out:
            popen = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                     start_new_session=True)  # its own process group: killed as a whole
        process = Process(name, popen, log)
        self.processes[name] = process
        return process

    def start_s3(self) -> None:
        self.ports["s3"] = free_port()
        self._spawn("s3", [str(BIN / "moto_server"), "-H", "127.0.0.1", "-p", str(self.ports["s3"])], dict(os.environ))
        self._wait_http("s3", f"{self.s3_endpoint}/", ok=lambda status: status < 500)
        import boto3

        boto3.client("s3", endpoint_url=self.s3_endpoint, region_name="us-east-1", aws_access_key_id="scaleout",
                     aws_secret_access_key="scaleout").create_bucket(Bucket=self.bucket)

    def start_web(self, name: str, env: dict[str, str]) -> None:
        port = self.ports[name] = free_port()
        var_dir = self.run_dir / name / "var"
        var_dir.mkdir(parents=True)
        self._spawn(name, [str(BIN / "gunicorn"), "config.wsgi", "-c", "config/gunicorn.conf.py",
                           "-b", f"127.0.0.1:{port}", "--access-logfile", "-"],
                    {**env, "VAR_DIR": str(var_dir), "WEB_CONCURRENCY": str(self.web_concurrency)})

    def start_worker(self, name: str, env: dict[str, str]) -> None:
        var_dir = self.run_dir / name / "var"
        var_dir.mkdir(parents=True)
        self._spawn(name, [sys.executable, "-m", "celery", "-A", "config", "worker", "--concurrency=1",
                           "--loglevel=INFO", "--without-gossip", "--without-mingle", "-n", f"{name}@scaleout"],
                    {**env, "VAR_DIR": str(var_dir), "DATABASE_STATEMENT_TIMEOUT_MS": "0"})

    def start_beat(self, env: dict[str, str]) -> None:
        """Celery beat (exactly one in a deployment): the periodic tasks, the job sweeper among them."""
        var_dir = self.run_dir / "beat" / "var"
        var_dir.mkdir(parents=True)
        self._spawn("beat", [sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel=INFO",
                             "--schedule", str(var_dir / "celerybeat-schedule")], {**env, "VAR_DIR": str(var_dir)})

    def start_balancer(self, webs: list[str]) -> None:
        servers = "\n".join(f"    server {name} 127.0.0.1:{self.ports[name]} check" for name in webs)
        template = string.Template((ROOT / "scripts" / "scaleout_haproxy.cfg").read_text())
        config = self.run_dir / "haproxy.cfg"
        config.write_text(template.substitute(port=self.ports["balancer"], servers=servers,
                                              stats_socket=self.run_dir / "haproxy.sock"))
        self._spawn("haproxy", [HAPROXY, "-f", str(config), "-db"], dict(os.environ))

    def wait_ready(self, webs: list[str], workers: list[str], timeout: float = 90) -> None:
        for name in webs:
            self._wait_http(name, f"http://127.0.0.1:{self.ports[name]}/readyz", timeout=timeout)
        deadline = time.monotonic() + timeout
        while set(self.servers_up()) != set(webs):
            self._check_alive("haproxy")
            if time.monotonic() > deadline:
                raise SystemExit(f"HAProxy does not see {webs} up: {self.server_states()}")
            time.sleep(0.2)
        for name in workers:
            while b"ready." not in self.processes[name].log.read_bytes():
                self._check_alive(name)
                if time.monotonic() > deadline:
                    raise SystemExit(f"the Celery worker {name} was not ready within {timeout:.0f} s")
                time.sleep(0.2)

    def _check_alive(self, name: str) -> None:
        process = self.processes[name]
        if not process.alive():
            tail = process.log.read_text(errors="replace")[-3000:]
            raise SystemExit(f"{name} exited with {process.popen.returncode}; its log ends with:\n{tail}")

    def _wait_http(self, name: str, url: str, timeout: float = 60, ok=lambda status: status == 200) -> None:
        deadline = time.monotonic() + timeout
        while True:
            self._check_alive(name)
            try:
                with urllib.request.urlopen(url, timeout=2) as answer:
                    if ok(answer.status):
                        return
            except urllib.error.HTTPError as exc:
                if ok(exc.code):
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit(f"{name} did not answer {url} within {timeout:.0f} s")
            time.sleep(0.2)

    # ---- HAProxy's view -------------------------------------------------------------------------------------
    def server_states(self) -> dict[str, str]:
        """Each web node's status as HAProxy sees it (UP, DOWN, ...), from its stats socket."""
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(2)
            sock.connect(str(self.run_dir / "haproxy.sock"))
            sock.sendall(b"show stat\n")
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        lines = data.decode().splitlines()
        header = lines[0].lstrip("# ").split(",")
        rows = [dict(zip(header, line.split(","), strict=False)) for line in lines[1:] if line]
        return {row["svname"]: row["status"] for row in rows
                if row.get("pxname") == "web" and row["svname"] not in ("BACKEND", "FRONTEND")}

    def servers_up(self) -> list[str]:
        return [name for name, state in self.server_states().items() if state.startswith("UP")]

    # ---- stopping -------------------------------------------------------------------------------------------
    def stop(self) -> None:
        """SIGTERM every living process group started here, then SIGKILL what is left after 15 s."""
        living = [p for p in self.processes.values() if p.alive()]
        for process in living:
            try:
                os.killpg(process.popen.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 15
        for process in living:
            try:
                process.popen.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(process.popen.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.popen.wait(timeout=10)


def database_url_named(base: str, name: str) -> str:
    return urlunsplit(urlsplit(base)._replace(path=f"/{name}"))
