"""What the review page of the annotation kinds shows: images with both renditions and box sets ready to draw.

Colours are indices 0-7 into the Okabe-Ito palette (colour-blind safe; classes c0-c7 in static/css/review.css);
numbers and labels are always shown next to a colour, never colour alone."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mturk.models import Assignment
from mturk.states import AssignmentStatus

from .models import Image

COLOURS = 8
ANSWERED = (AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED, AssignmentStatus.REJECTED)


def colour(number: int) -> int:
    return number % COLOURS


def review_images(image_ids: Iterable[int]) -> dict[int, dict[str, Any]]:
    """Per image id: the 1024 px and 320 px renditions and the size boxes are measured in; one query."""
    result = {}
    for pk, image in Image.objects.in_bulk(list(set(image_ids))).items():
        label = max(12, round(max(image.width, image.height) / 24))  # label size in the image's pixels
        result[pk] = {"id": pk, "url": image.display_url, "small": image.small_url, "width": image.width,
                      "height": image.height, "font": label, "halo": max(1, round(label / 5))}
    return result


def answered_box_sets(hit_ids: Iterable[int]) -> dict[int, list[tuple[int, str, str, list[dict[str, Any]]]]]:
    """Per HIT id, every answered assignment's box set: (assignment id, worker, status, boxes); one query."""
    sets: dict[int, list[tuple[int, str, str, list[dict[str, Any]]]]] = {pk: [] for pk in hit_ids}
    rows = Assignment.objects.filter(hit_id__in=list(sets), confirmed=True, status__in=ANSWERED).order_by(
        "hit_id", "pk").values_list("pk", "hit_id", "worker__external_id", "status", "answer")
    for pk, hit, worker, status, answer in rows:
        boxes = answer.get("boxes") if isinstance(answer, dict) else None
        sets[hit].append((pk, worker, status, boxes if isinstance(boxes, list) else []))
    return sets


def place_labels(boxes: list[dict[str, Any]], image: dict[str, Any] | None, *, bottom: bool = False) -> None:
    """Where each box's label is written, in the image's pixels: inside its top-left corner (or bottom-left,
    so that two overlaid sets do not write over each other)."""
    if image is None:
        return
    for box in boxes:
        box["text_x"] = box["x"] + image["halo"]
        box["text_y"] = box["y"] + box["height"] - image["halo"] if bottom else box["y"] + image["font"]
