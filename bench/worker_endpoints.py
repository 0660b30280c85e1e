"""Benchmark of the worker endpoints, in process (no network): task page and submission.

Run: .venv/bin/python bench/worker_endpoints.py [--hits 200] [--requests 300]
(honours DATABASE_URL; uses a throw-away database: the test database of the configured server,
or an in-memory SQLite one). Prints median and p99 server time and the query counts. Rendition sizes are
measured on real photographs by bench/renditions.py."""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from throwaway import count_queries, throwaway_database  # noqa: E402  (bench/ is on sys.path as a script)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hits", type=int, default=200)
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()

    with throwaway_database():
        from django.db import connection
        from django.test import Client

        from tests.factories import GOOD_TEXT, make_campaign
        from tests.worker_flow import start_task, submit

        campaign = make_campaign(images=args.hits, assignments=3)
        from django.conf import settings

        settings.ARRIVAL_RATE = f"{args.requests}/m"  # one client starts every task here; the limit is not measured
        client = Client()
        tokens = [start_task(client, campaign) for _ in range(args.requests)]
        page_times, submit_times = [], []
        page_queries = count_queries(connection, lambda: client.get(f"/task/?t={tokens[0]}"))
        for token in tokens:
            started = time.perf_counter()
            response = client.get(f"/task/?t={token}")
            page_times.append(time.perf_counter() - started)
            assert response.status_code == 200
        submit_queries = count_queries(
            connection, lambda: submit(client, {"token": tokens[0], "answer": {"text": GOOD_TEXT}}))
        for token in tokens[1:]:
            started = time.perf_counter()
            response = submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
            submit_times.append(time.perf_counter() - started)
            assert response.status_code == 201, response.content

        def p99(values: list[float]) -> str:
            return f"{statistics.quantiles(values, n=100)[98] * 1000:.1f} ms"

        print(f"database: {connection.vendor}; {args.hits} HITs, {len(tokens)} requests each")
        print(f"task page: median {statistics.median(page_times) * 1000:.1f} ms, p99 {p99(page_times)}, "
              f"{page_queries} queries")
        print(f"submission: median {statistics.median(submit_times) * 1000:.1f} ms, p99 {p99(submit_times)}, "
              f"{submit_queries} queries")


if __name__ == "__main__":
    main()
