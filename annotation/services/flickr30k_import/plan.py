"""Flickr30k Entities import: what one image's files become (plan_image), and why (docs/formats/flickr30k.md).

- Every `<object>` with a `<bndbox>` is one box. A box holds one number: the first of its entity ids that no earlier
  box took; a box whose ids are all taken (the second box of an entity) is numbered after the image's largest
  entity id. Its other entity ids are dropped (counted).
- An entity's phrases link to its box: the box numbered with the entity's id, else the first box that carries it.
- A box's type (its concept) is the most frequent first type of the phrases of its entities; a tie goes to the
  release's order of types (TYPE_ORDER, then alphabetical); a box no phrase refers to is `other`.
- Phrases of entity 0 (`notvisual`; unless an `<object>` names 0, as the platform's export numbers boxes from 0)
  and of entities with only `nobndbox`/`scene` objects keep their words unlinked. A phrase of an entity that the
  XML does not have is an error.
- A sentence with at least one phrase gets a (gold) correspondence, even when none of its phrases has a box."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .parse import Annotation, Sentence

TYPE_ORDER = ("people", "clothing", "bodyparts", "animals", "vehicles", "instruments", "scene", "other")
NOTVISUAL = 0


@dataclass(frozen=True, slots=True)
class PlannedBox:
    number: int
    type: str
    x: int
    y: int
    width: int
    height: int


@dataclass(slots=True)
class PlannedDescription:
    words: list[str]
    links: dict[int, int]  # token index -> box number
    annotated: bool  # had phrases: gets a correspondence


@dataclass
class ImagePlan:
    width: int
    height: int
    file_name: str
    boxes: list[PlannedBox] = field(default_factory=list)
    descriptions: list[PlannedDescription] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)


def _rank(counts: Counter[str]) -> str:
    if not counts:
        return "other"
    order = {name: index for index, name in enumerate(TYPE_ORDER)}
    return min(counts, key=lambda name: (-counts[name], order.get(name, len(order)), name))


def plan_image(annotation: Annotation, sentences: list[Sentence], sentences_name: str,
               problems: list[str]) -> ImagePlan:
    plan = ImagePlan(annotation.width, annotation.height, annotation.file_name)
    named = {name for item in annotation.objects for name in item.names}
    scene = {name for item in annotation.objects if item.scene for name in item.names}
    boxed = [item for item in annotation.objects if item.box is not None]
    taken: set[int] = set()
    numbers: list[int | None] = []
    for item in boxed:
        free = next((name for name in item.names if name not in taken), None)
        numbers.append(free)
        if free is not None:
            taken.add(free)
    after = max(named | {entity for s in sentences for entity in (p.entity for p in s.phrases)} | {-1}) + 1
    assigned: list[int] = []
    carried: dict[int, list[int]] = {}  # box number -> entity ids
    for item, free in zip(boxed, numbers, strict=True):
        if free is None:
            free, after = after, after + 1
        assigned.append(free)
        carried[free] = item.names
        plan.counts["names dropped"] += len(set(item.names)) - (1 if free in item.names else 0)
    primary: dict[int, int] = {}  # entity -> box number: the box numbered with its id, else its first box
    for item, number in zip(boxed, assigned, strict=True):
        for name in item.names:
            primary[name] = name if name in taken else primary.get(name, number)
    types: dict[int, Counter[str]] = {}
    for sentence in sentences:
        links: dict[int, int] = {}
        for phrase in sentence.phrases:
            if phrase.entity == NOTVISUAL and NOTVISUAL not in named:
                plan.counts["notvisual"] += 1
                continue
            if phrase.entity not in named:
                problems.append(f"{sentences_name} line {sentence.line}: unknown entity {phrase.entity} (no "
                                "<object> of the annotation file names it)")
                continue
            box = primary.get(phrase.entity)
            if box is None:
                plan.counts["scene" if phrase.entity in scene else "nobox"] += 1
                continue
            plan.counts["linked"] += 1
            types.setdefault(phrase.entity, Counter())[phrase.types[0]] += 1
            for token in range(phrase.first, phrase.first + phrase.length):
                links[token] = box
        plan.descriptions.append(PlannedDescription(sentence.words, links, bool(sentence.phrases)))
    for item, number in zip(boxed, assigned, strict=True):
        assert item.box is not None
        counts: Counter[str] = Counter()
        for name in carried[number]:
            counts.update(types.get(name, Counter()))
        xmin, ymin, xmax, ymax = item.box
        left, top = max(xmin, 1) - 1, max(ymin, 1) - 1  # 0-based, clipped inside the image
        right, bottom = min(xmax, annotation.width), min(ymax, annotation.height)  # exclusive
        if (left, top, right, bottom) != (xmin - 1, ymin - 1, xmax, ymax):
            plan.counts["clipped"] += 1
        plan.boxes.append(PlannedBox(number, _rank(counts), left, top, right - left, bottom - top))
    plan.boxes.sort(key=lambda box: box.number)
    return plan
