"""Benchmark of ranked submissions and pooled judging: 10 systems on a pool of 1,000 images x 5,000 captions.

Run: .venv/bin/python bench/pooled_judging.py [--images 1000] [--captions-per-image 5] [--systems 10] [--k 10]
(honours DATABASE_URL; uses a throw-away test database). Stores the images and captions as rows, freezes the pool,
then submits each system's seeded random score matrix (.npy): a shared signal plus the system's own noise, so
the systems' top-k lists overlap as real systems' do. Prints, per submission, the time and queries of
`submit_ranking` (check, evaluate, queue the new top-k pairs as judge_caption HITs) and the pairs it queued,
then the leaderboard's time and queries with every system."""
from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import numpy as np  # noqa: E402
from throwaway import throwaway_database  # noqa: E402  (bench/ is on sys.path as a script)


def store(n_images: int, per_image: int) -> None:
    from annotation.models import Description, Image

    images = Image.objects.bulk_create(
        Image(key=f"img{n}", sha256=f"{n:064x}", original=f"images/originals/img{n}.jpg",
              original_name=f"img{n}.jpg", format="JPEG", width=640, height=480, file_size=1)
        for n in range(n_images))
    Description.objects.bulk_create((Description(image=image, text=f"caption {c} of image {image.key}",
                                                 source="gold") for image in images for c in range(per_image)),
                                    batch_size=5000)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--captions-per-image", type=int, default=5)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args()
    with throwaway_database():
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        from annotation.ranking.selectors import leaderboard
        from annotation.ranking.services.pooled_judging import judging_campaign
        from annotation.ranking.services.pools import create_test_pool
        from annotation.ranking.services.submissions import submit_ranking

        store(args.images, args.captions_per_image)
        started = time.perf_counter()
        pool = create_test_pool("bench", all_descriptions=True)
        print(f"database: {connection.vendor}; pool of {args.images} images x "
              f"{args.images * args.captions_per_image} captions frozen in {time.perf_counter() - started:.2f} s")
        rng = np.random.default_rng(0)
        signal = rng.normal(size=(args.images, args.images * args.captions_per_image))
        times = []
        for n in range(args.systems):
            matrix = signal + rng.normal(scale=1.0, size=signal.shape)
            buffer = io.BytesIO()
            np.save(buffer, matrix.astype(np.float32))
            started = time.perf_counter()
            with CaptureQueriesContext(connection) as queries:
                submission = submit_ranking(pool, f"system-{n}", buffer.getvalue(), "scores.npy", k=args.k)
            elapsed = time.perf_counter() - started
            times.append(elapsed)
            campaign = judging_campaign(pool)
            hits = campaign.hits.count() if campaign else 0
            print(f"system {n}: {elapsed:.2f} s, {len(queries)} queries; "
                  f"{sum(len(p) for p in submission.top_pairs.values())} top-{args.k} pairs; {hits} HITs in all")
        print(f"submission: median {statistics.median(times):.2f} s, total {sum(times):.2f} s")
        started = time.perf_counter()
        with CaptureQueriesContext(connection) as queries:
            board = leaderboard(pool)
        print(f"leaderboard of {len(board['systems'])} systems: {time.perf_counter() - started:.2f} s, "
              f"{len(queries)} queries")


if __name__ == "__main__":
    main()
