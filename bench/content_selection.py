"""Benchmark of the content-selection report on a deterministic synthetic data set (pure Python, no Django).

Run: .venv/bin/python bench/content_selection.py [--images 500] [--runs 5] [--html report.html]
Builds images of ~10 boxes and ~10 gold descriptions (each referencing 1-5 boxes, salient concepts first, over a
50-concept vocabulary), times `content_selection_report` (median of --runs runs, k = 1..15) and prints the time,
the human upper bound and P/R/F of a few baselines."""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from metrics.baselines import content_selection_report  # noqa: E402
from metrics.content_selection_report_html import render_html  # noqa: E402
from metrics.grounded import BoxRecord, DescriptionRecord, ImageRecord  # noqa: E402

# Most salient first: people, animals, vehicles, objects, then scenery; the index is the concept's salience rank.
VOCABULARY = (
    "man woman boy girl child person player rider dog cat horse cow bird sheep bicycle car bus motorbike boat train "
    "aeroplane ball bag hat dress shirt umbrella bottle cup chair table sofa bench sign kite frisbee skateboard "
    "surfboard laptop phone book flower plant tree grass road building sky water wall floor"
).split()


def synthetic_image(rng: random.Random, index: int) -> ImageRecord:
    """One image: boxes of random concepts and sizes, descriptions that favour salient, large, central boxes."""
    width, height = 640, 480
    boxes = []
    for number in range(rng.randint(6, 14)):
        concept = VOCABULARY[min(int(rng.expovariate(1 / 12)), len(VOCABULARY) - 1)]
        w, h = rng.uniform(20, 400), rng.uniform(20, 300)
        boxes.append(BoxRecord(number, concept, rng.uniform(0, width - w), rng.uniform(0, height - h), w, h))
    salience = {}
    for box in boxes:
        cx, cy = box.centre
        centrality = 1 - ((cx - width / 2) ** 2 + (cy - height / 2) ** 2) ** 0.5 / 400
        rank = VOCABULARY.index(box.concept)
        salience[box.number] = (box.area / (width * height)) ** 0.5 + centrality + 3 / (1 + rank / 5)
    descriptions = []
    for d in range(rng.randint(7, 13)):
        links = {}
        if rng.random() > 0.03:  # a few descriptions link no box
            count = min(rng.choice((1, 2, 2, 3, 3, 3, 4, 4, 5)), len(boxes))
            chosen = sorted(boxes, key=lambda box: -salience[box.number] * rng.uniform(0.8, 1.25))[:count]
            ordered = sorted(chosen, key=lambda box: VOCABULARY.index(box.concept) + rng.gauss(0, 4))
            for position, box in enumerate(ordered):
                links[2 * position + 1] = box.number
        tokens = ["a"] + [word for box_number in links.values() for word in ("thing", "and")] + ["."]
        descriptions.append(DescriptionRecord(f"{index}-{d}", tokens, links))
    return ImageRecord(f"synthetic-{index:04d}", width, height, boxes, descriptions)


def synthetic_dataset(images: int, seed: int = 0) -> list[ImageRecord]:
    rng = random.Random(seed)
    return [synthetic_image(rng, index) for index in range(images)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--html", type=Path, help="also write the HTML report here")
    args = parser.parse_args()

    images = synthetic_dataset(args.images)
    times, report = [], {}
    for _ in range(args.runs):
        started = time.perf_counter()
        report = content_selection_report(images, k_max=15, seed=0)
        times.append(time.perf_counter() - started)
    stats = report["statistics"]
    print(f"{stats['images']} images, {stats['descriptions']} descriptions "
          f"({stats['descriptions_per_image']['mean']:.1f} per image), {stats['boxes_per_image_mean']:.1f} boxes "
          f"per image, {stats['mean_unique_boxes_per_description']:.2f} unique boxes per description")
    print(f"content_selection_report (7 systems, k = 1..15): median {statistics.median(times) * 1000:.0f} ms "
          f"over {args.runs} runs (min {min(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms)")
    upper = report["upper_bound"]
    print(f"human upper bound ({upper['images']} images): P {upper['p_mean']:.2f} ± {upper['p_std']:.2f}, "
          f"R {upper['r_mean']:.2f} ± {upper['r_std']:.2f}, F {upper['f_mean']:.2f} ± {upper['f_std']:.2f}")
    print(f"{'system':<18} {'k':>2}  {'P':>11}  {'R':>11}  {'F':>11}")
    for name in ("random", "bbox_size", "bbox_position", "unigram", "bigram", "bigram+position"):
        for row in report["baselines"][name]:
            if row["k"] in (1, 3, 5, 10):
                print(f"{name:<18} {row['k']:>2}  {row['p_mean']:.2f} ± {row['p_std']:.2f}  "
                      f"{row['r_mean']:.2f} ± {row['r_std']:.2f}  {row['f_mean']:.2f} ± {row['f_std']:.2f}")
    if args.html:
        args.html.write_text(render_html(report, f"Content selection: {args.images} synthetic images"), "utf-8")
        print(f"wrote {args.html}")


if __name__ == "__main__":
    main()
