"""Open-loop load benchmark of task submissions (POST /task/submit/) against gunicorn + PostgreSQL, with
GET /healthz on the same server as the yardstick.

Run (needs a PostgreSQL server; DATABASE_URL names it, the database name in it is replaced):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/submission_load.py \
        [--rates 50,100,200,400,800] [--duration 10] [--runs 3] [--targets submit,healthz]

What it does: creates a throw-away database (`--database`, dropped at the end), migrates it, makes a
`describe_image` campaign and one accepted assignment (the rows the campaign link's service writes, bulk-inserted)
with its signed token per submission to come (runs x rates x duration), then starts gunicorn as docs/deployment.md says
(`gunicorn config.wsgi -c config/gunicorn.conf.py`, persistent database connections, no DEBUG) on a free loopback
port. For every run, target and rate it sends `rate x duration` requests (at most `--max-requests`) at their
scheduled times, t0 + i / rate, whatever the answers (open loop: a slow server does not slow the sender down), each
submission with its own token and a valid answer. Latency is measured from the scheduled send time, so queueing in
the server (or in the sender) shows. A request that fails, times out (`--timeout`) or answers other than 201
(submit) / 200 (healthz) is an error.

Printed per level: offered and achieved rate, p50 / p95 / p99 latency, errors, the CPU of the gunicorn process
tree and of the PostgreSQL server processes (both in cores, 1.0 = one core busy), and the sender's own CPU and
its worst lag behind the schedule (if the sender is near one core or lags, the figures measure the sender). Then
a summary over the runs: median and range of p99 and of the achieved rate, and the highest rate each target
sustains (every run: no error, achieved >= 95 % of offered, p99 <= `--slo-ms`). Loopback only.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
GUNICORN = str(Path(PYTHON).with_name("gunicorn"))
ANSWER_TEXT = "A woman in a red dress walks her brown dog along the beach."


@dataclass
class Level:
    target: str
    run: int
    rate: int
    sent: int
    ok: int
    errors: int
    achieved: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    server_cpu: float
    postgres_cpu: float
    sender_cpu: float
    sender_lag_ms: float


# ---- the throw-away database and the data --------------------------------------------------------------

def database_url(base: str, name: str) -> str:
    parts = urlsplit(base)
    if parts.scheme not in ("postgres", "postgresql"):
        raise SystemExit("DATABASE_URL must name a PostgreSQL server (postgres://user@127.0.0.1:5432/postgres)")
    if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("loopback only: DATABASE_URL must name a PostgreSQL server on this machine")
    return urlunsplit(parts._replace(path=f"/{name}"))


def recreate_database(base: str, name: str, drop_only: bool = False) -> None:
    import psycopg2

    parts = urlsplit(base)
    connection = psycopg2.connect(host=parts.hostname, port=parts.port or 5432, user=parts.username,
                                  password=parts.password, dbname="postgres")
    connection.autocommit = True
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            cursor.execute(f'CREATE DATABASE "{name}"')
    connection.close()


def seed(count: int, out: Path) -> None:
    """(In a process whose DATABASE_URL is the throw-away database.) `count` accepted assignments of
    `describe_image` campaigns of up to 1,000 HITs (one per image) x 10 assignments, each held by its own local
    worker; their signed tokens, one per line, in `out`. The campaigns are created and published by the services;
    the workers and assignments are then bulk-inserted with the rows start_local_task would write (accepted,
    confirmed, a deadline, each HIT's taken-slot counter in step): minutes of seeding become seconds."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from decimal import Decimal

    from django.db import transaction
    from django.db.models import Count, OuterRef, Subquery
    from django.db.models.functions import Coalesce

    from annotation.services.images import import_image_bytes
    from mturk.models import HIT, Assignment, Worker
    from mturk.services.campaigns import create_campaign, publish_campaign
    from mturk.work.tokens import assignment_token
    from tests.factories import image_bytes

    hits_per_campaign, per_hit = 1000, 10
    images = [import_image_bytes(f"picture-{i}.png", image_bytes(size=(160, 120), colour=(i % 256, i // 256, 128)))[0]
              for i in range(min(hits_per_campaign, -(-count // per_hit)))]  # distinct colours: distinct images
    tokens: list[str] = []
    started = time.perf_counter()
    while len(tokens) < count:
        campaign = create_campaign(
            name=f"load-{len(tokens)}", task_kind="describe_image", reward=Decimal("0.05"),
            assignments_per_hit=per_hit, time_limit_seconds=6 * 3600,
            items=[{"image": image.pk} for image in images],
        )
        publish_campaign(campaign)
        campaign.refresh_from_db()
        hits = list(campaign.hits.order_by("position", "id").values_list("pk", flat=True))
        wanted = min(len(hits) * per_hit, count - len(tokens))
        with transaction.atomic():
            workers = Worker.objects.bulk_create(
                [Worker(provider="local", external_id="L" + secrets.token_hex(8).upper()) for _ in range(wanted)],
                batch_size=2000)
            deadline = Assignment.deadline_for(campaign)
            assignments = Assignment.objects.bulk_create(
                [Assignment(hit_id=hits[i % len(hits)], worker=worker, deadline=deadline)
                 for i, worker in enumerate(workers)], batch_size=2000)
            taken = (Assignment.objects.filter(hit=OuterRef("pk")).order_by().values("hit")
                     .annotate(n=Count("pk")).values("n"))
            HIT.objects.filter(campaign=campaign).update(taken_slots=Coalesce(Subquery(taken), 0))
        tokens += [assignment_token(a.pk, a.worker.external_id) for a in assignments]
        print(f"  {len(tokens)} / {count} assignments ready ({time.perf_counter() - started:.0f} s)", flush=True)
    out.write_text("\n".join(tokens) + "\n")


# ---- the server --------------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(env: dict[str, str], port: int, extra: list[str]) -> subprocess.Popen[bytes]:
    command = [GUNICORN, "config.wsgi", "-c", "config/gunicorn.conf.py", "-b", f"127.0.0.1:{port}", *extra]
    print("  $ " + " ".join(command), flush=True)
    log = tempfile.NamedTemporaryFile("wb", prefix="submission-load-gunicorn-", suffix=".log", delete=False)
    print(f"  gunicorn's log: {log.name}", flush=True)
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"gunicorn exited with {server.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as probe:
                probe.sendall(b"GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                if b" 200 " in probe.recv(64):
                    return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise SystemExit("gunicorn did not answer within 60 s")


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a process and its living children."""
    import psutil

    total = 0.0
    try:
        root = psutil.Process(pid)
        for process in [root, *root.children(recursive=True)]:
            times = process.cpu_times()
            total += times.user + times.system
    except psutil.NoSuchProcess:
        pass
    return total


def postgres_cpu() -> float:
    """CPU seconds of the PostgreSQL server processes on this machine (the connection backends included)."""
    import psutil

    total = 0.0
    for process in psutil.process_iter(["name", "cpu_times"]):
        if process.info["name"] in ("postgres", "postmaster") and process.info["cpu_times"] is not None:
            total += process.info["cpu_times"].user + process.info["cpu_times"].system
    return total


# ---- the open-loop sender ----------------------------------------------------------------------------------

async def send_level(base_url: str, target: str, rate: int, tokens: list[str], timeout: float,
                     connections: int) -> tuple[list[float], int, float, float, float]:
    """Sends len(tokens) requests (or `rate x duration` for healthz, tokens then being placeholders) at t0 + i / rate.
    Returns the latencies of the successes (s, from the scheduled time), the error count, the time from t0 to the
    last answer, the sender's worst lag behind the schedule and its CPU seconds."""
    import aiohttp

    count = len(tokens)
    latencies: list[float] = []
    errors = 0
    last_done = 0.0
    worst_lag = 0.0
    url = base_url + ("/task/submit/" if target == "submit" else "/healthz")
    expected = 201 if target == "submit" else 200
    connector = aiohttp.TCPConnector(limit=connections, ttl_dns_cache=None, force_close=False)
    client_timeout = aiohttp.ClientTimeout(total=timeout)
    cpu_before = time.process_time()
    async with aiohttp.ClientSession(connector=connector, timeout=client_timeout) as session:
        loop = asyncio.get_running_loop()
        t0 = loop.time() + 0.05

        async def one(index: int, scheduled: float) -> None:
            nonlocal errors, last_done, worst_lag
            worst_lag = max(worst_lag, loop.time() - scheduled)
            try:
                if target == "submit":
                    body = json.dumps({"token": tokens[index], "answer": {"text": ANSWER_TEXT}})
                    request = session.post(url, data=body, headers={"Content-Type": "application/json"})
                else:
                    request = session.get(url)
                async with request as response:
                    await response.read()
                    status = response.status
            except (TimeoutError, aiohttp.ClientError, OSError):
                status = 0
            done = loop.time()
            last_done = max(last_done, done - t0)
            if status == expected:
                latencies.append(done - scheduled)
            else:
                errors += 1

        pending: set[asyncio.Task[None]] = set()
        for index in range(count):
            scheduled = t0 + index / rate
            delay = scheduled - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            task = asyncio.create_task(one(index, scheduled))
            pending.add(task)
            task.add_done_callback(pending.discard)
        if pending:
            await asyncio.wait(pending)
    return latencies, errors, last_done, worst_lag, time.process_time() - cpu_before


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def run_level(base_url: str, server_pid: int, target: str, run: int, rate: int, tokens: list[str],
              args: argparse.Namespace) -> Level:
    server_before, postgres_before, wall_before = tree_cpu(server_pid), postgres_cpu(), time.perf_counter()
    latencies, errors, elapsed, lag, sender_cpu = asyncio.run(
        send_level(base_url, target, rate, tokens, args.timeout, args.connections))
    wall = time.perf_counter() - wall_before
    server, postgres = tree_cpu(server_pid) - server_before, postgres_cpu() - postgres_before
    level = Level(
        target=target, run=run, rate=rate, sent=len(tokens), ok=len(latencies), errors=errors,
        achieved=len(latencies) / elapsed if elapsed else 0.0,
        p50_ms=percentile(latencies, 50) * 1000, p95_ms=percentile(latencies, 95) * 1000,
        p99_ms=percentile(latencies, 99) * 1000,
        server_cpu=server / wall, postgres_cpu=postgres / wall, sender_cpu=sender_cpu / wall,
        sender_lag_ms=lag * 1000,
    )
    print(f"  {target:7} run {run} {rate:5}/s: achieved {level.achieved:7.1f}/s  p50 {level.p50_ms:8.1f}  "
          f"p95 {level.p95_ms:8.1f}  p99 {level.p99_ms:8.1f} ms  errors {errors:5}  "
          f"CPU gunicorn {level.server_cpu:4.2f} postgres {level.postgres_cpu:4.2f} "
          f"sender {level.sender_cpu:4.2f} (lag {level.sender_lag_ms:.1f} ms)", flush=True)
    return level


def summarize(levels: list[Level], slo_ms: float) -> None:
    print("\nsummary (median [min-max] over the runs):")
    print(f"{'target':8} {'offered/s':>9} {'achieved/s':>22} {'p99 ms':>26} {'errors':>7} "
          f"{'gunicorn CPU':>12} {'postgres CPU':>12} {'sender CPU':>10}")
    highest: dict[str, int] = {}
    for target in dict.fromkeys(level.target for level in levels):
        for rate in sorted({level.rate for level in levels if level.target == target}):
            same = [level for level in levels if level.target == target and level.rate == rate]
            achieved = [level.achieved for level in same]
            p99 = [level.p99_ms for level in same]
            print(f"{target:8} {rate:9} {statistics.median(achieved):8.1f} [{min(achieved):6.1f}-{max(achieved):6.1f}] "
                  f"{statistics.median(p99):9.1f} [{min(p99):7.1f}-{max(p99):7.1f}] "
                  f"{sum(level.errors for level in same):7} "
                  f"{statistics.median(level.server_cpu for level in same):12.2f} "
                  f"{statistics.median(level.postgres_cpu for level in same):12.2f} "
                  f"{statistics.median(level.sender_cpu for level in same):10.2f}")
            if all(level.errors == 0 and level.achieved >= 0.95 * rate and level.p99_ms <= slo_ms for level in same):
                highest[target] = rate
    for target in dict.fromkeys(level.target for level in levels):
        print(f"highest sustained rate of {target} (no error, >= 95 % achieved, p99 <= {slo_ms:g} ms, every run): "
              f"{highest.get(target, 0)}/s")
    if "submit" in highest and highest.get("healthz"):
        print(f"submit / healthz: {highest['submit'] / highest['healthz']:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rates", default="50,100,200,400,800", help="offered requests per second, comma-separated")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per level")
    parser.add_argument("--max-requests", type=int, default=20_000, help="at most this many requests per level")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--targets", default="submit,healthz")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds before a request counts as an error")
    parser.add_argument("--connections", type=int, default=256, help="most connections the sender opens at once")
    parser.add_argument("--slo-ms", type=float, default=50.0, help="p99 a rate must stay under to count as sustained")
    parser.add_argument("--warmup", type=int, default=200, help="submissions sent first and not reported")
    parser.add_argument("--pause", type=float, default=2.0, help="seconds of rest between levels")
    parser.add_argument("--database", default="bench_submission_load", help="the throw-away database's name")
    parser.add_argument("--gunicorn-arg", action="append", default=[],
                        help="an extra gunicorn argument (repeatable), e.g. --gunicorn-arg=--threads=4")
    parser.add_argument("--seed", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.seed is not None:
        seed(args.seed, args.out)
        return

    rates = [int(rate) for rate in args.rates.split(",")]
    targets = [target.strip() for target in args.targets.split(",")]
    if not set(targets) <= {"submit", "healthz"}:
        raise SystemExit("--targets: submit and/or healthz")
    per_level = {rate: min(args.max_requests, round(rate * args.duration)) for rate in rates}
    needed = args.runs * sum(per_level.values()) + args.warmup if "submit" in targets else 0
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    url = database_url(base, args.database)
    env = {key: value for key, value in os.environ.items() if key not in ("DEBUG", "DATABASE_CONN_MAX_AGE")}
    env.update(DATABASE_URL=url, SECRET_KEY=secrets.token_urlsafe(50), DJANGO_SETTINGS_MODULE="config.settings",
               MEDIA_ROOT=tempfile.mkdtemp(prefix="submission-load-media-"), LOG_LEVEL="WARNING")
    env.pop("CELERY_BROKER_URL", None)  # the data is made in-process; a submission sends no background task

    print(f"throw-away database {args.database}: migrate, then {needed} accepted assignments", flush=True)
    recreate_database(base, args.database)
    server: subprocess.Popen[bytes] | None = None
    try:
        subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True,
                       env={**env, "DATABASE_STATEMENT_TIMEOUT_MS": "0"})
        with tempfile.NamedTemporaryFile("r", suffix=".tokens") as token_file:
            if needed:
                subprocess.run([PYTHON, __file__, "--seed", str(needed), "--out", token_file.name], cwd=ROOT,
                               check=True, env={**env, "DATABASE_STATEMENT_TIMEOUT_MS": "0"})
            tokens = token_file.read().split()
        port = free_port()
        server = start_server(env, port, args.gunicorn_arg)
        base_url = f"http://127.0.0.1:{port}"
        # Warm-up, not reported: every worker process imports the views and opens its connections.
        warmup, tokens = tokens[:args.warmup], tokens[args.warmup:]
        asyncio.run(send_level(base_url, "healthz", 100, ["-"] * 200, args.timeout, args.connections))
        if warmup:
            asyncio.run(send_level(base_url, "submit", 50, warmup, args.timeout, args.connections))
        levels: list[Level] = []
        for run in range(1, args.runs + 1):
            for target in targets:
                for rate in rates:
                    if target == "submit":
                        batch, tokens = tokens[:per_level[rate]], tokens[per_level[rate]:]
                    else:
                        batch = ["-"] * per_level[rate]
                    levels.append(run_level(base_url, server.pid, target, run, rate, batch, args))
                    time.sleep(args.pause)
        summarize(levels, args.slo_ms)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        recreate_database(base, args.database, drop_only=True)


if __name__ == "__main__":
    main()
