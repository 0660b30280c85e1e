"""Simulated crowds for the end-to-end quality tests: demo scenes and stories with a known truth, and workers
who answer them well, carelessly or against the task, through the real worker path.

The images are the demo scenes (annotation/demo/scenes.py: 800 x 600 JPEGs drawn from flat shapes, each with
its objects' boxes and a caption), so the truth is what is in the picture. Every random choice comes from a
`random.Random` the caller seeds: the same seed gives the same answers."""
from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from annotation.demo.scenes import CONCEPTS, HEIGHT, WIDTH, render_scene
from annotation.demo.seed import import_scene, seed_concepts
from mturk.models import Assignment, Campaign, Worker
from mturk.work.services.assignments import NoTaskAvailable, get_or_create_worker, start_local_task, submit_answer
from storyboard.models import Album, Photo, Setting, Story, Storylet

Answer = dict[str, Any]
# How a simulated worker answers a HIT: its items (the same for a gold HIT and a real one) and the worker's RNG.
Answering = Callable[[dict[str, Any], random.Random], Answer]

VOCABULARY = "demo"  # seed_concepts() puts the demo labels there
MIN_BOX = 4  # draw_boxes' default min_box_size


@dataclass(frozen=True)
class SceneTruth:
    scene: int  # the demo scene's seed
    image: int  # Image id
    boxes: list[dict[str, int]]  # the objects' boxes in the draw_boxes answer shape (concept id, x, y, w, h)
    caption: str
    nouns: list[str]  # the concepts' names, in the caption's order of objects


@dataclass
class Scenes:
    """Demo scenes stored as images, by image id, with the vocabulary the campaign draws from."""

    truths: dict[int, SceneTruth]
    concept_ids: list[int]
    concept_names: dict[int, str]

    def of(self, items: dict[str, Any]) -> SceneTruth:
        return self.truths[items["image"]]

    def key(self, items: dict[str, Any]) -> int:
        """What a worker's answer to these items is drawn from: the scene, not the database's ids."""
        return self.of(items).scene


def store_scenes(seeds: range) -> Scenes:
    """The demo scenes of these seeds as images (with their renditions' rows), every demo concept in the
    VOCABULARY vocabulary."""
    concepts = seed_concepts()
    truths = {}
    for seed in seeds:
        scene = render_scene(seed)
        image = import_scene(scene)
        truths[image.pk] = SceneTruth(
            scene=seed,
            image=image.pk,
            boxes=[{"concept": concepts[o.concept].pk, "x": o.box[0], "y": o.box[1], "width": o.box[2],
                    "height": o.box[3]} for o in scene.objects],
            caption=scene.caption,
            nouns=[o.concept for o in scene.objects],
        )
    return Scenes(truths, [concepts[spec.name].pk for spec in CONCEPTS],
                  {c.pk: name for name, c in concepts.items()})


# ---- boxes ----------------------------------------------------------------------------------------------


def _clamp(x: float, y: float, width: float, height: float) -> dict[str, int]:
    """A box inside the image, at least MIN_BOX pixels a side (what the task page lets a worker draw)."""
    x0, y0 = max(0, round(x)), max(0, round(y))
    x1, y1 = min(WIDTH, round(x + width)), min(HEIGHT, round(y + height))
    x0, y0 = min(x0, WIDTH - MIN_BOX), min(y0, HEIGHT - MIN_BOX)
    return {"x": x0, "y": y0, "width": max(MIN_BOX, x1 - x0), "height": max(MIN_BOX, y1 - y0)}


def jittered(box: dict[str, int], rng: random.Random, share: float) -> dict[str, int]:
    """The box with each edge moved by a Gaussian share of the box's size (same concept)."""
    w, h = box["width"], box["height"]
    left, right = box["x"] + rng.gauss(0, share * w), box["x"] + w + rng.gauss(0, share * w)
    top, bottom = box["y"] + rng.gauss(0, share * h), box["y"] + h + rng.gauss(0, share * h)
    if right - left < MIN_BOX:
        left, right = (left + right) / 2 - MIN_BOX, (left + right) / 2 + MIN_BOX
    if bottom - top < MIN_BOX:
        top, bottom = (top + bottom) / 2 - MIN_BOX, (top + bottom) / 2 + MIN_BOX
    return {"concept": box["concept"], **_clamp(left, top, right - left, bottom - top)}


def good_boxes(scenes: Scenes, *, jitter: float = 0.04, miss: float = 0.08, mislabel: float = 0.04) -> Answering:
    """A careful worker: every object, edges a few percent off; now and then an object missed or misnamed."""
    def answer(items: dict[str, Any], rng: random.Random) -> Answer:
        boxes = []
        for box in scenes.of(items).boxes:
            if rng.random() < miss:
                continue
            drawn = jittered(box, rng, jitter)
            if rng.random() < mislabel:
                drawn["concept"] = rng.choice([c for c in scenes.concept_ids if c != box["concept"]])
            boxes.append(drawn)
        return {"boxes": boxes or [jittered(scenes.of(items).boxes[0], rng, jitter)]}
    return answer


def careless_boxes(scenes: Scenes, *, jitter: float = 0.3, miss: float = 0.5) -> Answering:
    """A careless worker: half the objects missed, the rest drawn roughly (edges a third of the box off)."""
    def answer(items: dict[str, Any], rng: random.Random) -> Answer:
        truth = scenes.of(items).boxes
        boxes = [jittered(box, rng, jitter) for box in truth if rng.random() >= miss]
        return {"boxes": boxes or [jittered(rng.choice(truth), rng, jitter)]}
    return answer


def random_boxes(scenes: Scenes) -> Answering:
    """An adversarial worker: 1 to 4 boxes anywhere, with any concept."""
    def answer(items: dict[str, Any], rng: random.Random) -> Answer:
        boxes = []
        for _ in range(rng.randint(1, 4)):
            width, height = rng.randint(20, 300), rng.randint(20, 300)
            boxes.append({"concept": rng.choice(scenes.concept_ids),
                          **_clamp(rng.randint(0, WIDTH - width), rng.randint(0, HEIGHT - height), width, height)})
        return {"boxes": boxes}
    return answer


# ---- captions -------------------------------------------------------------------------------------------

OPENINGS = ("This picture shows", "The photo shows", "Here we see", "We can see", "In this image we see")
SKY_CLAUSE = re.compile(r" (?:under|beneath) (?:an?|the) [a-z]+ (?:sun|cloud)(?: and an? [a-z]+ (?:sun|cloud))?$")
COPIED_TEXT = "This is a really nice picture and I like the colours in it a lot."


def paraphrase(scenes: Scenes) -> Answering:
    """A careful writer: the scene's caption in their own words (another opening; the sky left out now and
    then), naming the same objects."""
    def answer(items: dict[str, Any], rng: random.Random) -> Answer:
        text = scenes.of(items).caption.rstrip(".")
        for opening in OPENINGS:
            if text.startswith(opening):
                text = rng.choice(OPENINGS) + text[len(opening):]
                break
        shorter = SKY_CLAUSE.sub("", text)
        if len(shorter.split()) >= 8 and rng.random() < 0.5:
            text = shorter
        return {"text": text + "."}
    return answer


def copied_text() -> Answering:
    """A worker pasting the same sentence on every image."""
    return lambda items, rng: {"text": COPIED_TEXT}


# ---- caption judgements ----------------------------------------------------------------------------------


@dataclass
class Pairs:
    """judge_caption HITs on stored scenes: each HIT shows an image with its own caption and three mismatched
    image-caption pairs (as a judging pool mostly holds pairs that do not match)."""

    items: list[dict[str, Any]] = field(default_factory=list)  # HIT items, {"pairs": [...]}, in the order made
    relevant: list[list[bool]] = field(default_factory=list)  # per HIT, whether each of its pairs matches

    def key(self, items: dict[str, Any]) -> int:
        return self.items.index(items)

    def truth(self, items: dict[str, Any]) -> list[bool]:
        return self.relevant[self.key(items)]

    def add(self, scenes: Scenes) -> list[dict[str, Any]]:
        """Each scene's caption stored as its image's description; per scene n (of N) a HIT of 4 pairs: image n
        with caption n (it matches), with captions n+1 and n+2, and image n+1 with caption n (they do not).
        Returns the new HITs' items."""
        from annotation.models import Description

        images = list(scenes.truths)
        captions = [Description.objects.create(image_id=image, text=scenes.truths[image].caption, source="gold").pk
                    for image in images]
        count, added = len(images), []
        for n in range(count):
            shown = [(n, n), (n, (n + 1) % count), (n, (n + 2) % count), ((n + 1) % count, n)]
            added.append({"pairs": [{"image": images[i], "description": captions[d]} for i, d in shown]})
            self.relevant.append([i == d for i, d in shown])
        self.items += added
        return added


def careful_judge(pairs: Pairs, *, wrong: float = 0.05) -> Answering:
    """A careful judge: right about each pair but now and then."""
    def answer(items: dict[str, Any], rng: random.Random) -> Answer:
        return {"judgements": [{"relevant": truth if rng.random() >= wrong else not truth}
                               for truth in pairs.truth(items)]}
    return answer


def yes_clicker() -> Answering:
    """A worker answering "yes" to every pair without looking."""
    return lambda items, rng: {"judgements": [{"relevant": True} for _ in items["pairs"]]}


# ---- story ratings ----------------------------------------------------------------------------------------

STORY_TEXTS = ("We arrived at the lake early in the morning.", "The boat was waiting for us at the pier.",
               "Grandpa caught a huge fish before lunch.", "We cooked it on the fire by the water.",
               "Everyone slept well that night after the long day.")


@dataclass
class Stories:
    ids: list[int]  # Story ids, in the order they were told
    truth: dict[int, int]  # story id -> its true rating

    def key(self, items: dict[str, Any]) -> int:
        return self.ids.index(items["story"])


def store_stories(count: int) -> Stories:
    """`count` stories told on one album of 5 photos, each with a true quality from 1 to 5 (cycling, so
    ratings vary)."""
    from tests.factories import make_album

    album: Album = make_album(5)
    photos = list(Photo.objects.filter(album=album).order_by("datetaken"))
    stories, truth = [], {}
    for number in range(count):
        story = Story.objects.create(album=album, setting=Setting.TELL)
        Storylet.objects.bulk_create(
            Storylet(story=story, order=order, photo=photo, original_text=f"{text} ({number})",
                     text=f"{text.lower()} ( {number} )")
            for order, (photo, text) in enumerate(zip(photos, STORY_TEXTS, strict=True)))
        stories.append(story.pk)
        truth[story.pk] = number % 5 + 1
    return Stories(stories, truth)


def honest_rating(truth: dict[int, int], *, spread: float = 0.25) -> Answering:
    """A careful rater: the story's true rating, one point off now and then."""
    def answer(items: dict[str, Any], rng: random.Random) -> Answer:
        rating = truth[items["story"]]
        if rng.random() < spread:
            rating += rng.choice((-1, 1))
        return {"rating": min(5, max(1, rating))}
    return answer


def constant_rating(value: int = 5) -> Answering:
    """A rater clicking the same answer whatever the story."""
    return lambda items, rng: {"rating": value}


# ---- the crowd ------------------------------------------------------------------------------------------


@dataclass
class SimulatedWorker:
    name: str  # what the tests call them: good-1, careless, adversarial...
    answering: Answering
    seed: int
    worker: Worker | None = None
    answered: list[Assignment] = field(default_factory=list)


def work(campaign: Campaign, crowd: list[SimulatedWorker], key: Callable[[dict[str, Any]], object]) -> dict[str, int]:
    """The crowd works through the campaign as its local workers would: in turns, each takes their next task
    (start_local_task: the campaign link's Start task) and submits an answer (submit_answer: the task page's
    submission), until no one is given a task. Returns how many answers each worker submitted.

    A worker's answer to a HIT is drawn from a generator seeded by the worker's seed and `key(items)` (what the
    HIT shows, e.g. the scene): the same answers whatever order the HITs come in and whatever the database's
    ids, so SQLite and PostgreSQL runs see the same answers."""
    for sim in crowd:
        if sim.worker is None:
            sim.worker = get_or_create_worker("local", f"sim-{sim.name}")
    working = list(crowd)
    while working:
        for sim in list(working):
            assert sim.worker is not None
            try:
                assignment = start_local_task(campaign, sim.worker)
            except NoTaskAvailable:
                working.remove(sim)
                continue
            result = submit_answer(assignment_id=assignment.pk, worker_external_id=sim.worker.external_id,
                                   answer=sim.answering(assignment.hit.items, random.Random(
                                       f"{sim.seed}:{key(assignment.hit.items)}")))
            assert result.created, (sim.name, assignment.pk)
            sim.answered.append(result.assignment)
    return {sim.name: len(sim.answered) for sim in crowd}
