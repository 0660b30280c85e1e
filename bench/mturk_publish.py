"""Benchmark of publishing to MTurk: our own time per HIT, against a stubbed boto3 client.

Run: .venv/bin/python bench/mturk_publish.py [--hits 10000] [--runs 3]
(honours DATABASE_URL; uses a throw-away database). The real boto3 `mturk` client is used with
botocore's Stubber, which still validates every request against the service model. The time spent
inside the client (botocore's validation and the stub) is measured separately and subtracted:
"own time" is publish_campaign (marking the HITs published within the budget cap) plus the
creation job (HIT type, ExternalQuestion, token, limits, one UPDATE per HIT) without the client."""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from throwaway import throwaway_database  # noqa: E402  (bench/ is on sys.path as a script)


class TimedClient:
    """Forwards to the real client and adds up the seconds spent inside it."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.seconds = 0.0
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._client, name)

        def timed(**params: Any) -> Any:
            started = time.perf_counter()
            try:
                return method(**params)
            finally:
                self.seconds += time.perf_counter() - started
                self.calls += 1
        return timed


class PublishRun(TypedDict):
    """One run's measures: seconds (wall, cpu, inside the client, own, marking published) and counts."""

    wall: float
    cpu: float
    client: float
    own: float
    marked: float
    calls: int
    vendor: str


def run_once(hits: int, run: int) -> PublishRun:
    import boto3
    from botocore.stub import Stubber
    from django.conf import settings
    from django.db import connection

    from annotation.models import Image
    from mturk.models import HIT
    from mturk.providers.mturk import client as mturk_client
    from mturk.providers.mturk.publish import create_pending_hits
    from mturk.services.campaigns import create_campaign, publish_campaign

    settings.PUBLIC_BASE_URL = "https://crowd.example.org"
    images = Image.objects.bulk_create(
        Image(key=f"r{run}-{i}", sha256=f"{run:08d}{i:056d}", original=f"images/originals/{i}.jpg",
              original_name=f"{i}.jpg", format="JPEG", width=800, height=600, file_size=1000)
        for i in range(hits)
    )
    campaign = create_campaign(
        name=f"bench-{run}", task_kind="describe_image", provider="mturk", reward=Decimal("0.10"),
        assignments_per_hit=3, description="Describe the picture in one sentence.",
        keywords="image, description", qualifications={"approval_rate_min": 95, "locales": ["US", "GB"]},
        items=[{"image": image.pk} for image in images],
    )
    client = boto3.client("mturk", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y")
    stubber = Stubber(client)
    stubber.add_response("create_hit_type", {"HITTypeId": "BENCHTYPE"})
    expiration = datetime(2030, 1, 1, tzinfo=UTC)
    for i in range(hits):
        stubber.add_response("create_hit_with_hit_type",
                             {"HIT": {"HITId": f"BENCH{run:03d}{i:022d}", "Expiration": expiration}})
    timed = TimedClient(client)
    mturk_client.set_client(False, timed)
    with stubber:
        started = time.perf_counter()
        cpu = time.process_time()
        publish_campaign(campaign)
        marked = time.perf_counter() - started
        report = create_pending_hits(campaign)
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu
        stubber.assert_no_pending_responses()
    mturk_client.reset_clients()
    assert report.created == hits and report.pending == 0, report
    assert HIT.objects.filter(campaign=campaign).exclude(external_id="").count() == hits
    own = wall - timed.seconds
    return {"wall": wall, "cpu": cpu, "client": timed.seconds, "own": own, "marked": marked,
            "calls": timed.calls, "vendor": connection.vendor}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hits", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ.pop("CELERY_BROKER_URL", None)
    with throwaway_database():
        from mturk.providers.registry import get_provider

        get_provider("mturk")
        from mturk.providers.mturk import tasks

        tasks.create_marketplace_hits.delay = lambda *a, **k: None  # the job is run explicitly, in process
        results = [run_once(args.hits, run) for run in range(args.runs)]
    per_hit = [r["own"] / args.hits * 1000 for r in results]
    print(f"database: {results[0]['vendor']}; {args.hits} HITs, {args.runs} runs, "
          f"{results[0]['calls']} client calls per run")
    for r in results:
        print(f"  wall {r['wall']:.2f} s (marking published {r['marked']:.2f} s), inside the client "
              f"{r['client']:.2f} s, own {r['own']:.2f} s = {r['own'] / args.hits * 1000:.3f} ms/HIT")
    print(f"own time per HIT: median {statistics.median(per_hit):.3f} ms (target <= 3 ms)")


if __name__ == "__main__":
    main()
