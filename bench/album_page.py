"""Benchmark of the storytelling task page for an album of 50 photos, in process (no network).

Run: .venv/bin/python bench/album_page.py [--photos 50] [--requests 200]
(honours DATABASE_URL; uses a throw-away database). Prints median and p99 server time of the page
and of a story submission, their query counts, and the page's size."""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from throwaway import count_queries, throwaway_database  # noqa: E402  (bench/ is on sys.path as a script)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--photos", type=int, default=50)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()

    with throwaway_database():
        from django.db import connection
        from django.test import Client

        from mturk.services.campaigns import create_campaign, publish_campaign
        from tests.factories import make_album
        from tests.worker_flow import start_task, submit

        album = make_album(args.photos)
        campaign = create_campaign(name="bench", task_kind="tell_story", items=[{"album": album.pk}],
                                   assignments_per_hit=args.requests)
        publish_campaign(campaign)
        from django.conf import settings

        settings.ARRIVAL_RATE = f"{args.requests}/m"  # one client starts every task here; the limit is not measured
        client = Client()
        tokens = [start_task(client, campaign) for _ in range(args.requests)]
        photos = list(album.photos.order_by("datetaken").values_list("pk", flat=True))[:5]
        answer = {"cards": [{"photo": p, "text": f"Sentence {i} of a story about a day out."}
                            for i, p in enumerate(photos)]}
        page_queries = count_queries(connection, lambda: client.get(f"/task/?t={tokens[0]}"))
        size = len(client.get(f"/task/?t={tokens[0]}").content)
        page_times, submit_times = [], []
        for token in tokens:
            started = time.perf_counter()
            response = client.get(f"/task/?t={token}")
            page_times.append(time.perf_counter() - started)
            assert response.status_code == 200
        submit_queries = count_queries(connection, lambda: submit(client, {"token": tokens[0], "answer": answer}))
        for token in tokens[1:]:
            started = time.perf_counter()
            response = submit(client, {"token": token, "answer": answer})
            submit_times.append(time.perf_counter() - started)
            assert response.status_code == 201, response.content

        def ms(values: list[float]) -> str:
            return (f"median {statistics.median(values) * 1000:.1f} ms, "
                    f"p99 {statistics.quantiles(values, n=100)[98] * 1000:.1f} ms")

        print(f"database: {connection.vendor}; album of {args.photos} photos, {len(tokens)} requests")
        print(f"tell_story page: {ms(page_times)}, {page_queries} queries, {size / 1024:.1f} KB of HTML")
        print(f"story submission: {ms(submit_times)}, {submit_queries} queries")


if __name__ == "__main__":
    main()
