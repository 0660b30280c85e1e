"""The `aggregated` option of the COCO export: aggregated boxes instead of one worker's.

An image whose boxes all came from one draw_boxes HIT (its first approved answer) gets, when that HIT has a
stored aggregate (mturk.models.ItemAggregate, made by the campaign's quality computation from every answer
to it), the aggregated boxes instead: each COCO annotation then carries an `aggregation` object saying how
it was made. Other images keep their boxes (imported ones, or a HIT not yet measured). Three queries."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mturk.models import ItemAggregate

from ..models import Box, Concept
from ..selectors import BoxRow

if TYPE_CHECKING:
    from ..selectors import GroundedDataset

AGGREGATED = "aggregated"  # BoxRow.source of an aggregated box
AGGREGATE_FIELDS = ("concept", "x", "y", "width", "height")

NOTE = (
    "Aggregated boxes (option `aggregated`): an image whose boxes came from a draw_boxes HIT done by several "
    "workers has the aggregated boxes of that HIT instead of one worker's. Each of those annotations has an "
    "`aggregation` object: `method` (how the workers' boxes were merged: boxes of different workers matched by "
    "IoU into clusters of at most one box per worker, a cluster kept when enough workers drew it, its concept by "
    "vote, its box the worker's box nearest the mean box), `votes` (the workers who drew the box), `workers` "
    "(the answers merged) and `label_votes` (concept name -> workers). Annotations without it are one worker's "
    "boxes (the first approved answer) or imported boxes."
)


def aggregated_option(options: dict[str, Any]) -> bool:
    """The `aggregated` option: true or false (JSON), or the text "true" / "false" (`export_dataset --option
    aggregated=true`); ValueError otherwise."""
    value = options.get("aggregated", False)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ValueError(f"option aggregated must be true or false, not {value!r}")


@dataclass(frozen=True)
class AggregatedImage:
    boxes: list[BoxRow]  # numbered 0, 1, ... in the aggregate's order
    aggregation: list[dict[str, Any]]  # per box, the COCO annotation's `aggregation` object


@dataclass
class AggregatedBoxes:
    images: dict[int, AggregatedImage] = field(default_factory=dict)  # image pk -> its aggregated boxes
    concepts: list[Concept] = field(default_factory=list)  # their concepts and the ancestors, by name


def _single_hits(rows: Iterable[tuple[int, int | None]]) -> dict[int, int]:
    """Image pk -> the HIT all its boxes came from (images with boxes from elsewhere, or several HITs, left out)."""
    origins: dict[int, set[int | None]] = {}
    for image_id, hit_id in rows:
        origins.setdefault(image_id, set()).add(hit_id)
    return {image: hit for image, hits in origins.items() if len(hits) == 1 and (hit := next(iter(hits))) is not None}


def _image(answer: Any, details: Any, method: str, support: int,
           concepts: dict[int, Concept]) -> AggregatedImage | None:
    """The aggregate as export rows, or None when it is not a box answer of known concepts."""
    boxes = answer.get("boxes") if isinstance(answer, dict) else None
    if not isinstance(boxes, list):
        return None
    per_box = details.get("boxes") if isinstance(details, dict) else None
    per_box = per_box if isinstance(per_box, list) and len(per_box) == len(boxes) else [{} for _ in boxes]
    rows, records = [], []
    for number, (box, votes) in enumerate(zip(boxes, per_box, strict=True)):
        if not isinstance(box, dict) or not all(type(box.get(name)) is int for name in AGGREGATE_FIELDS):
            return None
        concept = concepts.get(box["concept"])
        if concept is None:
            return None
        rows.append(BoxRow(number, concept.name, box["x"], box["y"], box["width"], box["height"], AGGREGATED))
        label_votes = votes.get("label_votes", {}) if isinstance(votes, dict) else {}
        records.append({
            "method": method, "votes": votes.get("votes") if isinstance(votes, dict) else None, "workers": support,
            "label_votes": {concepts[int(pk)].name if str(pk).isdigit() and int(pk) in concepts else str(pk): count
                            for pk, count in label_votes.items()},
        })
    return AggregatedImage(rows, records)


def aggregated_boxes(dataset: GroundedDataset) -> AggregatedBoxes:
    """The stored aggregates of the draw_boxes HITs the dataset's images got their boxes from."""
    ids = [image.pk for image in dataset.images]
    hits = _single_hits(Box.objects.filter(image_id__in=ids).values_list("image_id", "assignment__hit_id"))
    aggregates = {hit: rest for hit, *rest in ItemAggregate.objects.filter(
        hit_id__in=set(hits.values()), hit__campaign__task_kind="draw_boxes",
    ).values_list("hit_id", "answer", "details", "method", "support")}
    if not aggregates:
        return AggregatedBoxes()
    concepts = {concept.pk: concept for concept in Concept.objects.all()}  # vocabularies are small (hundreds)
    result = AggregatedBoxes()
    used: set[int] = set()
    for image_id, hit_id in hits.items():
        if hit_id not in aggregates:
            continue
        answer, details, method, support = aggregates[hit_id]
        image = _image(answer, details, method, support, concepts)
        if image is not None:
            result.images[image_id] = image
            used |= {box["concept"] for box in answer["boxes"]}
    wanted: set[int] = set()
    for pk in used:
        node: int | None = pk
        while node is not None and node not in wanted and node in concepts:
            wanted.add(node)
            node = concepts[node].parent_id
    result.concepts = sorted((concepts[pk] for pk in wanted), key=lambda concept: concept.name)
    return result
