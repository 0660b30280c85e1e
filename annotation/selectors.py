"""Reads for the grounded-descriptions dataset: what exports, reports and run evaluation work on.

Everything is loaded in a constant number of queries, whatever the number of images."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from metrics.grounded import BoxRecord, DescriptionRecord, ImageRecord
from mturk.models import HIT, Campaign

from .models import Box, Concept, Correspondence, Description, Image, WordLink


@dataclass(frozen=True)
class ImageRow:
    pk: int
    key: str
    file_name: str  # <key>.<extension of the stored original>
    original: str  # storage name of the original
    width: int
    height: int


@dataclass(frozen=True)
class BoxRow:
    number: int
    concept: str
    x: int
    y: int
    width: int
    height: int
    source: str = "gold"
    campaign: int | None = None  # the campaign whose answer made the box (None: imported)


@dataclass
class DescriptionRow:
    pk: int
    text: str
    tokens: list[str]
    source: str
    links: dict[int, int] | None = None  # the first correspondence (token -> box number); None = not linked yet
    other_links: list[dict[int, int]] = field(default_factory=list)  # later correspondences (agreement)
    campaign: int | None = None  # the campaign whose answer made the description (None: imported)
    links_campaign: int | None = None  # the campaign whose answer made `links` (None: imported or not linked)


@dataclass
class GroundedDataset:
    images: list[ImageRow]
    concepts: list[Concept]  # every concept used by a box, with its ancestors, by name
    boxes: dict[int, list[BoxRow]]  # image pk -> boxes by number
    descriptions: dict[int, list[DescriptionRow]]  # image pk -> descriptions in creation order

    def records(self) -> list[ImageRecord]:
        """The metric's view: per image, its boxes and the descriptions that have a correspondence."""
        return [
            ImageRecord(
                key=image.key, width=image.width, height=image.height,
                boxes=[BoxRecord(b.number, b.concept, b.x, b.y, b.width, b.height) for b in self.boxes[image.pk]],
                descriptions=[
                    DescriptionRecord(d.pk, d.tokens, d.links)
                    for d in self.descriptions[image.pk] if d.links is not None
                ],
            )
            for image in self.images
        ]


def image_ids_in(campaigns: Iterable[Campaign]) -> set[int]:
    """Images a set of grounded campaigns covers (items {"image": id} or {"description": id})."""
    image_ids: set[int] = set()
    description_ids: set[int] = set()
    for items in HIT.objects.filter(campaign__in=list(campaigns)).values_list("items", flat=True):
        if isinstance(items.get("image"), int):
            image_ids.add(items["image"])
        if isinstance(items.get("description"), int):
            description_ids.add(items["description"])
    if description_ids:
        image_ids |= set(Description.objects.filter(pk__in=description_ids).values_list("image_id", flat=True))
    return image_ids


def grounded_dataset(campaigns: Iterable[Campaign] = ()) -> GroundedDataset:
    """Images with their boxes and descriptions: of the given campaigns, or every image that has boxes."""
    campaigns = list(campaigns)
    images_qs = Image.objects.order_by("key")
    if campaigns:
        images_qs = images_qs.filter(pk__in=image_ids_in(campaigns))
    else:
        images_qs = images_qs.filter(pk__in=Box.objects.values("image_id"))
    images = [
        ImageRow(pk, key, f"{key}.{name.rsplit('.', 1)[-1].lower()}", name, width, height)
        for pk, key, name, width, height in images_qs.values_list("pk", "key", "original", "width", "height")
    ]
    ids = [image.pk for image in images]
    boxes: dict[int, list[BoxRow]] = {pk: [] for pk in ids}
    concept_ids: set[int] = set()
    for row in Box.objects.filter(image_id__in=ids).order_by("image_id", "number").values_list(
        "image_id", "number", "concept_id", "concept__name", "x", "y", "width", "height", "source",
        "assignment__hit__campaign_id",
    ):
        image_id, number, concept_id, concept, x, y, width, height, source, campaign = row
        concept_ids.add(concept_id)
        boxes[image_id].append(BoxRow(number, concept, x, y, width, height, source, campaign))
    descriptions: dict[int, list[DescriptionRow]] = {pk: [] for pk in ids}
    by_pk: dict[int, DescriptionRow] = {}
    for pk, image_id, text, tokens, source, campaign in Description.objects.filter(image_id__in=ids).order_by(
        "image_id", "pk"
    ).values_list("pk", "image_id", "text", "tokens", "source", "assignment__hit__campaign_id"):
        by_pk[pk] = DescriptionRow(pk, text, tokens, source, campaign=campaign)
        descriptions[image_id].append(by_pk[pk])
    _attach_links(by_pk)
    return GroundedDataset(images, _with_ancestors(concept_ids), boxes, descriptions)


def _attach_links(descriptions: dict[int, DescriptionRow]) -> None:
    """The first correspondence of each description becomes its links; later ones go to other_links."""
    ids = list(descriptions)
    links: dict[int, dict[int, int]] = {}
    for correspondence, token, number in WordLink.objects.filter(
        correspondence__description_id__in=ids
    ).values_list("correspondence_id", "token_index", "box__number"):
        links.setdefault(correspondence, {})[token] = number
    for correspondence, description, campaign in Correspondence.objects.filter(description_id__in=ids).order_by(
        "pk"
    ).values_list("pk", "description_id", "assignment__hit__campaign_id"):
        row = descriptions[description]
        found = dict(sorted(links.get(correspondence, {}).items()))
        if row.links is None:
            row.links, row.links_campaign = found, campaign
        else:
            row.other_links.append(found)


def _with_ancestors(concept_ids: set[int]) -> list[Concept]:
    concepts = {c.pk: c for c in Concept.objects.all()}  # vocabularies are small (hundreds)
    wanted = set()
    for concept_id in concept_ids:
        pk: int | None = concept_id
        while pk is not None and pk not in wanted:
            wanted.add(pk)
            pk = concepts[pk].parent_id
    return sorted((concepts[pk] for pk in wanted), key=lambda c: c.name)
