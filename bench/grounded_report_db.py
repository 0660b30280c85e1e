"""Benchmark of the content-selection report end to end: loading from the database, then the report.

Run: .venv/bin/python bench/grounded_report_db.py [--images 500] [--runs 5]
(honours DATABASE_URL; uses a throw-away test database). Stores the synthetic data of
bench/content_selection.py as rows (images, concepts, boxes, descriptions, correspondence), then
times `grounded_dataset()` (the queries) and `grounded_report()` (metric, upper bound, baselines
k = 1..15, link agreement) and prints the medians and the query count."""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from throwaway import throwaway_database  # noqa: E402  (bench/ is on sys.path as a script)


def store(images) -> None:
    from annotation.models import Box, Concept, Correspondence, Description, Image, Vocabulary, WordLink

    names = sorted({b.concept for i in images for b in i.boxes})
    vocabulary = Vocabulary.objects.create(name="bench")
    concepts = {name: Concept.objects.create(vocabulary=vocabulary, name=name) for name in names}
    rows = Image.objects.bulk_create(
        Image(key=i.key, sha256=f"{n:064x}", original=f"images/originals/{i.key}.jpg", original_name=f"{i.key}.jpg",
              format="JPEG", width=i.width, height=i.height, file_size=1)
        for n, i in enumerate(images)
    )
    boxes = Box.objects.bulk_create(
        Box(image=row, number=b.number, concept=concepts[b.concept], x=int(b.x), y=int(b.y), width=max(1, int(b.width)),
            height=max(1, int(b.height)))
        for row, i in zip(rows, images, strict=True) for b in i.boxes
    )
    box_pk = {(b.image_id, b.number): b.pk for b in boxes}
    descriptions = Description.objects.bulk_create(
        Description(image=row, text=" ".join(d.tokens), tokens=d.tokens, source="gold")
        for row, i in zip(rows, images, strict=True) for d in i.descriptions
    )
    correspondences = Correspondence.objects.bulk_create(Correspondence(description=d, source="gold")
                                                         for d in descriptions)
    records = [d for i in images for d in i.descriptions]
    WordLink.objects.bulk_create(
        (WordLink(correspondence=c, token_index=t, box_id=box_pk[(c.description.image_id, n)])
         for c, record in zip(correspondences, records, strict=True) for t, n in record.links.items()),
        batch_size=5000,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with throwaway_database():
        from content_selection import synthetic_image
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        from annotation.reports import grounded_report
        from annotation.selectors import grounded_dataset

        rng = random.Random(0)
        images = [synthetic_image(rng, n) for n in range(args.images)]
        store(images)
        load_times, report_times = [], []
        for _ in range(args.runs):
            started = time.perf_counter()
            with CaptureQueriesContext(connection) as queries:
                dataset = grounded_dataset()
            loaded = time.perf_counter()
            report = grounded_report(dataset)
            load_times.append(loaded - started)
            report_times.append(time.perf_counter() - loaded)
        stats = report["statistics"]
        print(f"database: {connection.vendor}; {stats['images']} images, {stats['descriptions']} descriptions, "
              f"{stats['boxes_per_image_mean']:.1f} boxes per image")
        print(f"load: median {statistics.median(load_times):.2f} s, {len(queries)} queries")
        print(f"report (upper bound + 7 baselines, k = 1..15): median {statistics.median(report_times):.2f} s")
        total = [a + b for a, b in zip(load_times, report_times, strict=True)]
        print(f"total: median {statistics.median(total):.2f} s")


if __name__ == "__main__":
    main()
