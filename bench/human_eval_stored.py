"""Benchmark of analysing a stored human evaluation (what pressing Analyse costs): evaluation.services
.analysis.analyse_evaluation reading every stored judgement from PostgreSQL (selectors.judgement_records), running
metrics.human_eval.analyse and storing the analysis.

Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python bench/human_eval_stored.py [--runs 5]
     [--systems 10] [--items 1000] [--judges 3] [--seed 28] [--database human_eval_bench] [--keep] [--reuse]

The judgements are those of bench/human_eval_analysis.py (same seeded simulation, one aspect, "correct" on 1-5),
stored as the platform stores them, one evaluation per design: items, the judged systems (with a BLEU score per
item and per system to correlate), an attention system with its outputs (never judged, left out by the
selector), one crowd campaign, HITs and approved assignments shaped as the planner makes them (rating: one HIT per
item; pairwise: one per item and pair of systems; `--judges` assignments each, by workers of a crowd of 100), and
one HumanJudgement per rated output or compared pair. Rows are bulk-created, then the tables analyzed (as
autovacuum would). The database is `--database` on DATABASE_URL's server: created (or emptied) and migrated, and
dropped at the end unless `--keep`; `--reuse` times a database an earlier `--keep` run left, without seeding.

Each run is a fresh process (bench/fresh_process.py): Django set up, then `analyse_evaluation` timed whole, split
into the time spent reading the records (inside judgement_records: the query and the rows made into records) and
the rest (the analysis and storing it); the number of queries; the whole process's wall time and peak RSS.
Median [min–max] of the runs. The load average is printed before and after."""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.fresh_process import emit, run_child, setup_django, spread  # noqa: E402

DESIGNS = ("rating", "pairwise")
ASPECT = "correct"  # a 1-5 scale, as the simulated ratings
CROWD = 100
BATCH = 5000


def evaluation_name(design: str) -> str:
    return f"bench-{design}"


# ---- the children ---------------------------------------------------------------------------------------------


def throwaway_name(args: argparse.Namespace) -> str:
    """The connection's database, refused unless it is the one --database names (a child run by hand with the
    server's own DATABASE_URL never empties or drops that database)."""
    from django.db import connection

    name: str = connection.settings_dict["NAME"]
    if name != args.database:
        sys.exit(f"refused: DATABASE_URL names {name!r}, not the benchmark's database {args.database!r}")
    return name


def child_prepare(args: argparse.Namespace) -> dict[str, Any]:
    """The database created when missing, migrated and emptied (not measured)."""
    setup_django()
    from django.core.management import call_command
    from django.db import connection

    name = throwaway_name(args)
    with connection._nodb_cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
        if cursor.fetchone() is None:
            cursor.execute(f'CREATE DATABASE "{name}"')
    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    return {}


def child_drop(args: argparse.Namespace) -> dict[str, Any]:
    setup_django()
    from django.db import connection

    name = throwaway_name(args)
    with connection._nodb_cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
    return {}


def child_seed(args: argparse.Namespace) -> dict[str, Any]:
    """Both evaluations stored, the tables analyzed; the rows written and the seconds it took."""
    setup_django()
    from decimal import Decimal

    from django.db import connection
    from django.utils import timezone

    from bench.human_eval_analysis import records
    from evaluation.models import (
        EvaluatedSystem,
        EvaluationItem,
        HumanEvaluation,
        HumanJudgement,
        SystemOutput,
    )
    from mturk.models import HIT, Assignment, Campaign, Worker
    from mturk.states import AssignmentStatus, CampaignStatus, HITStatus

    started = time.perf_counter()
    all_records, automatic = records(args.systems, args.items, args.judges, args.seed)
    now = timezone.now()
    workers = Worker.objects.bulk_create(Worker(provider="local", external_id=f"bench-{n}") for n in range(CROWD))
    kinds = {"rating": "rate_output", "pairwise": "compare_outputs"}
    for design in DESIGNS:
        campaign = Campaign.objects.create(
            name=f"bench {design}", task_kind=kinds[design], reward=Decimal("0.05"),
            assignments_per_hit=args.judges, status=CampaignStatus.CLOSED,
            options={"evaluation": None, "output_kind": "caption", "aspects": [ASPECT]})
        evaluation = HumanEvaluation.objects.create(
            name=evaluation_name(design), output_kind="caption", test_set="bench:1", design=design,
            aspects=[ASPECT], judges=args.judges, seed=str(args.seed), status=HumanEvaluation.Status.LAUNCHED,
            campaign=campaign)
        campaign.options["evaluation"] = evaluation.pk
        campaign.save(update_fields=["options"])
        items = EvaluationItem.objects.bulk_create(
            EvaluationItem(evaluation=evaluation, name=str(n), position=n, images=[n + 1], references=["a reference"])
            for n in range(args.items))
        scores = automatic["bleu"]
        systems = {s.name: s for s in EvaluatedSystem.objects.bulk_create(
            [EvaluatedSystem(evaluation=evaluation, name=name, file_name=f"{name}.json",
                             automatic={"bleu": {"system": sum(per.values()) / len(per),
                                                 "items": {str(item): score for item, score in per.items()}}})
             for name, per in scores.items()]
            + [EvaluatedSystem(evaluation=evaluation, name="attention", role=EvaluatedSystem.Role.ATTENTION)])}
        outputs = {(o.system_id, o.item_id): o.pk for o in SystemOutput.objects.bulk_create(
            (SystemOutput(system=system, item=item, text=f"a caption of {system.name} for item {item.name}")
             for system in systems.values() for item in items), batch_size=BATCH)}

        output = {(name, n): outputs[(system.pk, item.pk)] for name, system in systems.items()
                  for n, item in enumerate(items)}

        # The records by HIT: rating (item,), pairwise (item, system, other); each HIT's judges in order.
        by_hit: dict[tuple[Any, ...], dict[int, list[dict[str, Any]]]] = {}
        for record in all_records:
            if record["design"] != design:
                continue
            key: tuple[Any, ...] = ((record["item"],) if design == "rating"
                                    else (record["item"], record["system"], record["other"]))
            by_hit.setdefault(key, {}).setdefault(record["judge"], []).append(record)
        hit_keys = list(by_hit)
        for start in range(0, len(hit_keys), BATCH):
            keys = hit_keys[start:start + BATCH]
            hits = HIT.objects.bulk_create(
                HIT(campaign=campaign, position=start + n, status=HITStatus.DISPOSED, max_assignments=args.judges,
                    taken_slots=args.judges, group=f"bench:{key[0]}",
                    items={"item": items[key[0]].pk,
                           "outputs": ([output[(r["system"], key[0])] for r in next(iter(by_hit[key].values()))]
                                       if design == "rating"
                                       else [output[(key[1], key[0])], output[(key[2], key[0])]])})
                for n, key in enumerate(keys))
            made = Assignment.objects.bulk_create(
                Assignment(hit=hit, worker=workers[judge], status=AssignmentStatus.APPROVED, accepted_at=now,
                           deadline=now, submitted_at=now, decided_at=now,
                           answer=({"ratings": [{ASPECT: r["value"]} for r in judged]} if design == "rating" else
                                   {"preferences": {ASPECT: "tie" if judged[0]["choice"] == "tie" else
                                                    int(judged[0]["choice"] != key[1])}}))
                for hit, key in zip(hits, keys, strict=True) for judge, judged in by_hit[key].items())
            assignments = iter(made)
            judgements = []
            for key in keys:
                for judged in by_hit[key].values():
                    assignment = next(assignments)
                    for position, r in enumerate(judged):
                        if design == "rating":
                            judgements.append(HumanJudgement(
                                evaluation=evaluation, assignment=assignment, worker_id=assignment.worker_id,
                                item_id=items[key[0]].pk, aspect=ASPECT, output_id=output[(r["system"], key[0])],
                                value=r["value"], position=position))
                        else:
                            first, second = output[(key[1], key[0])], output[(key[2], key[0])]
                            judgements.append(HumanJudgement(
                                evaluation=evaluation, assignment=assignment, worker_id=assignment.worker_id,
                                item_id=items[key[0]].pk, aspect=ASPECT, output_id=first, other_id=second,
                                preferred_id=None if r["choice"] == "tie" else first if r["choice"] == key[1]
                                else second, position=0))
            HumanJudgement.objects.bulk_create(judgements, batch_size=BATCH)
    seeded = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    counts = {model.__name__: model.objects.count()
              for model in (HumanJudgement, SystemOutput, HIT, Assignment, Worker)}
    return {"seed_s": seeded, "rows": counts}


def child_analyse(args: argparse.Namespace) -> dict[str, Any]:
    """analyse_evaluation timed whole, with the time spent inside judgement_records apart."""
    setup_django()
    from django.db import connection

    from evaluation.models import HumanEvaluation
    from evaluation.services import analysis

    reading = [0.0]
    original = analysis.judgement_records

    def timed_records(evaluation: HumanEvaluation) -> Iterator[dict[str, Any]]:
        rows = original(evaluation)
        while True:
            started = time.perf_counter()
            try:
                record = next(rows)
            except StopIteration:
                reading[0] += time.perf_counter() - started
                return
            reading[0] += time.perf_counter() - started
            yield record

    analysis.judgement_records = timed_records
    queries: list[str] = []

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        queries.append(sql)
        return execute(sql, params, many, context)

    evaluation = HumanEvaluation.objects.get(name=evaluation_name(args.design))
    with connection.execute_wrapper(count):
        started = time.perf_counter()
        result = analysis.analyse_evaluation(evaluation)
        seconds = time.perf_counter() - started
    evaluation.refresh_from_db()
    order = list(result["ratings"][ASPECT]["systems"] if args.design == "rating"
                 else result["preferences"][ASPECT]["bradley_terry"])
    return {"total_s": seconds, "read_s": reading[0], "queries": len(queries),
            "records": evaluation.analysed_judgements, "top": order[0], "bottom": order[-1]}


CHILDREN = {"prepare": child_prepare, "seed": child_seed, "analyse": child_analyse, "drop": child_drop}


# ---- the parent -----------------------------------------------------------------------------------------------


def bench_url(server_url: str, database: str) -> str:
    parts = urlsplit(server_url)
    if not parts.scheme.startswith("postgres"):
        sys.exit(f"DATABASE_URL must name a PostgreSQL server (got {server_url!r})")
    return urlunsplit(parts._replace(path=f"/{database}"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--judges", type=int, default=3)
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--database", default="human_eval_bench",
                        help="the throw-away database on DATABASE_URL's server (emptied: never one you keep)")
    parser.add_argument("--keep", action="store_true", help="leave the seeded database for a later --reuse")
    parser.add_argument("--reuse", action="store_true", help="time the database an earlier --keep run left")
    parser.add_argument("--child", choices=CHILDREN)
    parser.add_argument("--design", choices=DESIGNS, default="rating")
    args = parser.parse_args()
    if args.child:
        emit(CHILDREN[args.child](args))
        return
    env = dict(os.environ, DATABASE_URL=bench_url(os.environ.get("DATABASE_URL", ""), args.database))
    sizes = [f"--{name}={getattr(args, name)}" for name in ("systems", "items", "judges", "seed", "database")]
    print(f"{args.systems} systems x {args.items:,} items x {args.judges} judges, PostgreSQL database "
          f"{args.database!r}, {os.cpu_count()} CPUs")
    if not args.reuse:
        run_child(__file__, "prepare", env, *sizes)
        seeded = run_child(__file__, "seed", env, *sizes)
        print(f"seeded in {seeded['seed_s']:.1f} s (process {seeded['wall_s']:.1f} s, peak RSS "
              f"{seeded['rss_mb']:.0f} MB): " + ", ".join(f"{n:,} {m}" for m, n in seeded["rows"].items()))
    print("load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    for design in DESIGNS:
        runs = [run_child(__file__, "analyse", env, *sizes, f"--design={design}") for _ in range(args.runs)]
        print(f"{design:9s} {runs[0]['records']:>8,} records, {runs[0]['queries']} queries"
              f"  analyse_evaluation {spread([r['total_s'] for r in runs], digits=2)}"
              f"  = reading {spread([r['read_s'] for r in runs], digits=2)}"
              f" + analysis {spread([r['total_s'] - r['read_s'] for r in runs], digits=2)}"
              f"  process {spread([r['wall_s'] for r in runs])}  peak RSS {max(r['rss_mb'] for r in runs):.0f} MB"
              f"  best {runs[0]['top']}, worst {runs[0]['bottom']}")
    print("load average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    if not args.keep:
        run_child(__file__, "drop", env, f"--database={args.database}")


if __name__ == "__main__":
    main()
