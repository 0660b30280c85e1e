"""Tests of the plain-Python metrics; `make_image` builds small grounded images for them."""
from __future__ import annotations

from collections.abc import Sequence

from metrics.grounded import BoxRecord, DescriptionRecord, ImageRecord


def make_description(ident: int | str, boxes: Sequence[int]) -> DescriptionRecord:
    """A description referring to `boxes` in this order, one linked token per reference."""
    tokens = ["a"]
    links = {}
    for box in boxes:
        links[len(tokens)] = box
        tokens += [f"thing{box}", "and"]
    return DescriptionRecord(ident, tokens, links)


def make_image(
    key: str,
    concepts: Sequence[str],
    descriptions: Sequence[Sequence[int]],
    geometry: Sequence[tuple[float, float, float, float]] | None = None,
    size: tuple[int, int] = (100, 100),
) -> ImageRecord:
    """Boxes numbered 0..n-1 with the given concepts (and x, y, width, height), descriptions as box lists."""
    geometry = geometry or [(i, i, 10.0, 10.0) for i in range(len(concepts))]
    boxes = [BoxRecord(i, concept, *geometry[i]) for i, concept in enumerate(concepts)]
    return ImageRecord(key, size[0], size[1], boxes, [make_description(f"{key}-{i}", d) for i, d in
                                                      enumerate(descriptions)])
