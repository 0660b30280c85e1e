"""Benchmark of `import_flickr30k` at Flickr30k Entities' size: wall time, CPU time and peak memory of importing a
release of 31,783 images, 158,915 sentences and about 276k boxes, by reference, on SQLite.

Run: .venv/bin/python bench/flickr30k_import.py [--images 31783] [--runs 3] [--scale 1.0]

The release is GENERATED in a temporary folder (seeded), in the released layout: `Sentences/<id>.txt` (five
sentences per image, 2 to 4 phrases each, some of type lists like /people/other, some notvisual), `Annotations/
<id>.xml` (tab-indented like the release; seven boxed entities per image, one in four with two boxes, so about 8.75
boxes per image and 278k in all; one image in five with a box carrying two entity ids; one scene and one nobndbox
object per image) and the split files.
`--scale 0.1` generates a tenth (3,178 images).

Each import runs in a fresh process on a freshly migrated, empty SQLite database (migrated in a process of its own,
not timed), measured from outside: wall time, CPU time and peak resident memory (ru_maxrss from wait4) of the whole
process. A process that only starts Django gives the baseline memory."""
from __future__ import annotations

import argparse
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

SQLITE_PATH = Path(tempfile.gettempdir()) / "flickr30k-import-bench.sqlite3"
TYPES = ["people", "clothing", "bodyparts", "animals", "vehicles", "instruments", "other"]
NOUNS = ["man", "woman", "dog", "shirt", "hand", "bike", "guitar", "ball", "child", "hat", "car", "crowd"]
WORDS = ["a", "the", "young", "red", "small", "old", "two", "blue"]
VERBS = ["stands near", "rides", "holds", "looks at", "walks past", "plays with", "sits on", "waves at"]


def _object(names: list[int], box: tuple[int, int, int, int] | None, scene: int = 0) -> str:
    lines = ["\t<object>"] + [f"\t\t<name>{name}</name>" for name in names]
    if box is None:
        lines += [f"\t\t<nobndbox>{1 - scene}</nobndbox>", f"\t\t<scene>{scene}</scene>"]
    else:
        lines += ["\t\t<bndbox>"] + [f"\t\t\t<{tag}>{value}</{tag}>" for tag, value in
                                     zip(("xmin", "ymin", "xmax", "ymax"), box, strict=True)] + ["\t\t</bndbox>"]
    return "\n".join(lines + ["\t</object>"])


def write_release(folder: Path, images: int, seed: int = 30) -> dict[str, Any]:
    rng = random.Random(seed)
    (folder / "Sentences").mkdir()
    (folder / "Annotations").mkdir()
    keys = [str(1000000000 + index * 7919) for index in range(images)]
    boxes = sentences = 0
    for key in keys:
        width, height = rng.choice([(500, 333), (333, 500), (500, 375), (375, 500)])
        objects, named = [], [0, 8, 9]
        for entity in range(1, 8):
            for copy in range(2 if rng.random() < 0.25 else 1):
                x, y = rng.randint(1, width // 2), rng.randint(1, height // 2)
                names = [entity, 10] if entity == 1 and not copy and rng.random() < 0.2 else [entity]
                objects.append(_object(names, (x, y, rng.randint(x, width), rng.randint(y, height))))
                named += names
                boxes += 1
        objects += [_object([8], None, scene=1), _object([9], None)]
        named = sorted(set(named))
        xml = (f"<annotation>\n\t<filename>{key}.jpg</filename>\n\t<size>\n\t\t<width>{width}</width>\n\t\t<height>"
               f"{height}</height>\n\t\t<depth>3</depth>\n\t</size>\n" + "\n".join(objects) + "\n</annotation>\n")
        (folder / "Annotations" / f"{key}.xml").write_text(xml)
        lines = []
        for _ in range(5):
            parts = []
            for slot in range(rng.randint(2, 4)):
                entity = rng.choice(named)
                kind = "notvisual" if entity == 0 else "scene" if entity == 8 else rng.choice(TYPES)
                if rng.random() < 0.05:
                    kind += "/other"
                words = " ".join([rng.choice(WORDS), rng.choice(NOUNS)])
                parts.append(f"[/EN#{entity}/{kind} {words}]" + ("" if slot else " " + rng.choice(VERBS)))
            lines.append(" ".join(parts) + " .")
            sentences += 1
        (folder / "Sentences" / f"{key}.txt").write_text("\n".join(lines) + "\n")
    test, val = keys[:1000], keys[1000:2000]
    (folder / "test.txt").write_text("\n".join(test) + "\n")
    (folder / "val.txt").write_text("\n".join(val) + "\n")
    (folder / "train.txt").write_text("\n".join(keys[2000:]) + "\n")
    return {"images": images, "sentences": sentences, "boxes": boxes}



def child_prepare(args: argparse.Namespace) -> dict[str, Any]:
    return migrate_empty(SQLITE_PATH)


def child_baseline(args: argparse.Namespace) -> dict[str, Any]:
    setup_django()
    from annotation.services.flickr30k_import import importer  # noqa: F401  (loaded, nothing run)

    return {}


def child_import(args: argparse.Namespace) -> dict[str, Any]:
    setup_django()
    from annotation.models import Box, Description, Image, WordLink
    from annotation.services.flickr30k_import.importer import import_flickr30k

    started = time.perf_counter()
    import_flickr30k(args.release)
    done = time.perf_counter()
    again = import_flickr30k(args.release)  # the re-import: checks everything, adds nothing
    return {"import_s": done - started, "reimport_s": time.perf_counter() - done,
            "reimport_skipped": again.images_skipped, "images": Image.objects.count(),
            "descriptions": Description.objects.count(), "boxes": Box.objects.count(),
            "links": WordLink.objects.count()}


CHILDREN = {"prepare": child_prepare, "baseline": child_baseline, "import": child_import}




def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--images", type=int, default=31_783)
    parser.add_argument("--scale", type=float, default=1.0, help="a fraction of --images, e.g. 0.1")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    parser.add_argument("--release", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = CHILDREN[args.child](args)
        emit(result)
        return
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)
    env = os.environ.copy()
    env["DATABASE_URL"] = f"sqlite:///{SQLITE_PATH}"
    env.setdefault("DEBUG", "1")
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        files = write_release(Path(folder), max(1, round(args.images * args.scale)))
        print(f"release: {files['images']} images, {files['sentences']} sentences, {files['boxes']} boxes, written "
              f"in {time.perf_counter() - started:.0f} s", flush=True)
        baseline = run_child(__file__, "baseline", env)
        runs = []
        for run in range(args.runs):
            run_child(__file__, "prepare", env)
            runs.append(run_child(__file__, "import", env, "--release", folder))
            print(f"  run {run + 1}: import {runs[-1]['import_s']:.1f} s, re-import {runs[-1]['reimport_s']:.1f} s, "
                  f"{runs[-1]['rss_mb']:.0f} MiB", flush=True)
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}\n")
    last = runs[-1]
    print("| step | time | peak RSS |\n|---|---|---|")
    print(f"| import_flickr30k, first import | {spread([r['import_s'] for r in runs])} | "
          f"{spread([r['rss_mb'] for r in runs], 'MiB', 0)} (whole process, both imports) |")
    print(f"| re-import (adds nothing) | {spread([r['reimport_s'] for r in runs])} | |")
    print(f"| whole process (CPU) | {spread([r['wall_s'] for r in runs])} ({spread([r['cpu_s'] for r in runs])}) "
          "| |")
    print(f"| Django started, nothing imported | | {baseline['rss_mb']:.0f} MiB |")
    print(f"\nstored: {last['images']} images, {last['descriptions']} descriptions, {last['boxes']} boxes, "
          f"{last['links']} word links; the re-import skipped {last['reimport_skipped']} images")


if __name__ == "__main__":
    main()
