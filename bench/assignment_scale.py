"""Benchmark of a worker's arrival (the next HIT) as the campaign grows: 1k / 10k / 100k / 1M HITs.

Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/assignment_scale.py \\
         [--sizes 1000 10000 100000 1000000] [--arrivals 40] [--runs 3]
(PostgreSQL only; a throw-away database, dropped at the end). Every size is a campaign of its own in the
same database (tests/mturk/large_campaign.py: written by the server with generate_series, a second-stage
campaign part-way through, its earlier stage done by the same crowd, then ANALYZE), so the tables hold
all of them (1.1M HITs, about 2M assignments) while each campaign is measured.

An arrival is `start_local_task`, what the campaign link's Start task button runs: half by workers with
work in this campaign and its earlier stage, half by new workers, each a distinct worker in a run; each
assignment is returned afterwards (not timed), so the campaigns stay as built. Measured per arrival: wall
time and database time (the time spent executing its SQL statements, seen from Django). Runs visit the
sizes in turn, one warm-up arrival per campaign first (it also expires the campaign's overdue
assignments); the tables are vacuumed and analyzed once built, so no autovacuum runs while timing; the
ratio to 1k is taken within each run, then the median and range over the runs.
Finally every statement of one arrival per size is explained: any sequential scan of the HIT or
assignment tables is printed."""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ["DATABASE_STATEMENT_TIMEOUT_MS"] = "0"  # building 1M HITs takes longer than a request may
os.environ.pop("CELERY_BROKER_URL", None)

from throwaway import throwaway_database  # noqa: E402  (bench/ is on sys.path as a script)

TABLES = {"mturk_hit", "mturk_assignment"}


Arrivals = dict[str, list[float]]  # one size in one run: "wall" and "db" milliseconds per arrival


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1] if len(values) > 1 else values[0]


class StatementClock:
    """Adds up the time spent executing SQL and keeps the statements (a Django execute wrapper)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.statements: list[str] = []

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seconds += time.perf_counter() - started
            self.statements.append(sql if params is None else context["cursor"].mogrify(sql, params).decode())


def arrive(campaign: Any, worker: Any) -> tuple[float, float, list[str]]:
    """One timed arrival (wall ms, database ms, statements); its assignment is then returned, untimed."""
    from django.db import connection

    from mturk.services.assignments import return_assignment, start_local_task

    clock = StatementClock()
    with connection.execute_wrapper(clock):
        started = time.perf_counter()
        assignment = start_local_task(campaign, worker)
        wall = time.perf_counter() - started
    return_assignment(assignment_id=assignment.pk, worker_external_id=assignment.worker.external_id)
    return wall * 1000, clock.seconds * 1000, clock.statements


def sequential_scans(statements: list[str]) -> list[str]:
    from tests.mturk.large_campaign import explainable, scans_of

    found = []
    for sql in explainable(statements):
        for node in scans_of(sql):
            if node["Node Type"] == "Seq Scan" and node.get("Relation Name") in TABLES:
                found.append(f"{node['Relation Name']}: {sql[:160]}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000, 1_000_000])
    parser.add_argument("--arrivals", type=int, default=40, help="per size and run (half regular, half new)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    sizes = sorted(args.sizes)
    with throwaway_database():
        from django.db import connection

        from mturk.models import HIT, Assignment
        from tests.mturk.large_campaign import build_large_campaign

        if connection.vendor != "postgresql":
            raise SystemExit("assignment_scale needs PostgreSQL: set DATABASE_URL=postgres://...")
        campaigns = {}
        for size in sizes:
            started = time.perf_counter()
            campaigns[size] = build_large_campaign(size, tag=f"s{size}")
            print(f"built {size:>9,} HITs in {time.perf_counter() - started:6.1f} s", flush=True)
        with connection.cursor() as cursor:  # what autovacuum would do next, done before anything is timed
            cursor.execute("VACUUM (ANALYZE) mturk_worker, mturk_hit, mturk_assignment")
        print(f"tables: {HIT.objects.count():,} HITs, {Assignment.objects.count():,} assignments; "
              f"PostgreSQL {connection.cursor().connection.server_version}", flush=True)
        for size in sizes:
            arrive(campaigns[size].campaign, None)  # warm-up; expires the overdue assignments
        regulars = args.arrivals // 2
        runs: list[dict[int, Arrivals]] = []
        for run in range(args.runs):
            measured: dict[int, Arrivals] = {}
            for size in sizes:
                large = campaigns[size]
                crowd = max(10, size // 20)
                wall, db = [], []
                for k in range(args.arrivals):
                    worker = large.seeded_worker(1 + (run * regulars + k) % crowd) if k < regulars else None
                    w, d, _ = arrive(large.campaign, worker)
                    wall.append(w)
                    db.append(d)
                measured[size] = {"wall": wall, "db": db}
            runs.append(measured)
            base = measured[sizes[0]]
            print(f"run {run + 1}: " + "; ".join(
                f"{size:,}: wall {statistics.median(m['wall']):.2f} ms "
                f"(x{statistics.median(m['wall']) / statistics.median(base['wall']):.2f}), db "
                f"{statistics.median(m['db']):.2f} ms"
                for size, m in measured.items()), flush=True)
        verdicts = {size: sequential_scans(arrive(campaigns[size].campaign, None)[2]) for size in sizes}
    print(f"\narrival cost, {args.arrivals} arrivals per size and run, {args.runs} runs "
          f"(median over runs [range]); ratio to {sizes[0]:,} HITs within each run")
    print(f"{'HITs':>10} | {'wall median':>20} | {'wall p90':>20} | {'db median':>20} | {'db p90':>20} | "
          f"{'wall / 1k':>18} | {'db / 1k':>18} | seq scans")
    for size in sizes:
        cells = []
        for key, stat in (("wall", statistics.median), ("wall", p90), ("db", statistics.median), ("db", p90)):
            values = [stat(r[size][key]) for r in runs]
            cells.append(f"{statistics.median(values):6.2f} [{min(values):.2f}-{max(values):.2f}] ms")
        for key in ("wall", "db"):
            ratios = [statistics.median(r[size][key]) / statistics.median(r[sizes[0]][key]) for r in runs]
            cells.append(f"{statistics.median(ratios):5.2f} [{min(ratios):.2f}-{max(ratios):.2f}]")
        verdict = "none" if not verdicts[size] else f"{len(verdicts[size])}: " + " | ".join(verdicts[size])
        print(f"{size:>10,} | {cells[0]:>20} | {cells[1]:>20} | {cells[2]:>20} | {cells[3]:>20} | "
              f"{cells[4]:>18} | {cells[5]:>18} | {verdict}")
    print(f"target: arrival at 100k and 1M HITs within 1.5x of 1k, no sequential scan; "
          f"bench process peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB")


if __name__ == "__main__":
    main()
