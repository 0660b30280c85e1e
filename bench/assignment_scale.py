"""Benchmark of a worker's arrival (the next HIT) as the campaign grows, the minute after publishing: 1k / 100k / 1M.

Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/assignment_scale.py \\
         [--sizes 1000 100000 1000000] [--arrivals 36] [--runs 3] [--no-stale]
(PostgreSQL only; a throw-away database, dropped at the end). The tables first hold an earlier campaign under way
(tests/mturk/large_campaign.py: 2,000 HITs part-way through, its earlier stage done by its crowd), analyzed, as
autovacuum would have left them. Then every size is a campaign of its own written as the services write one
(build_published_campaign: drafts inserted, then published in one UPDATE, by the server with generate_series), with
autovacuum off on the tables so that only the benchmark decides when the statistics change. Each size is measured
in three states, in this order:

- stale: straight after creation with the statistics of before (what happened before the services analyzed the
  table; skipped with --no-stale);
- created: straight after creation, once `hits_written` (mturk.services.hit_statistics, what add_hits and
  publish_campaign call) has analyzed the HIT table: the state the first arrival now meets;
- analyzed: after VACUUM (ANALYZE) of the tables, as autovacuum would leave them much later.

An arrival is `start_local_task`, what the campaign link's Start task button runs: half by new workers, half by
workers of the earlier campaign (work elsewhere, none here), each a distinct worker in a run; each assignment is
returned afterwards (not timed). Measured per arrival: wall time and database time (the time spent executing its
SQL statements, seen from Django). Within a state, runs visit the sizes in turn, one warm-up arrival per campaign
first; the ratio to the smallest size is taken within each run (paired), then the median and range over the runs.
Per state and size, the next-HIT query (services.slots.candidate_hits, as an arrival runs it, for a new worker)
is explained with ANALYZE: its execution time, the index it scans the HIT table with and the HIT rows it reads.
Finally every statement of one arrival per size is explained: any sequential scan of the HIT or assignment tables
is printed."""
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
EARLIER_HITS = 2_000

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

    from mturk.work.services.assignments import return_assignment, start_local_task

    clock = StatementClock()
    with connection.execute_wrapper(clock):
        started = time.perf_counter()
        assignment = start_local_task(campaign, worker)
        wall = time.perf_counter() - started
    return_assignment(assignment_id=assignment.pk, worker_external_id=assignment.worker.external_id)
    return wall * 1000, clock.seconds * 1000, clock.statements


def next_hit_query(campaign: Any, tag: str) -> str:
    """The next-HIT query for a new worker, explained with ANALYZE: execution ms, HIT index, HIT rows read."""
    from django.db import connection

    from mturk.models import Worker
    from mturk.work.services.slots import candidate_hits
    from tests.mturk.large_campaign import scans_of

    worker = Worker.objects.create(provider="local", external_id=f"explain-{tag}-{campaign.pk}")
    sql, params = candidate_hits(campaign, worker, limit=20).values_list("pk", flat=True).query.sql_with_params()
    with connection.cursor() as cursor:
        statement = cursor.mogrify(sql, params).decode()
    started = time.perf_counter()
    nodes = scans_of(statement, analyze=True)
    took = (time.perf_counter() - started) * 1000
    hits = [n for n in nodes if n.get("Relation Name") == "mturk_hit" and n.get("Alias") == "mturk_hit"]
    read = sum((n["Actual Rows"] + n.get("Rows Removed by Filter", 0)) * n["Actual Loops"] for n in hits)
    how = "+".join(n.get("Index Name", n["Node Type"]) for n in hits)
    sort = " + sort" if any(n["Node Type"] == "Sort" for n in nodes) else ""
    return f"{took:.2f} ms, {how}{sort}, {read:,} rows"


def sequential_scans(statements: list[str]) -> list[str]:
    from tests.mturk.large_campaign import explainable, scans_of

    found = []
    for sql in explainable(statements):
        for node in scans_of(sql):
            if node["Node Type"] == "Seq Scan" and node.get("Relation Name") in TABLES:
                found.append(f"{node['Relation Name']}: {sql[:160]}")
    return found


def measure(campaigns: dict[int, Any], earlier: Any, runs: int, arrivals: int, state: str,
            offset: int) -> tuple[list[dict[int, Arrivals]], dict[int, str]]:
    """`runs` runs of `arrivals` arrivals per size (paired: every size in each run) and the next-HIT query's plan."""
    sizes = sorted(campaigns)
    plans = {size: next_hit_query(campaigns[size], state) for size in sizes}  # the first reader after the change
    for size in sizes:
        arrive(campaigns[size], None)  # warm-up
    regulars = arrivals // 2
    measured_runs: list[dict[int, Arrivals]] = []
    for run in range(runs):
        measured: dict[int, Arrivals] = {}
        for size in sizes:
            wall, db = [], []
            for k in range(arrivals):
                worker = earlier.seeded_worker(1 + (offset + run * regulars + k) % (EARLIER_HITS // 20)) \
                    if k < regulars else None
                w, d, _ = arrive(campaigns[size], worker)
                wall.append(w)
                db.append(d)
            measured[size] = {"wall": wall, "db": db}
        measured_runs.append(measured)
        base = measured[sizes[0]]
        print(f"{state} run {run + 1}: " + "; ".join(
            f"{size:,}: wall {statistics.median(m['wall']):.2f} ms "
            f"(x{statistics.median(m['wall']) / statistics.median(base['wall']):.2f}), db "
            f"{statistics.median(m['db']):.2f} ms"
            for size, m in measured.items()), flush=True)
    return measured_runs, plans


def report(state: str, runs: list[dict[int, Arrivals]], plans: dict[int, str]) -> None:
    sizes = sorted(runs[0])
    print(f"\n{state}: {len(runs[0][sizes[0]]['wall'])} arrivals per size and run, {len(runs)} runs "
          f"(median over runs [range]); ratio to {sizes[0]:,} HITs within each run")
    print(f"{'HITs':>10} | {'wall median':>20} | {'wall p90':>20} | {'db median':>20} | "
          f"{'wall / 1k':>18} | {'db / 1k':>18} | next-HIT query (new worker)")
    for size in sizes:
        cells = []
        for key, stat in (("wall", statistics.median), ("wall", p90), ("db", statistics.median)):
            values = [stat(r[size][key]) for r in runs]
            cells.append(f"{statistics.median(values):6.2f} [{min(values):.2f}-{max(values):.2f}] ms")
        for key in ("wall", "db"):
            ratios = [statistics.median(r[size][key]) / statistics.median(r[sizes[0]][key]) for r in runs]
            cells.append(f"{statistics.median(ratios):5.2f} [{min(ratios):.2f}-{max(ratios):.2f}]")
        print(f"{size:>10,} | {cells[0]:>20} | {cells[1]:>20} | {cells[2]:>20} | {cells[3]:>18} | {cells[4]:>18} | "
              f"{plans[size]}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 100_000, 1_000_000])
    parser.add_argument("--arrivals", type=int, default=36, help="per size and run (half new workers)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-stale", action="store_true", help="skip the state before the services' ANALYZE")
    args = parser.parse_args()
    sizes = sorted(args.sizes)
    with throwaway_database():
        from django.db import connection

        from mturk.models import HIT, Assignment
        from mturk.services.hit_statistics import analyze_hits
        from tests.mturk.large_campaign import build_large_campaign, build_published_campaign

        if connection.vendor != "postgresql":
            raise SystemExit("assignment_scale needs PostgreSQL: set DATABASE_URL=postgres://...")
        earlier = build_large_campaign(EARLIER_HITS, tag="earlier")  # analyzed, as autovacuum would leave it
        with connection.cursor() as cursor:
            for table in ("mturk_worker", "mturk_hit", "mturk_assignment"):
                cursor.execute(f"ALTER TABLE {table} SET (autovacuum_enabled = false)")
        campaigns = {}
        for size in sizes:
            started = time.perf_counter()
            campaigns[size] = build_published_campaign(size, tag=f"s{size}")
            print(f"built {size:>9,} HITs (drafts, then published) in {time.perf_counter() - started:6.1f} s",
                  flush=True)
        print(f"tables: {HIT.objects.count():,} HITs, {Assignment.objects.count():,} assignments; "
              f"PostgreSQL {connection.cursor().connection.server_version}", flush=True)
        results = []
        if not args.no_stale:
            results.append(("stale (before: no ANALYZE after the bulk write)",
                            *measure(campaigns, earlier, args.runs, args.arrivals, "stale", 0)))
        started = time.perf_counter()
        analyze_hits()  # what hits_written runs after add_hits / publish_campaign commit
        analyze_ms = (time.perf_counter() - started) * 1000
        print(f"ANALYZE mturk_hit ({HIT.objects.count():,} rows): {analyze_ms:.0f} ms", flush=True)
        results.append(("created (straight after creation, the services' ANALYZE of the HIT table)",
                        *measure(campaigns, earlier, args.runs, args.arrivals, "created", 1000)))
        with connection.cursor() as cursor:
            cursor.execute("VACUUM (ANALYZE) mturk_worker, mturk_hit, mturk_assignment")
        results.append(("analyzed (after VACUUM ANALYZE)",
                        *measure(campaigns, earlier, args.runs, args.arrivals, "analyzed", 2000)))
        verdicts = {size: sequential_scans(arrive(campaigns[size], None)[2]) for size in sizes}
    for state, runs, plans in results:
        report(state, runs, plans)
    print("\nsequential scans of the HIT or assignment tables in one arrival (analyzed): " + "; ".join(
        f"{size:,}: " + ("none" if not found else " | ".join(found)) for size, found in verdicts.items()))
    print(f"ANALYZE of the HIT table after the bulk writes: {analyze_ms:.0f} ms")
    print(f"target: arrival at 100k and 1M HITs within 1.5x of 1k from the first arrival, no sequential scan; "
          f"bench process peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB")


if __name__ == "__main__":
    main()
