"""Benchmark of selecting images by collection and tag: the one image selector (annotation/image_sets/selectors.py)
and the wizard's selection endpoint, on 100k images.

Run: .venv/bin/python bench/image_set_selection.py [--images 100000] [--runs 5] [--quick]
(honours DATABASE_URL; uses a throw-away test database). `--quick`: 10,000 images, 3 runs.

The images are rows without files (known by reference), made by bulk_create: 90 % in the collection "Big" (tagged
"pilot"), 10 % in "Other" (tagged "other"), with boxes on every tenth image of "Big" and 24 in the demo collection.
Timed `--runs` times each, printed as median and min-max with the query count:
1. the matches' count and first page (what the wizard shows) by collection, by tag, by collection + tag + no boxes;
2. every matching id ("select all matching": what a campaign's HITs are made of);
3. GET of the wizard's selection endpoint (/campaigns/new/matching/images/) by collection and tag, first page
   and a page deep in the set (keyset: as fast)."""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from throwaway import count_queries, throwaway_database  # noqa: E402  (bench/ is on sys.path as a script)

BATCH = 5000


def load(count: int) -> list[int]:
    """The images and their collections; the ids of "Big" in id order."""
    from annotation.image_sets.models import ImageSet, ImageSetMember, ImageSetTag
    from annotation.image_sets.services import demo_set_spec, ensure_set
    from annotation.models import Box, Concept, Image, Vocabulary

    big = ImageSet.objects.create(name="Big", source="images")
    other = ImageSet.objects.create(name="Other", source="coco")
    ImageSetTag.objects.bulk_create([ImageSetTag(image_set=big, name="pilot"),
                                     ImageSetTag(image_set=other, name="other")])
    demo = ensure_set(demo_set_spec())
    concept = Concept.objects.create(name="thing", vocabulary=Vocabulary.objects.get_or_create(name="bench labels")[0])
    big_ids: list[int] = []
    for start in range(0, count, BATCH):
        made = Image.objects.bulk_create([
            Image(key=f"img-{n}", original_name=f"img-{n}.jpg", format="JPEG", width=640, height=480, file_size=1,
                  source_url="https://example.org/i.jpg")
            for n in range(start, min(count, start + BATCH))])
        ids = [image.pk for image in made]
        members = []
        for offset, pk in enumerate(ids):
            n = start + offset
            target = demo if n < 24 else other if n % 10 == 9 else big
            members.append(ImageSetMember(image_set=target, image_id=pk))
            if target is big:
                big_ids.append(pk)
        ImageSetMember.objects.bulk_create(members)
        Box.objects.bulk_create([Box(image_id=pk, number=0, concept=concept, x=0, y=0, width=5, height=5)
                                 for pk in ids[::10]])
    return big_ids


def timed(label: str, call: Callable[[], object], runs: int) -> None:
    from django.db import connection

    queries = count_queries(connection, call)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    print(f"  {label:<58} median {statistics.median(times) * 1000:8.1f} ms  "
          f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f}; {queries} queries)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="10,000 images, 3 runs")
    args = parser.parse_args()
    if args.quick:
        args.images, args.runs = 10_000, 3
    with throwaway_database():
        from django.contrib.auth import get_user_model
        from django.db import connection
        from django.test import Client

        from annotation.image_sets.selectors import criteria_from, matching_ids, matching_page

        started = time.perf_counter()
        big_ids = load(args.images)
        print(f"{connection.vendor}: {args.images} images loaded in {time.perf_counter() - started:.1f} s "
              f"({len(big_ids)} in 'Big'), {args.runs} runs each")
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
        print("1. count and first page through the selector")
        for label, params in (("by collection", {"set": "Big"}), ("by tag", {"tag": "pilot"}),
                              ("collection + tag + no boxes", {"set": "Big", "tag": "pilot", "state": "no-boxes"}),
                              ("no collection (the demo left out)", {})):
            timed(label, lambda params=params: matching_page(criteria_from(params)), args.runs)  # type: ignore[misc]
        print("2. every matching id (select all matching)")
        for label, params in (("by collection", {"set": "Big"}), ("by tag", {"tag": "pilot"})):
            timed(label, lambda params=params: matching_ids(criteria_from(params)), args.runs)  # type: ignore[misc]
        print("3. the wizard's selection endpoint")
        user = get_user_model().objects.create_superuser("bench", "bench@example.org", "bench-pass")
        client = Client()
        client.force_login(user)
        url = "/campaigns/new/matching/images/?filter-images-set=Big&filter-images-tag=pilot"
        deep = f"{url}&after={big_ids[len(big_ids) // 2]}"
        for label, address in (("first page", url), ("a page half-way (keyset)", deep)):
            def get(address: str = address) -> None:
                assert client.get(address).status_code == 200

            timed(label, get, args.runs)


if __name__ == "__main__":
    main()
