"""Benchmark of worker quality: agreement and aggregation on 10k items x 5 workers, per task kind and end to end.

Run: .venv/bin/python bench/quality.py [--items 10000] [--workers-per-item 5] [--runs 5] [--quick]
     [--kinds draw_boxes judge_caption rate_story describe_image] [--db-kinds draw_boxes describe_image]
     [--no-db]
(honours DATABASE_URL for the database part; uses a throw-away test database). `--quick`: 1,000 items, 3 runs.

1. `KindQuality.measure` of each kind on seeded synthetic answers shaped like real ones, from a crowd of 300
   workers (70 % careful, 20 % careless, 10 % adversarial), 5 of them on each item:
   - draw_boxes: the object layouts of 200 demo scenes (annotation/demo/scenes.py: people, dogs, cars, houses...,
     1 to 6 objects) scaled to the commonest image sizes of Flickr30k and COCO (500 x 375, 500 x 333, 640 x 480,
     640 x 427 and their portraits); careful workers jitter the edges by 4 %, miss 8 % of the objects and misname
     4 %, careless ones miss half and jitter by 30 %, adversarial ones draw 1 to 4 random boxes;
   - describe_image: the scenes' captions (one real-looking sentence each, naming the objects and colours),
     reworded by careful workers, cut short by careless ones, one pasted sentence from adversarial ones;
   - rate_story: a true rating 1-5 per story, careful raters one point off a quarter of the time, careless
     ones anything, adversarial ones always 5;
   - judge_caption: an item is one (image, caption) pair, 10 pairs per HIT (the kind's default), a third of them
     relevant; careful workers right 92 % of the time, careless 70 %, adversarial ones always "yes".
   Timed `--runs` times (median and min-max), then once more under tracemalloc for the peak of Python
   allocations during the call (NumPy and pandas buffers included: they report to tracemalloc).
2. `compute_quality` on a database campaign (`--db-kinds`): the same answers stored as a campaign's submitted
   assignments (a 10 % gold rate mixed in by create_campaign, gold answers with their scores), then
   compute_quality timed `--runs` times (reading, measuring, storing Assignment.agreement, ItemAggregate,
   WorkerScore and CampaignQuality), with its query count. On PostgreSQL the tables are ANALYZEd after the load,
   as autovacuum would do (without statistics the read takes seconds instead of a tenth of one).
The process's peak resident memory (ru_maxrss) and the load average before and after are printed at the end."""
from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from throwaway import count_queries, throwaway_database  # noqa: E402  (bench/ is on sys.path as a script)

KINDS = ("draw_boxes", "judge_caption", "rate_story", "describe_image")
SIZES = ((500, 375), (500, 333), (640, 480), (640, 427), (375, 500), (333, 500), (480, 640))
CAREFUL, CARELESS, ADVERSARIAL = "careful", "careless", "adversarial"
PASTED = "This is a really nice picture and I like the colours in it a lot."
OPENINGS = ("This picture shows", "The photo shows", "Here we see", "We can see", "In this image we see")
PAIRS_PER_HIT = 10

Answer = dict[str, Any]


# ---- the synthetic crowd and its answers ---------------------------------------------------------------------


def crowd(size: int, rng: random.Random) -> list[str]:
    """Each worker's behaviour: 70 % careful, 20 % careless, 10 % adversarial."""
    return [rng.choices((CAREFUL, CARELESS, ADVERSARIAL), (0.7, 0.2, 0.1))[0] for _ in range(size)]


def scenes(count: int) -> list[tuple[list[tuple[str, tuple[int, int, int, int]]], str]]:
    """The demo scenes' object layouts (800 x 600) and captions."""
    from annotation.demo.scenes import render_scene

    return [([(o.concept, o.box) for o in scene.objects], scene.caption)
            for scene in (render_scene(seed) for seed in range(count))]


def _box(x: float, y: float, w: float, h: float, width: int, height: int) -> dict[str, int]:
    x0, y0 = min(max(0, round(x)), width - 4), min(max(0, round(y)), height - 4)
    return {"x": x0, "y": y0, "width": max(4, min(width, round(x + w)) - x0),
            "height": max(4, min(height, round(y + h)) - y0)}


def jitter(box: dict[str, int], share: float, size: tuple[int, int], rng: random.Random) -> dict[str, int]:
    w, h = box["width"], box["height"]
    left, top = box["x"] + rng.gauss(0, share * w), box["y"] + rng.gauss(0, share * h)
    right, bottom = box["x"] + w + rng.gauss(0, share * w), box["y"] + h + rng.gauss(0, share * h)
    return _box(left, top, max(4.0, right - left), max(4.0, bottom - top), *size)


def box_truth(layout: list[tuple[str, tuple[int, int, int, int]]], size: tuple[int, int],
              concept_ids: dict[str, int]) -> list[dict[str, int]]:
    sx, sy = size[0] / 800, size[1] / 600
    return [{"concept": concept_ids[name], **_box(x * sx, y * sy, w * sx, h * sy, *size)}
            for name, (x, y, w, h) in layout]


def boxes_answer(truth: list[dict[str, int]], size: tuple[int, int], behaviour: str, concepts: list[int],
                 rng: random.Random) -> Answer:
    if behaviour == ADVERSARIAL:
        boxes = []
        for _ in range(rng.randint(1, 4)):
            w, h = rng.randint(10, size[0] // 2), rng.randint(10, size[1] // 2)
            boxes.append({"concept": rng.choice(concepts),
                          **_box(rng.randint(0, size[0] - w), rng.randint(0, size[1] - h), w, h, *size)})
        return {"boxes": boxes}
    miss, share, mislabel = (0.08, 0.04, 0.04) if behaviour == CAREFUL else (0.5, 0.3, 0.0)
    boxes = []
    for box in truth:
        if rng.random() < miss:
            continue
        concept = rng.choice(concepts) if rng.random() < mislabel else box["concept"]
        boxes.append({"concept": concept, **jitter(box, share, size, rng)})
    return {"boxes": boxes or [{"concept": truth[0]["concept"], **jitter(truth[0], share, size, rng)}]}


def caption_answer(caption: str, behaviour: str, rng: random.Random) -> Answer:
    if behaviour == ADVERSARIAL:
        return {"text": PASTED}
    text = caption.rstrip(".")
    for opening in OPENINGS:
        if text.startswith(opening):
            text = rng.choice(OPENINGS) + text[len(opening):]
            break
    if behaviour == CARELESS:
        text = " ".join(text.split()[:8])
    return {"text": text + "."}


def rating_answer(truth: int, behaviour: str, rng: random.Random) -> Answer:
    if behaviour == ADVERSARIAL:
        return {"rating": 5}
    if behaviour == CARELESS:
        return {"rating": rng.randint(1, 5)}
    off = rng.choice((-1, 1)) if rng.random() < 0.25 else 0
    return {"rating": min(5, max(1, truth + off))}


def judgement(relevant: bool, behaviour: str, rng: random.Random) -> dict[str, bool]:
    if behaviour == ADVERSARIAL:
        return {"relevant": True}
    right = 0.92 if behaviour == CAREFUL else 0.7
    return {"relevant": relevant if rng.random() < right else not relevant}


class Synthetic:
    """Items (HIT items as the kind stores them), their truth, and their answers (worker index, answer)."""

    def __init__(self, kind: str, items: int, per_item: int, seed: int, concept_ids: dict[str, int],
                 images: list[tuple[int, tuple[int, int]]] | None = None) -> None:
        self.rng = rng = random.Random(f"{kind}-{seed}")
        self.kind = kind
        self.behaviours = crowd(300, rng)
        self.concepts = sorted(concept_ids.values())
        layouts = scenes(200 if items >= 2000 else 50)
        hits = items // PAIRS_PER_HIT if kind == "judge_caption" else items
        self.items: list[dict[str, Any]] = []
        self.truths: list[Any] = []
        for n in range(hits):
            layout, caption = layouts[n % len(layouts)]
            image, size = images[n] if images else (n + 1, SIZES[n % len(SIZES)])
            if kind == "draw_boxes":
                self.items.append({"image": image})
                self.truths.append((box_truth(layout, size, concept_ids), size, layout))
            elif kind == "describe_image":
                self.items.append({"image": image})
                self.truths.append((caption, layout))
            elif kind == "rate_story":
                self.items.append({"story": n + 1})
                self.truths.append(rng.randint(1, 5))
            else:
                pairs = range(n * PAIRS_PER_HIT + 1, (n + 1) * PAIRS_PER_HIT + 1)
                self.items.append({"pairs": [{"image": p, "description": p} for p in pairs]})
                self.truths.append([rng.random() < 1 / 3 for _ in pairs])
        self.answers = [[(w, self.answer(truth, self.behaviours[w]))
                         for w in rng.sample(range(len(self.behaviours)), per_item)] for truth in self.truths]

    def answer(self, truth: Any, behaviour: str) -> Answer:
        if self.kind == "draw_boxes":
            return boxes_answer(truth[0], truth[1], behaviour, self.concepts, self.rng)
        if self.kind == "describe_image":
            return caption_answer(truth[0], behaviour, self.rng)
        if self.kind == "rate_story":
            return rating_answer(truth, behaviour, self.rng)
        return {"judgements": [judgement(r, behaviour, self.rng) for r in truth]}

    def gold(self, truth: Any) -> Answer:
        """The known answer of an item, in the kind's gold format."""
        if self.kind == "draw_boxes":
            return {"boxes": truth[0]}
        if self.kind == "describe_image":
            return {"required_words": sorted({name for name, _ in truth[1]})[:2]}
        if self.kind == "rate_story":
            return {"rating": truth, "tolerance": 1}
        return {"judgements": [{"relevant": r} for r in truth]}

    def units(self) -> list[Any]:
        from mturk.measures import Answer as QAnswer
        from mturk.measures import Unit

        number = 0
        units = []
        for hit, (items, answers) in enumerate(zip(self.items, self.answers, strict=True), start=1):
            given = []
            for worker, answer in answers:
                number += 1
                given.append(QAnswer(assignment=number, worker=worker + 1, answer=answer))
            units.append(Unit(hit=hit, items=items, answers=given))
        return units


# ---- timing --------------------------------------------------------------------------------------------------


def timed(call: Callable[[], Any], runs: int) -> tuple[list[float], float, Any]:
    """Wall times of `runs` calls, the peak of traced allocations of one more call (MiB), the last result."""
    seconds = []
    result = None
    for _ in range(runs):
        started = time.perf_counter()
        result = call()
        seconds.append(time.perf_counter() - started)
    tracemalloc.start()
    call()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak / 2**20, result


def spread(seconds: list[float]) -> str:
    return f"median {statistics.median(seconds):.2f} s [{min(seconds):.2f}-{max(seconds):.2f}]"


def concept_ids() -> dict[str, int]:
    """The demo vocabulary as Concept rows (the draw_boxes answers name concepts by id)."""
    from annotation.demo.seed import seed_concepts

    return {name: concept.pk for name, concept in seed_concepts().items()}


def measure_kinds(kinds: list[str], items: int, per_item: int, runs: int, concepts: dict[str, int]) -> None:
    from mturk.measures import get_quality, has_quality
    from mturk.task_kinds import get_task_kind

    for kind in kinds:
        if not has_quality(kind):
            print(f"{kind}: no KindQuality registered, skipped")
            continue
        started = time.perf_counter()
        data = Synthetic(kind, items, per_item, seed=16, concept_ids=concepts)
        units = data.units()
        made = time.perf_counter() - started
        quality = get_quality(kind)
        options = dict(get_task_kind(kind).defaults.options)
        started = time.perf_counter()
        quality.measure(options, units)  # the first call also imports (crowd-kit, pandas) and warms caches
        first = time.perf_counter() - started
        seconds, peak, measurement = timed(partial(quality.measure, options, units), runs)
        answers = sum(len(u.answers) for u in units)
        agreed = [v for v in measurement.item_agreement.values() if v is not None]
        print(f"{kind}.measure: {len(units):,} HITs, {answers:,} answers (made in {made:.1f} s): first call "
              f"{first:.2f} s, then {spread(seconds)} over {runs} runs, peak traced {peak:.0f} MiB; "
              f"{measurement.measure}; "
              f"{len(measurement.aggregates):,} aggregates, mean item agreement "
              f"{statistics.mean(agreed) if agreed else float('nan'):.3f}, overall "
              f"{ {k: (round(v, 3) if isinstance(v, float) else v) for k, v in measurement.overall.items()} }")


# ---- the database campaign -------------------------------------------------------------------------------------


def store_images(count: int) -> list[tuple[int, tuple[int, int]]]:
    """`count` image rows (no files: nothing here reads them), of the SIZES in turn; their ids and sizes."""
    from annotation.models import Image

    first = Image.objects.count()
    rows = Image.objects.bulk_create(
        (Image(key=f"q{first + n}", sha256=f"{first + n:064x}", original=f"images/originals/q{first + n}.jpg",
               original_name=f"q{first + n}.jpg", format="JPEG", width=SIZES[n % len(SIZES)][0],
               height=SIZES[n % len(SIZES)][1], file_size=1) for n in range(count)), batch_size=2000)
    return [(row.pk, (row.width, row.height)) for row in rows]


def database_campaign(kind: str, items: int, per_item: int, concepts: dict[str, int], seed: int) -> Any:
    """A campaign of `items` real HITs of `kind` (and a 10 % gold rate: gold HITs mixed in by create_campaign)
    whose every HIT was answered by `per_item` workers: the synthetic answers stored as submitted assignments,
    gold answers with their score (KindQuality.score_gold, as at submission)."""
    from django.db import connection
    from django.utils import timezone

    from mturk.measures import get_quality
    from mturk.models import Assignment, Worker
    from mturk.services.campaigns import create_campaign
    from mturk.services.gold import create_gold_item
    from mturk.task_kinds import get_task_kind

    images = store_images(items + 20)
    data = Synthetic(kind, items, per_item, seed=seed, concept_ids=concepts, images=images[:items])
    gold = Synthetic(kind, 20, 1, seed=seed + 1, concept_ids=concepts, images=images[items:])
    options: dict[str, Any] = {}
    if kind == "draw_boxes":
        options = {"vocabulary": "demo"}  # concept_ids(): the demo vocabulary's labels
    truth_of = {}
    for gold_items, truth in zip(gold.items, gold.truths, strict=True):
        item = create_gold_item(task_kind=kind, items=gold_items, answer=gold.gold(truth), note="bench")
        truth_of[item.pk] = (truth, item.answer)
    campaign = create_campaign(name=f"bench {kind} {seed}", task_kind=kind, assignments_per_hit=per_item,
                               gold_rate=0.1, options=options, items=data.items)
    quality, kind_options = get_quality(kind), get_task_kind(kind).options(campaign)
    workers = Worker.objects.bulk_create(Worker(provider="local", external_id=f"bench-{kind}-{n}")
                                         for n in range(len(data.behaviours)))
    answers = {repr(sorted(i.items())): a for i, a in zip(data.items, data.answers, strict=True)}
    rng = random.Random(seed)
    now = timezone.now()
    rows = []
    for hit in campaign.hits.all().only("pk", "items", "gold_item_id"):
        given: list[tuple[int, Answer, float | None]]
        if hit.gold_item_id is None:
            given = [(w, a, None) for w, a in answers[repr(sorted(hit.items.items()))]]
        else:
            truth, known = truth_of[hit.gold_item_id]
            given = []
            for w in rng.sample(range(len(workers)), per_item):
                answer = data.answer(truth, data.behaviours[w])
                given.append((w, answer, quality.score_gold(kind_options, hit.items, known, answer)))
        for worker, answer, score in given:
            seconds = rng.uniform(20, 120)
            rows.append(Assignment(
                hit_id=hit.pk, worker=workers[worker], status="submitted", answer=answer, confirmed=True,
                accepted_at=now - timedelta(seconds=seconds), submitted_at=now, deadline=now + timedelta(hours=1),
                time_on_task=timedelta(seconds=seconds), gold_score=score))
    Assignment.objects.bulk_create(rows, batch_size=2000)
    if connection.vendor == "postgresql":
        # Statistics, as autovacuum gathers them soon after a bulk load: without them the planner expects a handful
        # of rows and reads the 55k assignments through the status index once per HIT (14 s instead of 0.1 s).
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return campaign


def measure_database(kinds: list[str], items: int, per_item: int, runs: int, concepts: dict[str, int]) -> None:
    from django.db import connection

    from mturk.models import Assignment
    from mturk.quality.services.computation import compute_quality

    for n, kind in enumerate(kinds):
        started = time.perf_counter()
        campaign = database_campaign(kind, items, per_item, concepts, seed=100 + n)
        stored = Assignment.objects.filter(hit__campaign=campaign).count()
        print(f"{kind} campaign on {connection.vendor}: {campaign.hits.count():,} HITs, {stored:,} submitted "
              f"answers, stored in {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        queries = count_queries(connection, partial(compute_quality, campaign))
        first = time.perf_counter() - started
        seconds, peak, computed = timed(partial(compute_quality, campaign), runs)
        print(f"  compute_quality (read, measure, store): first call {first:.2f} s ({queries} queries), then "
              f"{spread(seconds)} over {runs} runs (replacing the stored figures), "
              f"peak traced {peak:.0f} MiB; {computed}")


def accuracy(crowds: int, images: int, quorums: list[float]) -> None:
    """How often draw_boxes' merged boxes are closer to the truth (mean F1 at IoU 0.5, same concept) than the best
    single worker's, over `crowds` seeded crowds of 3 careful, 1 careless and 1 adversarial worker on `images`
    demo scenes (800 x 600, their own objects as the truth): the end-to-end test's campaign, many times over."""
    from annotation.quality.boxes import DrawBoxesQuality, labelled_boxes
    from metrics.box_consensus import set_f1
    from mturk.measures import Answer as QAnswer
    from mturk.measures import Unit

    drawn = scenes(images)
    ids = {name: n for n, name in enumerate(sorted({name for layout, _ in drawn for name, _ in layout}))}
    truths = [box_truth(layout, (800, 600), ids) for layout, _ in drawn]
    behaviours = (CAREFUL, CAREFUL, CARELESS, CAREFUL, ADVERSARIAL)
    concepts = sorted(ids.values())
    quality = DrawBoxesQuality()
    for quorum in quorums:
        margins, best_workers, merged_f1 = [], [], []
        for crowd_number in range(crowds):
            answers = [[boxes_answer(truth, (800, 600), behaviour, concepts,
                                     random.Random(f"{crowd_number}:{w}:{scene}"))
                        for scene, truth in enumerate(truths)] for w, behaviour in enumerate(behaviours)]
            units = [Unit(hit=scene, items={"image": scene},
                          answers=[QAnswer(assignment=scene * 10 + w, worker=w, answer=answers[w][scene])
                                   for w in range(len(behaviours))]) for scene in range(images)]
            measured = quality.measure({"iou_threshold": 0.5, "quorum": quorum}, units)

            def f1(answer: Answer, scene: int) -> float:
                return set_f1(labelled_boxes(answer), labelled_boxes({"boxes": truths[scene]}), 0.5).f1

            merged = statistics.mean(f1(measured.aggregates[s].answer, s) for s in range(images))
            best = max(statistics.mean(f1(answers[w][s], s) for s in range(images)) for w in range(len(behaviours)))
            margins.append(merged - best)
            best_workers.append(best)
            merged_f1.append(merged)
        wins = sum(margin > 0 for margin in margins)
        print(f"quorum {quorum:g}: merged boxes closer to the truth than the best worker's in {wins} of {crowds} "
              f"crowds; mean F1 merged {statistics.mean(merged_f1):.3f}, best worker "
              f"{statistics.mean(best_workers):.3f}, margin median {statistics.median(margins):+.3f} "
              f"[{min(margins):+.3f} to {max(margins):+.3f}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--workers-per-item", type=int, default=5)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="1,000 items, 3 runs")
    parser.add_argument("--kinds", nargs="*", default=list(KINDS), choices=KINDS)
    parser.add_argument("--db-kinds", nargs="*", default=["draw_boxes", "describe_image"], choices=KINDS)
    parser.add_argument("--no-db", action="store_true", help="only the measures, no database campaign")
    parser.add_argument("--accuracy", type=int, metavar="CROWDS", default=0,
                        help="instead: how often the merged boxes beat the best worker over CROWDS seeded crowds")
    parser.add_argument("--accuracy-images", type=int, default=20)
    args = parser.parse_args()
    if args.accuracy:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        import django

        django.setup()
        accuracy(args.accuracy, args.accuracy_images, [0.4, 0.5])
        return
    if args.quick:
        args.items, args.runs = 1000, 3
    print(f"{args.items:,} items x {args.workers_per_item} workers, {args.runs} runs; {os.cpu_count()} CPUs; "
          "load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    with throwaway_database():
        import annotation.quality  # noqa: F401  (registers the kinds' measures, as the app does)

        concepts = concept_ids()
        measure_kinds(args.kinds, args.items, args.workers_per_item, args.runs, concepts)
        if not args.no_db:
            measure_database([k for k in args.db_kinds if k in ("draw_boxes", "describe_image")], args.items,
                             args.workers_per_item, args.runs, concepts)
    print(f"peak resident memory of the process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB; "
          "load average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
