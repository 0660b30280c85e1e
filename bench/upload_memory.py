"""Benchmark of the memory each upload path takes on hostile and on large inputs, against its configured limit.

Run: .venv/bin/python bench/upload_memory.py [--only NAME ...]

Each case runs in a fresh process (Django set up, the importer or the submission check run as the background job
or the request runs it) on a freshly migrated SQLite database, measured from outside: the peak resident memory of
the process (ru_maxrss from wait4, the process and its children), minus that of a process that only sets Django
up and loads the same modules (the baseline). The limits are set for the run (smaller than the defaults, so that
the inputs stay quick to make; the ratio growth / limit is what carries over to the defaults):
IMPORT_MAX_DOCUMENT_BYTES 64 MiB, IMPORT_MAX_ENTRY_BYTES 256 MiB, IMPORT_MAX_TOTAL_BYTES 512 MiB, IMAGE_MAX_BYTES
40 MiB, RANKING_MAX_BYTES 200 MiB, COMPOSITIONAL_MAX_BYTES 100 MiB (its default).

The hostile inputs: zip members expanding to 284 MiB from a few hundred kB (an honest header, and a header that
states less than the member holds), NumPy files whose header claims 12000x12000 or 100000x100000, an .npz holding
an object array; VIST and COCO files nested thousands of levels deep (39 KiB and 100 KiB), a VIST file naming
"albums" twice, an image zip whose every file is refused, a 25,000-label parent chain (timed: the cycle check). The
large inputs: a table at the document limit, a score matrix of a 1000-image x 5000-caption pool (.npy and CSV),
400,000 generated captions of a compositional evaluation, a 60 MiB Flickr8k token file imported whole (its limit
is its own size: the import holds within 2x of it), and one of 8 MiB in the smallest shape a line can have (one
short caption per image: 500,000 images, refused past the importer's cap)."""
from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.fresh_process import emit, migrate_empty, run_child, setup_django  # noqa: E402

MiB = 1024 * 1024
SQLITE_PATH = Path(tempfile.gettempdir()) / "upload-memory-bench.sqlite3"
LIMITS = {"IMPORT_MAX_DOCUMENT_BYTES": 64 * MiB, "IMPORT_MAX_ENTRY_BYTES": 256 * MiB,
          "IMPORT_MAX_TOTAL_BYTES": 512 * MiB, "IMAGE_MAX_BYTES": 40 * MiB, "RANKING_MAX_BYTES": 200 * MiB,
          "COMPOSITIONAL_MAX_BYTES": 100 * MiB, "JSON_MAX_BYTES": 2 * MiB}
BOMB = 284 * MiB
POOL = (1000, 5000)
IMAGECLEF_HEAD = {
    "concepts.tsv": b"name\tsynset\tsynonyms\tparent\ncar\t\t\t\n",
    "images.tsv": b"image\tfile\twidth\theight\n",
    "boxes.tsv": b"image\tbox\tconcept\tx\ty\twidth\theight\n",
}
DESCRIPTION_ROW = b"img-a\t1\tcrowd\tno\tA red car parked in front of a small white house.\n"


def _member(archive: zipfile.ZipFile, name: str, size: int, line: bytes = b"") -> None:
    block = (line * (MiB // len(line) + 1))[:MiB] if line else bytes(MiB)
    with archive.open(name, "w", force_zip64=True) as member:
        left = size
        while left > 0:
            member.write(block[:left])
            left -= len(block)


def _state_size(path: Path, name: str, size: int) -> None:
    """Rewrite the size the zip's headers state for `name` (the data stays): a member that lies."""
    data = bytearray(path.read_bytes())
    encoded = name.encode()
    for signature, size_at, name_at in ((b"PK\x03\x04", 22, 30), (b"PK\x01\x02", 24, 46)):
        start = data.find(signature)
        while start != -1:
            if data[start + name_at:start + name_at + len(encoded)] == encoded:
                data[start + size_at:start + size_at + 4] = size.to_bytes(4, "little")
            start = data.find(signature, start + 4)
    path.write_bytes(bytes(data))


def _zip(path: Path, files: dict[str, bytes], big: tuple[str, int, bytes] | None = None) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        if big is not None:
            _member(archive, *big)
    return path


def _plain_zip(path: Path, name: str, size: int, line: bytes, files: dict[str, bytes] | None = None,
               head: bytes = b"") -> Path:
    """A member (`head`, then `line` repeated) written without the zip64 extra field, so that its header's 4-byte
    size can be rewritten."""
    data = head + (line * (size // len(line) + 1))[:size - len(head)]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for other, content in (files or {}).items():
            archive.writestr(other, content)
        archive.writestr(name, data)
    return path


def _npy(shape: tuple[int, ...], data: bytes = b"", descr: str = "<f8") -> bytes:
    from numpy.lib import format as npy_format

    buffer = io.BytesIO()
    npy_format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False, "shape": shape})
    return buffer.getvalue() + data


# Each case: (what it is, the limit it is held to, how the input is made, how it is read in the child).
def make_imageclef_bomb(folder: Path) -> Path:
    return _zip(folder / "imageclef-bomb.zip", IMAGECLEF_HEAD, ("descriptions.tsv", BOMB, DESCRIPTION_ROW))


def make_imageclef_lying(folder: Path) -> Path:
    limit = LIMITS["IMPORT_MAX_DOCUMENT_BYTES"]
    path = _plain_zip(folder / "imageclef-lying.zip", "descriptions.tsv", BOMB, DESCRIPTION_ROW, IMAGECLEF_HEAD,
                      b"image\tdescription\tsource\tlinked\tmarkup\n")
    _state_size(path, "descriptions.tsv", limit - MiB)  # says just under the limit: read that far, then refused
    return path


def make_coco_lying(folder: Path) -> Path:
    path = _plain_zip(folder / "coco-lying.zip", "captions_train2014.json", BOMB, b" ")
    _state_size(path, "captions_train2014.json", 1024)
    return path


def make_coco_bomb(folder: Path) -> Path:
    return _zip(folder / "coco-bomb.zip", {}, ("captions_train2014.json", BOMB * 2, b" "))


def make_vist_lying(folder: Path) -> Path:
    path = _plain_zip(folder / "vist-lying.zip", "test.story-in-sequence.json", BOMB, b" ")
    _state_size(path, "test.story-in-sequence.json", 200 * MiB)
    return path


def _deep_json(folder: Path, name: str, head: bytes, size: int) -> Path:
    """`head`, then a list nested as deep as `size` bytes allow (half opening, half closing brackets), then the
    other sections of the format empty."""
    depth = (size - len(head) - 40) // 2
    path = folder / name
    path.write_bytes(head + b"[" * depth + b"]" * depth + b', "images": [], "annotations": []}')
    return path


def make_vist_deep(folder: Path) -> Path:
    return _deep_json(folder, "test.story-in-sequence.json", b'{"albums": ', 39 * 1024)


def make_vist_deeper(folder: Path) -> Path:
    return _deep_json(folder, "test.story-in-sequence.json", b'{"albums": ', 100 * 1024)


def make_coco_deep(folder: Path) -> Path:
    return _deep_json(folder, "captions_train2014.json", b'{"info": ', 100 * 1024)


def make_vist_albums_twice(folder: Path) -> Path:
    album = {"id": "1", "title": "a", "description": "", "location": None, "owner": "x", "date_create": "",
             "date_update": "", "photos": "1", "vist_label": "beach"}
    path = folder / "test.story-in-sequence.json"
    path.write_text('{"albums": [' + json.dumps(album) + '], "albums": [' + json.dumps({**album, "id": "2"})
                    + '], "images": [], "annotations": [], "type": "story-in-sequence"}')
    return path


def make_images_all_refused(folder: Path) -> Path:
    return _zip(folder / "all-refused.zip", {f"photo-{n}.jpg": b"not a picture" for n in range(50)})


def _token_file(folder: Path, name: str, size: int, line: Callable[[int, int], str], per_image: int) -> Path:
    """A zip of a Flickr8k token file of about `size` bytes: `line(image, n)` for n < per_image, image by image."""
    text = io.StringIO()
    written = image = 0
    while written < size:
        for n in range(per_image):
            written += text.write(line(image, n))
        image += 1
    return _zip(folder / name, {"Flickr8k_text/Flickr8k.token.txt": text.getvalue().encode()})


WORDS = "a dog man woman child runs on the grass in white shirt red ball street with two people water beach".split()


def make_flickr8k_tokens(folder: Path) -> Path:
    """60 MiB in the release's shape: five captions of 12 words per image, `<flickr id>_<secret>.jpg#n`."""
    return _token_file(folder, "flickr8k-60mib.zip", 60 * MiB, lambda image, n: (
        f"{1_000_000_000 + image}_{image * 7919 % 16**10:010x}.jpg#{n}\t"
        f"{' '.join(WORDS[(image * 5 + n + k * 7) % len(WORDS)] for k in range(11))} .\n"), 5)


def make_flickr8k_tiny_lines(folder: Path) -> Path:
    """8 MiB of the shortest lines an image can have: `<id>_a.jpg#0 TAB a`, one caption per image (500,000 images,
    past the importer's cap of 200,000)."""
    return _token_file(folder, "flickr8k-tiny.zip", 8 * MiB, lambda image, n: f"{image}_a.jpg#0\ta\n", 1)


def make_label_chain(folder: Path) -> Path:
    path = folder / "chain.txt"
    path.write_text("\n".join(["l0"] + [f"l{n} | | | l{n - 1}" for n in range(1, 25_000)]))
    return path


def run_label_chain(path: Path) -> str:
    """What POST /api/vocabularies/ runs on typed labels (the cycle check included)."""
    from annotation.services.concepts import ConceptImportError
    from annotation.vocabularies.services import create_vocabulary

    try:
        created = create_vocabulary("chain", labels=path.read_text())
    except ConceptImportError as exc:
        return f"refused: {exc.errors[0]}"[:160]
    return f"created: {created.created} labels"


def make_images_bomb(folder: Path) -> Path:
    return _zip(folder / "images-bomb.zip", {}, ("photo.jpg", BOMB, b""))


def make_npz_zeros(folder: Path) -> Path:
    path = folder / "zeros.npz"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive, \
            archive.open("arr_0.npy", "w", force_zip64=True) as member:
        member.write(_npy((12000, 12000)))
        for _ in range(12000 * 12000 * 8 // MiB):
            member.write(bytes(MiB))
    return path


def make_npy_huge(folder: Path) -> Path:
    path = folder / "huge.npy"
    path.write_bytes(_npy((100_000, 100_000), bytes(1024)))
    return path


def make_npz_object(folder: Path) -> Path:
    import numpy as np

    buffer = io.BytesIO()
    np.savez(buffer, np.array([{"a": 1}] * 1000, dtype=object))
    path = folder / "object.npz"
    path.write_bytes(buffer.getvalue())
    return path


def make_npy_pool(folder: Path) -> Path:
    import numpy as np

    path = folder / "scores.npy"
    np.save(path, np.random.default_rng(1).random(POOL))
    return path


def make_csv_pool(folder: Path) -> Path:
    import numpy as np

    path = folder / "scores.csv"
    np.savetxt(path, np.random.default_rng(1).random(POOL), delimiter=",", fmt="%.6f")
    return path


def make_captions(folder: Path) -> Path:
    path = folder / "generated.json"
    entries = [{"image_id": 100_000 + n // 5, "caption": f"a black cat sitting on a red chair number {n}"}
               for n in range(400_000)]
    path.write_text(json.dumps(entries))
    return path


def run_captions(path: Path) -> str:
    from annotation.compositional.services.evaluations import _Errors, read_generated

    errors = _Errors()
    generated, _where = read_generated(path.read_bytes(), errors)
    return f"read: captions of {len(generated)} images" + (f"; {errors[0]}" if errors else "")


def run_importer(name: str, options: dict[str, str]) -> Callable[[Path], str]:
    def run(path: Path) -> str:
        from mturk.importers import ImportProblems, ImportRefused, get_importer

        try:
            result = get_importer(name).run(path, options, lambda done, total: None)
        except ImportProblems as exc:
            return f"refused: {exc.problems[0][0]}: {exc.problems[0][1]}"[:160]
        except ImportRefused as exc:
            return f"refused: {exc}"[:160]
        collection = f"; the collection '{result['image_set']}'" if result.get("image_set") else \
            ("; no collection" if name == "images" else "")
        return f"imported: {result['summary']}{collection}"[:160]

    return run


def run_submission(path: Path) -> str:
    import numpy as np

    from annotation.ranking.services.submissions import PoolIndex, SubmissionError, parse_submission

    index = PoolIndex(list(range(POOL[0])), list(range(POOL[1])), np.arange(POOL[1]) // 5)
    try:
        scores = parse_submission(path.read_bytes(), path.name, index)
    except SubmissionError as exc:
        return f"refused: {exc.errors[0]}"[:160]
    assert scores.description is not None
    return f"read: a {scores.description.shape[0]}x{scores.description.shape[1]} matrix"


IMAGECLEF = run_importer("imageclef", {"vocabulary": "bench", "set": "bench", "tags": ""})
COCO = run_importer("coco", {"subset": "", "set": "bench", "tags": ""})
CASES: dict[str, tuple[str, str, Callable[[Path], Path], Callable[[Path], str]]] = {
    "imageclef-bomb": ("ImageCLEF zip, descriptions.tsv 284 MiB (honest header)", "IMPORT_MAX_DOCUMENT_BYTES",
                       make_imageclef_bomb, IMAGECLEF),
    "imageclef-lying": ("ImageCLEF zip, descriptions.tsv of rows stating 63 MiB, holding 284 MiB",
                        "IMPORT_MAX_DOCUMENT_BYTES", make_imageclef_lying, IMAGECLEF),
    "coco-lying": ("COCO zip, captions stating 1 KiB, holding 284 MiB", "IMPORT_MAX_ENTRY_BYTES", make_coco_lying,
                   COCO),
    "coco-bomb": ("COCO zip, captions of 568 MiB (honest header)", "IMPORT_MAX_ENTRY_BYTES", make_coco_bomb, COCO),
    "vist-lying": ("VIST zip, a file stating 200 MiB, holding 284 MiB of spaces", "IMPORT_MAX_ENTRY_BYTES",
                   make_vist_lying, run_importer("vist", {})),
    "images-bomb": ("image zip, one member of 284 MiB of zeros", "IMAGE_MAX_BYTES", make_images_bomb,
                    run_importer("images", {"set": "bench", "tags": ""})),
    "npz-zeros": ("ranking .npz of 12000x12000 zeros (1.1 MB)", "RANKING_MAX_BYTES", make_npz_zeros,
                  run_submission),
    "npy-huge": (".npy whose header claims 100000x100000", "RANKING_MAX_BYTES", make_npy_huge, run_submission),
    "npz-object": (".npz holding an object array", "RANKING_MAX_BYTES", make_npz_object, run_submission),
    "npy-pool": (".npy score matrix 1000x5000 float64 (40 MB)", "RANKING_MAX_BYTES", make_npy_pool, run_submission),
    "csv-pool": ("CSV score matrix 1000x5000 (45 MB)", "RANKING_MAX_BYTES", make_csv_pool, run_submission),
    "captions": ("compositional evaluation, 400,000 generated captions (28 MB)", "COMPOSITIONAL_MAX_BYTES",
                 make_captions, run_captions),
    "vist-deep": ("VIST file nested 19,900 levels deep (39 KiB)", "IMPORT_MAX_ENTRY_BYTES", make_vist_deep,
                  run_importer("vist", {})),
    "vist-deeper": ("VIST file nested 51,000 levels deep (100 KiB)", "IMPORT_MAX_ENTRY_BYTES", make_vist_deeper,
                    run_importer("vist", {})),
    "coco-deep": ("COCO captions file nested 51,000 levels deep (100 KiB)", "IMPORT_MAX_ENTRY_BYTES", make_coco_deep,
                  COCO),
    "vist-albums-twice": ('VIST file naming "albums" twice', "IMPORT_MAX_ENTRY_BYTES", make_vist_albums_twice,
                          run_importer("vist", {})),
    "images-all-refused": ("image zip of 50 files, every one refused", "IMAGE_MAX_BYTES", make_images_all_refused,
                           run_importer("images", {"set": "bench", "tags": ""})),
    "label-chain": ("vocabulary of 25,000 labels in one parent chain (typed lines)", "JSON_MAX_BYTES",
                    make_label_chain, run_label_chain),
    "flickr8k-tokens": ("Flickr8k token file of 60 MiB, release-shaped (zip), imported", "FILE", make_flickr8k_tokens,
                        run_importer("flickr8k", {"set": "bench"})),
    "flickr8k-tiny-lines": ("Flickr8k token file of 8 MiB, one 12-byte line per image (500,000 images; zip)", "FILE",
                            make_flickr8k_tiny_lines, run_importer("flickr8k", {"set": "bench"})),
}


def child_prepare(args: argparse.Namespace) -> dict[str, Any]:
    return migrate_empty(SQLITE_PATH)


def child_baseline(args: argparse.Namespace) -> dict[str, Any]:
    setup_django()
    import numpy  # noqa: F401

    from annotation.ranking.services import submissions  # noqa: F401
    from mturk.importers import get_importer

    get_importer("imageclef")
    return {}


def child_make(args: argparse.Namespace) -> dict[str, Any]:
    """The input, made in a process of its own: Linux keeps a process's peak memory across exec, so a parent that
    made 284 MiB inputs would hand its peak to every measured child."""
    path = CASES[args.case][2](Path(args.input))
    expanded = path.stat().st_size
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            expanded = sum(info.file_size for info in archive.infolist())
    return {"path": str(path), "mib": path.stat().st_size / MiB, "expanded_mib": expanded / MiB}


def child_case(args: argparse.Namespace) -> dict[str, Any]:
    setup_django()
    return {"outcome": CASES[args.case][3](Path(args.input))}


CHILDREN = {"prepare": child_prepare, "baseline": child_baseline, "make": child_make, "case": child_case}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", choices=sorted(CASES), help="these cases only")
    parser.add_argument("--child", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--input", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        emit(CHILDREN[args.child](args))
        return
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{SQLITE_PATH}", "DEBUG": os.environ.get("DEBUG", "1"),
           **{name: str(value) for name, value in LIMITS.items()}}
    env.pop("CELERY_BROKER_URL", None)
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)
    run_child(__file__, "prepare", env)
    baseline = run_child(__file__, "baseline", env)["rss_mb"]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name in args.only or list(CASES):
            label, limit_name, _make, _run = CASES[name]
            made = run_child(__file__, "make", env, "--case", name, "--input", folder)
            path = Path(made["path"])
            result = run_child(__file__, "case", env, "--case", name, "--input", str(path))
            growth = max(result["rss_mb"] - baseline, 0.0)
            if limit_name == "FILE":  # held to the input's own size (expanded, for a zip)
                limit_name, limit = "the file's size", made["expanded_mib"]
            else:
                limit = LIMITS[limit_name] / MiB
            rows.append((label, path.stat().st_size / MiB, limit_name, limit, growth, result["wall_s"],
                         result["outcome"]))
            print(f"  {name}: +{growth:.0f} MiB in {result['wall_s']:.1f} s: {result['outcome']}", flush=True)
            path.unlink()
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}\n")
    print(f"baseline (Django and the modules loaded): {baseline:.0f} MiB\n")
    print("| input | size | limit | growth of peak RSS | growth / limit | wall | outcome |")
    print("|---|---|---|---|---|---|---|")
    for label, size, limit_name, limit, growth, wall, outcome in rows:
        print(f"| {label} | {size:.1f} MiB | {limit_name} {limit:.0f} MiB | {growth:.0f} MiB | {growth / limit:.2f} "
              f"| {wall:.1f} s | {json.dumps(outcome)[1:-1]} |")


if __name__ == "__main__":
    main()
