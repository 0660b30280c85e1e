"""Benchmark of the renditions task pages show, on real photographs: bytes and render time.

Run: .venv/bin/python bench/renditions.py [--runs 3] [--photos DIR ...]

Photo sets (real photographs, never drawings):
  skimage   the photographs in scikit-image's wheel (skimage/data; 300-1411 px, so their 1024 px
            rendition is mostly the photo at its own size): people, a cat, coffee, a rocket launch, a
            street scene, a dense star field, and close-ups of grass and gravel (the hardest to compress)
  DIR       every JPEG / PNG / WebP in a folder given with --photos; by default also Debian's
            mate-backgrounds nature photographs (12 photos, 1280-2560 px) when that package is installed

For each photo, in the same run: the bytes of the 320 and 1024 px renditions made the current way (WebP within
byte budgets) and the earlier way (JPEG quality 80, optimized, progressive), the fidelity of the current ones
(PSNR against the same Lanczos downscale, uncompressed), and the time to make both current renditions from the
stored original (median of --runs, with the range). A last line times a 4000 px JPEG made by enlarging the
largest photo (time only: an enlarged photo's bytes say nothing about a real 4000 px one)."""
from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

MATE_NATURE = Path("/usr/share/backgrounds/mate/nature")
SKIMAGE_PHOTOS = ["astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "motorcycle_left.png",
                  "hubble_deep_field.jpg", "camera.png", "grass.png", "gravel.png"]
SIZES = {"thumb_small": 320, "thumb_large": 1024}


@dataclass
class Measured:
    name: str
    size: tuple[int, int]
    new: dict[str, int]
    old: dict[str, int]
    psnr: dict[str, float]
    seconds: list[float]


def skimage_photos() -> list[tuple[str, bytes]]:
    import skimage

    folder = Path(skimage.__file__).parent / "data"
    return [(name, (folder / name).read_bytes()) for name in SKIMAGE_PHOTOS]


def folder_photos(folder: Path) -> list[tuple[str, bytes]]:
    return [(p.name, p.read_bytes()) for p in sorted(folder.iterdir())
            if p.suffix.lower() in (".jpg", ".jpeg", ".png", ".webp")]


def old_recipe(picture, longest: int) -> int:
    from PIL import Image as PILImage

    copy = picture.copy()
    copy.thumbnail((longest, longest), PILImage.Resampling.LANCZOS)
    buffer = io.BytesIO()
    copy.save(buffer, "JPEG", quality=80, optimize=True, progressive=True)
    return len(buffer.getvalue())


def psnr(reference, candidate) -> float:
    import numpy as np

    a = np.asarray(reference.convert("RGB"), dtype=np.float64)
    b = np.asarray(candidate.convert("RGB"), dtype=np.float64)
    mse = ((a - b) ** 2).mean()
    return float("inf") if mse == 0 else float(10 * np.log10(255**2 / mse))


def measure(name: str, data: bytes, runs: int) -> Measured:
    from PIL import Image as PILImage
    from PIL import ImageOps

    from annotation.services.image_files import render_thumbnails

    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        made = render_thumbnails(data)
        seconds.append(time.perf_counter() - started)
    with PILImage.open(io.BytesIO(data)) as image:
        picture = ImageOps.exif_transpose(image).convert("RGB")
    quality = {}
    for field, longest in SIZES.items():
        reference = picture.copy()
        reference.thumbnail((longest, longest), PILImage.Resampling.LANCZOS)
        with PILImage.open(io.BytesIO(made[field])) as rendition:
            quality[field] = psnr(reference, rendition)
    return Measured(name, picture.size, {f: len(made[f]) for f in SIZES},
                    {f: old_recipe(picture, s) for f, s in SIZES.items()}, quality, seconds)


def kb(n: float) -> str:
    return f"{n / 1024:.1f}"


def report(label: str, rows: list[Measured]) -> None:
    from annotation.services.image_files import RENDITION_BUDGETS

    print(f"\n{label}")
    print(f"{'photo':<24} {'size':>10} | {'320 px KB new/old':>17} {'PSNR':>5} | {'1024 px KB new/old':>18} "
          f"{'PSNR':>5} | render ms median (range)")
    for row in rows:
        spread = f"{min(row.seconds) * 1000:.0f}-{max(row.seconds) * 1000:.0f}"
        print(f"{row.name[:24]:<24} {row.size[0]:>5}x{row.size[1]:<4} | "
              f"{kb(row.new['thumb_small']):>8}/{kb(row.old['thumb_small']):<8} {row.psnr['thumb_small']:>5.1f} | "
              f"{kb(row.new['thumb_large']):>9}/{kb(row.old['thumb_large']):<8} {row.psnr['thumb_large']:>5.1f} | "
              f"{statistics.median(row.seconds) * 1000:.0f} ({spread})")
    for field, longest in SIZES.items():
        new = [r.new[field] for r in rows]
        old = [r.old[field] for r in rows]
        over = sum(size > RENDITION_BUDGETS[field] for size in new)
        print(f"  {longest} px: current median {kb(statistics.median(new))} KB, max {kb(max(new))} KB "
              f"(budget {kb(RENDITION_BUDGETS[field])} KB, {over} over); earlier JPEG median "
              f"{kb(statistics.median(old))} KB, max {kb(max(old))} KB")
    medians = [statistics.median(r.seconds) for r in rows]
    print(f"  render (both sizes): median {statistics.median(medians) * 1000:.0f} ms per photo, "
          f"slowest {max(medians) * 1000:.0f} ms")


def enlarged_timing(rows: list[tuple[str, bytes]], runs: int) -> None:
    from PIL import Image as PILImage

    from annotation.services.image_files import render_thumbnails

    name, data = max(rows, key=lambda item: PILImage.open(io.BytesIO(item[1])).size[0])
    with PILImage.open(io.BytesIO(data)) as image:
        picture = image.convert("RGB")
    big = picture.resize((4000, round(4000 * picture.height / picture.width)), PILImage.Resampling.LANCZOS)
    buffer = io.BytesIO()
    big.save(buffer, "JPEG", quality=90)
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        render_thumbnails(buffer.getvalue())
        seconds.append(time.perf_counter() - started)
    print(f"\n4000x{big.height} JPEG (enlarged from {name}, time only): render median "
          f"{statistics.median(seconds) * 1000:.0f} ms ({min(seconds) * 1000:.0f}-{max(seconds) * 1000:.0f})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3, help="renders of each photo (timing median and range)")
    parser.add_argument("--photos", type=Path, action="append", default=[],
                        help="a folder of real photographs (repeatable)")
    args = parser.parse_args()
    import django

    django.setup()
    from PIL import features

    print(f"Pillow {features.version('pil')}, libwebp {features.version('webp')}, {args.runs} run(s) per photo")
    sets = [("scikit-image photographs (skimage/data)", skimage_photos())]
    folders = list(args.photos) + ([MATE_NATURE] if MATE_NATURE.is_dir() and MATE_NATURE not in args.photos else [])
    if not folders:
        print(f"({MATE_NATURE} is missing: `apt-get install mate-backgrounds` adds 12 photographs of 1280-2560 px)")
    sets += [(f"photographs in {folder}", folder_photos(folder)) for folder in folders]
    every: list[tuple[str, bytes]] = []
    for label, photos in sets:
        report(label, [measure(name, data, args.runs) for name, data in photos])
        every += photos
    enlarged_timing(every, args.runs)


if __name__ == "__main__":
    main()
