"""Writes on boxes and word-to-box correspondence."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.db import transaction

from mturk.models import Assignment

from ..models import Box, Correspondence, Description, Image, WordLink


@dataclass(frozen=True)
class BoxSpec:
    concept_id: int
    x: int
    y: int
    width: int
    height: int


def box_problem(image_width: int, image_height: int, x: object, y: object, width: object, height: object,
                min_size: int = 1) -> str | None:
    """Why a box is not acceptable on an image of this size, or None."""
    values = {"x": x, "y": y, "width": width, "height": height}
    for name, value in values.items():
        if not isinstance(value, int) or isinstance(value, bool):
            return f"{name} must be a whole number of pixels, got {value!r}"
    if width < min_size or height < min_size:  # type: ignore[operator]
        return f"size {width}x{height} is below the minimum of {min_size} px"
    if x < 0 or y < 0 or x + width > image_width or y + height > image_height:  # type: ignore[operator]
        return (f"({x}, {y}, {width}x{height}) lies outside the image "
                f"({image_width}x{image_height} px)")
    return None


def add_boxes(image: Image, specs: Iterable[BoxSpec], *, source: str, assignment: Assignment | None = None,
              numbers: Iterable[int] | None = None, only_if_none: bool = False) -> list[Box]:
    """Add boxes to an image, numbered after its existing boxes (or with the given numbers).

    With only_if_none, nothing is added when the image already has boxes (checked under the lock)."""
    specs = list(specs)
    with transaction.atomic():
        Image.objects.select_for_update().filter(pk=image.pk).first()  # serializes numbering per image
        if only_if_none and image.boxes.exists():
            return []
        if numbers is None:
            last = image.boxes.order_by("-number").values_list("number", flat=True).first()
            start = 0 if last is None else last + 1  # not `last or -1`: box 0 is a box
            numbers = range(start, start + len(specs))
        boxes = [
            Box(image=image, number=number, concept_id=spec.concept_id, x=spec.x, y=spec.y, width=spec.width,
                height=spec.height, source=source, assignment=assignment)
            for number, spec in zip(numbers, specs, strict=True)
        ]
        return Box.objects.bulk_create(boxes)


def add_correspondence(description: Description, links: Mapping[int, int], *, source: str,
                       assignment: Assignment | None = None) -> Correspondence:
    """Store one set of links (token index -> box number) for a description."""
    by_number = dict(Box.objects.filter(image_id=description.image_id).values_list("number", "pk"))
    unknown = sorted({n for n in links.values() if n not in by_number})
    if unknown:
        raise ValueError(f"description {description.pk}: no box {', '.join(map(str, unknown))} on its image")
    bad = sorted(i for i in links if not 0 <= i < len(description.tokens))
    if bad:
        raise ValueError(f"description {description.pk}: no token {', '.join(map(str, bad))}")
    with transaction.atomic():
        correspondence = Correspondence.objects.create(description=description, assignment=assignment, source=source)
        WordLink.objects.bulk_create(
            WordLink(correspondence=correspondence, token_index=i, box_id=by_number[n])
            for i, n in sorted(links.items())
        )
    return correspondence
