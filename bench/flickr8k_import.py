"""Benchmark of `import_flickr8k` at the size of the Flickr8k text release: wall time, CPU time and peak memory of
importing the whole release (by reference, no image files), and of importing it a second time (nothing new).

Run: .venv/bin/python bench/flickr8k_import.py [--runs 3] [--release PATH]

Without --release the files are GENERATED in a temporary folder (seeded) in the released layout and at its size:
8,092 images (one named `<id>_<secret>.jpg.1` as in the real token file), 40,460 captions, splits of 6,000 /
1,000 / 1,000 images (92 in none), 5,822 expert rows (three grades each) and 47,830 CrowdFlower rows (3 to 5
votes each). With --release, a folder or zip of the real text files is imported instead.

Each import runs in a fresh process on a freshly migrated, empty SQLite database (/tmp/flickr8k-import-bench
.sqlite3, migrated in a process of its own, not timed), measured from outside: wall time, CPU time and peak
resident memory (ru_maxrss from wait4) of the whole process. A process that only starts Django gives the baseline
memory."""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.fresh_process import emit, migrate_empty, run_child, setup_django, spread  # noqa: E402

SQLITE_PATH = Path(tempfile.gettempdir()) / "flickr8k-import-bench.sqlite3"
SUBJECTS = ["man", "woman", "dog", "child", "boy", "girl", "group of people", "black dog", "brown dog", "biker"]
VERBS = ["runs through", "sits on", "jumps over", "plays in", "walks along", "climbs", "rides down", "stands on"]
PLACES = ["the grass", "a bench", "the beach", "the snow", "a rock", "the street", "a field", "the water"]


def write_release(folder: Path, images: int = 8092, in_splits: int = 8000, expert: int = 5822,
                  crowd: int = 47830, seed: int = 2013) -> dict[str, Any]:
    rng = random.Random(seed)
    names = [f"{1_000_000 + n * 37}_{rng.getrandbits(40):010x}.jpg" for n in range(images)]
    names[1234] += ".1"  # the real token file's one odd name
    captions = [f"{name}#{n}" for name in names for n in range(5)]
    with (folder / "Flickr8k.token.txt").open("w") as handle:
        for caption in captions:
            handle.write(f"{caption}\tA {rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(PLACES)} .\n")
    ordered = [name for name in names if not name.endswith(".1")]
    rng.shuffle(ordered)
    splits = {"train": ordered[:in_splits * 6 // 8], "dev": ordered[in_splits * 6 // 8:in_splits * 7 // 8],
              "test": ordered[in_splits * 7 // 8:in_splits]}
    for split, members in splits.items():
        (folder / f"Flickr_8k.{split}Images.txt").write_text("\n".join(members))  # no final newline, as released
    tests = splits["test"]
    pairs = iter(rng.sample(range(len(tests) * len(captions)), expert + crowd))
    with (folder / "ExpertAnnotations.txt").open("w") as handle:
        for _ in range(expert):
            pair = next(pairs)
            grades = "\t".join(str(rng.randint(1, 4)) for _ in range(3))
            handle.write(f"{tests[pair % len(tests)]}\t{captions[pair // len(tests)]}\t{grades}\n")
    with (folder / "CrowdFlowerAnnotations.txt").open("w") as handle:
        for _ in range(crowd):
            pair = next(pairs)
            votes = rng.choice([3, 3, 3, 4, 5])
            yes = rng.randint(0, votes)
            handle.write(f"{tests[pair % len(tests)]}\t{captions[pair // len(tests)]}\t{yes / votes:.15g}\t{yes}\t"
                         f"{votes - yes}\n")
    return {"images": images, "captions": len(captions), "expert": expert, "crowd": crowd}



def child_prepare(args: argparse.Namespace) -> dict[str, Any]:
    return migrate_empty(SQLITE_PATH)


def child_baseline(args: argparse.Namespace) -> dict[str, Any]:
    setup_django()
    from annotation.ranking.services.flickr8k_import import importer  # noqa: F401  (loaded, nothing run)

    return {}


def child_import(args: argparse.Namespace) -> dict[str, Any]:
    setup_django()
    from annotation.models import Description, Image
    from annotation.ranking.models import CaptionJudgement
    from annotation.ranking.services.flickr8k_import import import_flickr8k, open_release

    started = time.perf_counter()
    summary = import_flickr8k(open_release(args.release_path))
    done = time.perf_counter()
    return {"import_s": done - started, "images": Image.objects.count(), "captions": Description.objects.count(),
            "judgements": CaptionJudgement.objects.count(), "counts": summary.counts}


CHILDREN = {"prepare": child_prepare, "baseline": child_baseline, "import": child_import}




def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--release", type=Path, help="a folder or zip of the real text release (else generated)")
    parser.add_argument("--child", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    parser.add_argument("--release-path", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = CHILDREN[args.child](args)
        emit(result)
        return
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)
    env = os.environ.copy()
    env["DATABASE_URL"] = f"sqlite:///{SQLITE_PATH}"
    env.pop("CELERY_BROKER_URL", None)
    env.setdefault("DEBUG", "1")
    with tempfile.TemporaryDirectory() as folder:
        release = args.release
        if release is None:
            release = Path(folder)
            made = write_release(release)
            print(f"generated: {made['images']} images, {made['captions']} captions, {made['expert']} expert rows, "
                  f"{made['crowd']} crowd rows", flush=True)
        baseline = run_child(__file__, "baseline", env)
        first, again = [], []
        for run in range(args.runs):
            run_child(__file__, "prepare", env)
            first.append(run_child(__file__, "import", env, "--release-path", str(release)))
            again.append(run_child(__file__, "import", env, "--release-path", str(release)))
            print(f"  run {run + 1}: {first[-1]['wall_s']:.1f} s, {first[-1]['rss_mb']:.0f} MiB; again "
                  f"{again[-1]['wall_s']:.1f} s", flush=True)
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}\n")
    print("| step | wall | CPU | peak RSS |\n|---|---|---|---|")
    for label, runs in (("import_flickr8k, empty database", first), ("the same release again (nothing new)", again)):
        print(f"| {label} | {spread([r['wall_s'] for r in runs])} | {spread([r['cpu_s'] for r in runs])} | "
              f"{spread([r['rss_mb'] for r in runs], 'MiB', 0)} |")
    print(f"| Django started, nothing imported | | | {baseline['rss_mb']:.0f} MiB |")
    last = first[-1]
    print(f"\nstored: {last['images']} images, {last['captions']} captions, {last['judgements']} judgements; "
          f"counts {json.dumps(last['counts'])}")
    if again[-1]["images"] != last["images"] or again[-1]["judgements"] != last["judgements"]:
        sys.exit("the second import changed the counts")


if __name__ == "__main__":
    main()
