"""Benchmark of ranked submissions and pooled judging: 10 systems on a pool of 1,000 images x 5,000 captions.

Run: .venv/bin/python bench/pooled_judging.py [--images 1000] [--captions-per-image 5] [--systems 10] [--k 10]
(honours DATABASE_URL; uses a throw-away test database). Stores the images and captions as rows, freezes the pool,
then submits each system's seeded random score matrix (.npy): a shared signal plus the system's own noise, so
the systems' top-k lists overlap as real systems' do. Prints, per submission, the time and queries of
`submit_ranking` (check, evaluate, queue the new top-k pairs as judge_caption HITs) and the pairs it queued, and
the time of the leaderboard job that stores the new system's figures (run here as a worker would, after the
submission). Then, with every system: the stored leaderboard read (`--reads` times: median and max, queries), the
recomputation it replaces (every file re-read and re-parsed), an import of `--judgements` relevance judgements
and the job that recomputes the 10 systems on them, and a check that the stored figures equal the recomputed
ones."""
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
    parser.add_argument("--reads", type=int, default=20)
    parser.add_argument("--judgements", type=int, default=20000)
    args = parser.parse_args()
    with throwaway_database():
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        from annotation.ranking.selectors import computed_leaderboard, leaderboard
        from annotation.ranking.services import board_queue, leaderboards
        from annotation.ranking.services.judgement_import import import_judgements
        from annotation.ranking.services.pooled_judging import judging_campaign
        from annotation.ranking.services.pools import create_test_pool
        from annotation.ranking.services.submissions import submit_ranking

        queued: list[int] = []  # the leaderboard jobs, run below as a worker would
        board_queue._queue = queued.extend  # type: ignore[assignment]
        store(args.images, args.captions_per_image)
        started = time.perf_counter()
        pool = create_test_pool("bench", all_descriptions=True)
        leaderboards.refresh_leaderboard(pool)
        queued.clear()
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
            started = time.perf_counter()
            computed = leaderboards.refresh_leaderboard(pool) if queued else 0
            job = time.perf_counter() - started
            queued.clear()
            campaign = judging_campaign(pool)
            hits = campaign.hits.count() if campaign else 0
            print(f"system {n}: {elapsed:.2f} s, {len(queries)} queries; "
                  f"{sum(len(p) for p in submission.top_pairs.values())} top-{args.k} pairs; {hits} HITs in all; "
                  f"leaderboard job {job:.2f} s ({computed} system)")
        print(f"submission: median {statistics.median(times):.2f} s, total {sum(times):.2f} s")
        reads = []
        for _ in range(args.reads):
            started = time.perf_counter()
            with CaptureQueriesContext(connection) as queries:
                board = leaderboard(pool)
            reads.append(time.perf_counter() - started)
        print(f"stored leaderboard of {len(board['systems'])} systems: "
              f"median {statistics.median(reads) * 1000:.1f} ms, max {max(reads) * 1000:.1f} ms, "
              f"{len(queries)} queries, stale: {board['stale']}")
        started = time.perf_counter()
        recomputed = computed_leaderboard(pool)
        print(f"recomputed leaderboard (every file re-read): {time.perf_counter() - started:.2f} s")
        image_ids, caption_ids = (list(pool.pool_images.values_list("image_id", flat=True)),
                                  list(pool.pool_captions.values_list("description_id", flat=True)))
        picks = zip(rng.integers(len(image_ids), size=args.judgements),
                    rng.integers(len(caption_ids), size=args.judgements), rng.random(args.judgements), strict=True)
        rows = "".join(f"{image_ids[i]},{caption_ids[c]},{'yes' if r < 0.3 else 'no'}\n" for i, c, r in picks)
        started = time.perf_counter()
        import_judgements(("image,caption,relevant\n" + rows).encode())
        imported = time.perf_counter() - started
        stale = leaderboard(pool)["stale"]
        started = time.perf_counter()
        computed = leaderboards.refresh_leaderboard(pool)
        job = time.perf_counter() - started
        board, recomputed = leaderboard(pool), computed_leaderboard(pool)
        print(f"{args.judgements} judgements imported in {imported:.2f} s (board stale: {stale}); leaderboard job "
              f"{job:.2f} s ({computed} systems); {board['judged_pairs']} judged pairs; "
              f"stale after: {board['stale']}")
        same = {k: v for k, v in board.items() if k not in ("stale", "pending", "updated_at")} == recomputed
        print(f"stored figures equal the recomputed ones: {same}")


if __name__ == "__main__":
    main()
