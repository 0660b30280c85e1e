"""Benchmark of `import_coco` at COCO 2014 scale: wall time and peak memory of importing a captions file and an
instances file of COCO train2014's size, on SQLite and on PostgreSQL.

Run: .venv/bin/python bench/coco_import.py [--images 80000] [--captions-per-image 5] [--boxes-per-image 7.3]
     [--runs 3] [--parts sqlite,postgres] [--postgres postgres://postgres@127.0.0.1:5432/NAME]

The files are GENERATED in a temporary folder (seeded), in COCO's layout and at COCO's sizes: by default 80,000
images, 400,000 captions of 8 to 14 words, 80 categories and about 7.3 instance annotations per image, each with a
polygon segmentation of 12 to 40 points (COCO train2014: 82,783 images, 414,113 captions in 66 MB, 604,907
instances in 332 MB). No image files: every image is imported by reference, as from the annotation files alone.

Each import runs in a fresh process on a freshly migrated, empty database (migrate, and for PostgreSQL a flush, in
a process of its own, not timed), measured from outside: wall time, CPU time, and peak resident memory (ru_maxrss
from wait4) of the whole process, Python, Django and the import together. A process that only starts Django gives
the baseline memory. SQLite is the file /tmp/coco-import-bench.sqlite3 (deleted before each run); PostgreSQL the
database --postgres names (flushed before each run; never point it at data you keep)."""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.fresh_process import emit, run_child, setup_django, spread  # noqa: E402

SQLITE_PATH = Path(tempfile.gettempdir()) / "coco-import-bench.sqlite3"
SUBJECTS = ["man", "woman", "dog", "cat", "horse", "bus", "train", "boy", "girl", "bird", "giraffe", "elephant",
            "plate of food", "pizza", "person", "skier", "surfer", "group of people", "motorcycle", "truck"]
ADJECTIVES = ["black", "white", "red", "big", "small", "young", "old", "brown", "large", "little", "blue", "green"]
VERBS = ["sitting on", "standing next to", "riding", "eating", "walking down", "holding", "looking at",
         "lying on", "parked near", "flying over", "playing with", "carrying"]
PLACES = ["a table", "the street", "a field", "the beach", "a couch", "a snowy hill", "a wave", "the grass",
          "a kitchen counter", "a city street", "a wooden bench", "the water"]


# ---- the files ----------------------------------------------------------------------------------------------------


def _caption(rng: random.Random) -> str:
    words = ["A", rng.choice(ADJECTIVES), rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(PLACES)]
    if rng.random() < 0.5:
        words += ["with", "a", rng.choice(ADJECTIVES), rng.choice(SUBJECTS)]
    return " ".join(words) + rng.choice([".", "", " ."])


def _images(count: int, rng: random.Random) -> list[dict[str, Any]]:
    images = []
    for number in range(1, count + 1):
        name = f"COCO_train2014_{number:012d}.jpg"
        images.append({"license": rng.randint(1, 8), "file_name": name,
                       "coco_url": f"http://images.cocodataset.org/train2014/{name}",
                       "height": rng.choice([480, 427, 640, 375]), "width": rng.choice([640, 500, 480, 612]),
                       "date_captured": "2013-11-14 11:18:45",
                       "flickr_url": f"http://farm3.staticflickr.com/2567/{number}_abcdef_z.jpg", "id": number})
    return images


def _write_list(handle: IO[str], name: str, items: Any, last: bool = False) -> int:
    handle.write(f'"{name}": [')
    count = 0
    for item in items:
        handle.write(("" if count == 0 else ", ") + json.dumps(item))
        count += 1
    handle.write("]" + ("" if last else ", "))
    return count


def write_files(folder: Path, images: int, captions_per_image: int, boxes_per_image: float,
                seed: int = 2014) -> dict[str, Any]:
    """The captions and instances files, written record by record (on one line, as COCO's are)."""
    rng = random.Random(seed)
    records = _images(images, rng)
    info = {"description": "generated for bench/coco_import.py", "version": "1.0", "year": 2014}
    licenses = [{"url": "http://creativecommons.org/licenses/by/2.0/", "id": n, "name": "Attribution"}
                for n in range(1, 9)]

    def captions():
        number = 0
        for image in records:
            for _ in range(captions_per_image):
                number += 1
                yield {"image_id": image["id"], "id": number, "caption": _caption(rng)}

    captions_path = folder / "captions_train2014.json"
    with captions_path.open("w") as handle:
        handle.write(f'{{"info": {json.dumps(info)}, ')
        _write_list(handle, "images", records)
        handle.write(f'"licenses": {json.dumps(licenses)}, ')
        caption_count = _write_list(handle, "annotations", captions(), last=True)
        handle.write("}")

    def instances():
        number = 0
        for image in records:
            for _ in range(rng.choices([int(boxes_per_image), int(boxes_per_image) + 1],
                                       [1 - boxes_per_image % 1, boxes_per_image % 1])[0]):
                number += 1
                width, height = image["width"], image["height"]
                w, h = rng.uniform(4, width / 2), rng.uniform(4, height / 2)
                x, y = rng.uniform(0, width - w), rng.uniform(0, height - h)
                points = []
                for _ in range(rng.randint(12, 40)):
                    points += [round(rng.uniform(x, x + w), 2), round(rng.uniform(y, y + h), 2)]
                crowd = int(rng.random() < 0.01)
                yield {"segmentation": {"counts": [rng.randint(0, 99) for _ in range(60)], "size": [height, width]}
                       if crowd else [points], "area": round(w * h * 0.6, 2), "iscrowd": crowd,
                       "image_id": image["id"], "bbox": [round(x, 2), round(y, 2), round(w, 2), round(h, 2)],
                       "category_id": rng.randint(1, 80), "id": 100_000 + number}

    instances_path = folder / "instances_train2014.json"
    with instances_path.open("w") as handle:
        handle.write(f'{{"info": {json.dumps(info)}, ')
        _write_list(handle, "images", records)
        handle.write(f'"licenses": {json.dumps(licenses)}, ')
        box_count = _write_list(handle, "annotations", instances())
        _write_list(handle, "categories", ({"supercategory": f"super{n % 12}", "id": n, "name": f"category {n}"}
                                           for n in range(1, 81)), last=True)
        handle.write("}")
    return {"captions": captions_path, "instances": instances_path, "images": images, "caption_count": caption_count,
            "box_count": box_count, "captions_mb": captions_path.stat().st_size / 2**20,
            "instances_mb": instances_path.stat().st_size / 2**20}


# ---- the children: one measured step each --------------------------------------------------------------------



def child_prepare(args: argparse.Namespace) -> dict[str, Any]:
    if args.database == "sqlite":
        SQLITE_PATH.unlink(missing_ok=True)
    setup_django()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    if args.database != "sqlite":
        call_command("flush", interactive=False, verbosity=0)
    return {}


def child_baseline(args: argparse.Namespace) -> dict[str, Any]:
    setup_django()
    from annotation.services.coco_import import importer  # noqa: F401  (the import's modules loaded, nothing run)

    return {}


def child_import(args: argparse.Namespace) -> dict[str, Any]:
    setup_django()
    from annotation.models import Box, Description, Image
    from annotation.services.coco_import.importer import import_coco

    started = time.perf_counter()
    summary = import_coco(args.captions_json, args.instances_json)
    done = time.perf_counter()
    return {"import_s": done - started, "images": Image.objects.count(), "descriptions": Description.objects.count(),
            "boxes": Box.objects.count(), "crowd_skipped": summary.crowd_skipped}


CHILDREN = {"prepare": child_prepare, "baseline": child_baseline, "import": child_import}


# ---- the parent ----------------------------------------------------------------------------------------------------




def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--images", type=int, default=80_000)
    parser.add_argument("--captions-per-image", type=int, default=5)
    parser.add_argument("--boxes-per-image", type=float, default=7.3)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--parts", default="sqlite,postgres", help="comma-separated: sqlite, postgres")
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/coco_import_bench",
                        help="the PostgreSQL database to fill (flushed before each run)")
    parser.add_argument("--child", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    parser.add_argument("--database", default="sqlite", help=argparse.SUPPRESS)
    parser.add_argument("--captions-json", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--instances-json", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = CHILDREN[args.child](args)
        emit(result)
        return
    parts = [part.strip() for part in args.parts.split(",") if part.strip()]
    if set(parts) - {"sqlite", "postgres"}:
        parser.error(f"unknown parts: {', '.join(sorted(set(parts) - {'sqlite', 'postgres'}))}")
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)
    rows: list[tuple[str, str, str, str, str]] = []
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        files = write_files(Path(folder), args.images, args.captions_per_image, args.boxes_per_image)
        print(f"files: {files['images']} images, {files['caption_count']} captions ({files['captions_mb']:.0f} MB), "
              f"{files['box_count']} instances ({files['instances_mb']:.0f} MB), written in "
              f"{time.perf_counter() - started:.0f} s", flush=True)
        for database in parts:
            env = os.environ.copy()
            env["DATABASE_URL"] = f"sqlite:///{SQLITE_PATH}" if database == "sqlite" else args.postgres
            env["DATABASE_STATEMENT_TIMEOUT_MS"] = "0"
            env.setdefault("DEBUG", "1")
            baseline = run_child(__file__, "baseline", env)
            runs = []
            for run in range(args.runs):
                run_child(__file__, "prepare", env, "--database", database)
                runs.append(run_child(__file__, "import", env, "--database", database, "--captions-json",
                                      str(files["captions"]), "--instances-json", str(files["instances"])))
                print(f"  {database} run {run + 1}: {runs[-1]['wall_s']:.1f} s, {runs[-1]['rss_mb']:.0f} MiB",
                      flush=True)
            label = "SQLite" if database == "sqlite" else "PostgreSQL"
            rows.append((label, "import_coco (captions + instances)", spread([r["wall_s"] for r in runs]),
                         spread([r["cpu_s"] for r in runs]), spread([r["rss_mb"] for r in runs], "MiB", 0)))
            rows.append(("", "Django started, nothing imported", "", "", f"{baseline['rss_mb']:.0f} MiB"))
            last = runs[-1]
            rows.append(("", f"stored: {last['images']} images, {last['descriptions']} descriptions, "
                             f"{last['boxes']} boxes ({last['crowd_skipped']} crowd skipped)", "", "", ""))
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}\n")
    print("| database | step | wall | CPU | peak RSS |\n|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
