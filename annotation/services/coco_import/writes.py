"""COCO import, second pass: images (with their file or by reference) and their origins, captions, concepts and
boxes written in batches."""
from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any

from django.db import reset_queries
from django.db.models import Max

from metrics.text.markup import tokenize

from ...models import Box, Concept, Description, Image, ImageOrigin, Vocabulary
from ..image_files import ImageInfo, inspect_image
from ..images import import_image_bytes
from .records import (
    BATCH,
    DATASET,
    FORMATS,
    SOURCE,
    SUBSET,
    VOCABULARY,
    CocoFile,
    CocoImport,
    CocoImportError,
    Counter,
    ImageFiles,
    Plan,
    Problems,
    chunks,
    read_records,
)


def subset_of(file_name: str, fallback: str) -> str:
    match = SUBSET.search(file_name)
    return match.group(0) if match else fallback


def write_images(plan: Plan, image_files: ImageFiles | None, subset: str | None, fallback: str,
                  summary: CocoImport, stored: list[str], counter: Counter) -> dict[int, int]:
    """Creates the new images and every missing origin; returns the platform image id of every COCO id."""
    image_ids: dict[int, int] = {}
    for chunk in chunks(sorted(plan.images), BATCH):
        origins: list[ImageOrigin] = []
        by_reference: list[tuple[int, Image]] = []
        for coco_id in chunk:
            image = plan.images[coco_id]
            origin = ImageOrigin(dataset=DATASET, external_id=coco_id,
                                 subset=subset if subset is not None else subset_of(image.file_name, fallback))
            key = PurePosixPath(image.file_name).stem
            if coco_id in plan.reused:
                image_ids[coco_id], has_origin = plan.reused[coco_id]
                summary.images_reused += 1
                if not has_origin:
                    origin.image_id = image_ids[coco_id]
                    origins.append(origin)
            elif coco_id in plan.with_file and image_files is not None:
                data = image_files(image.file_name) or b""
                info = inspect_image(data)
                created, new = import_image_bytes(image.file_name, data, key=key,
                                                  info=ImageInfo(info.format, info.extension, info.width, info.height))
                if not new or created.key != key:
                    raise CocoImportError([f"images (id {coco_id}): image '{key}' was stored concurrently"])
                stored.append(created.original.name)
                image_ids[coco_id] = created.pk
                origin.image_id = created.pk
                origins.append(origin)
                summary.images_new += 1
            else:
                extension = PurePosixPath(image.file_name).suffix.lower()
                by_reference.append((coco_id, Image(
                    key=key, sha256=None, original="", source_url=image.url, original_name=image.file_name,
                    format=FORMATS.get(extension, extension[1:].upper()[:10]), width=image.width,
                    height=image.height, file_size=0,
                )))
                origins.append(origin)
            counter.step()
        Image.objects.bulk_create([image for _, image in by_reference])
        summary.images_by_reference += len(by_reference)
        made = {coco_id: image.pk for coco_id, image in by_reference}
        image_ids.update(made)
        for origin in origins:
            if origin.image_id is None:
                origin.image_id = made[origin.external_id]
        ImageOrigin.objects.bulk_create(origins)
        reset_queries()
    return image_ids


def _batches(records: Iterator[tuple[int, Any]], counter: Counter) -> Iterator[list[dict[str, Any]]]:
    """The records in batches of BATCH. With DEBUG on (as when a command is run by hand), Django keeps the SQL of
    the last 9000 queries, each bulk insert a few hundred kB long: that log is emptied after each batch."""
    batch: list[dict[str, Any]] = []
    for _, record in records:
        counter.step()
        batch.append(record)
        if len(batch) == BATCH:
            yield batch
            reset_queries()
            batch = []
    if batch:
        yield batch
        reset_queries()


def write_captions(source: CocoFile, image_ids: dict[int, int], summary: CocoImport, counter: Counter) -> None:
    problems = Problems()
    for batch in _batches(read_records(source, "annotations", problems), counter):
        known = set(Description.objects.filter(source=SOURCE, external_id__in=[r["id"] for r in batch])
                    .values_list("external_id", flat=True))
        new = []
        for record in batch:
            if record["id"] in known:
                summary.captions_skipped += 1
                continue
            text = record["caption"].strip()
            new.append(Description(image_id=image_ids[record["image_id"]], text=text, tokens=tokenize(text),
                                   source=SOURCE, external_id=record["id"]))
        Description.objects.bulk_create(new)
        summary.captions += len(new)
    problems.raise_any()  # the file changed between the passes


def _concepts(plan: Plan, summary: CocoImport) -> dict[int, int]:
    """The concept of every category in the vocabulary "coco" (created when missing; another vocabulary's label of
    the same name is left alone). A category's supercategory, when it is another name, becomes its parent (a label
    of the vocabulary, not offered to workers unless it is a category too) where the concept has no parent yet."""
    names = set(plan.categories.values())
    parents = set(plan.supercategories.values()) - names
    vocabulary, _ = Vocabulary.objects.get_or_create(name=VOCABULARY)
    owned = Concept.objects.filter(vocabulary=vocabulary)
    existing = dict(owned.filter(name__in=names | parents).values_list("name", "pk"))
    missing = sorted((names | parents) - set(existing))
    Concept.objects.bulk_create([Concept(vocabulary=vocabulary, name=name, synonyms=[name], offered=name in names)
                                 for name in missing])
    owned.filter(name__in=names, offered=False).update(offered=True)
    summary.concepts_created = len(missing)
    existing = dict(owned.filter(name__in=names | parents).values_list("name", "pk"))
    children: dict[str, list[int]] = {}
    for name, parent in plan.supercategories.items():
        children.setdefault(parent, []).append(existing[name])
    for parent, concept_ids in sorted(children.items()):  # one update per supercategory (COCO: 12)
        owned.filter(pk__in=concept_ids, parent=None).update(parent=existing[parent])
    return {category_id: existing[name] for category_id, name in plan.categories.items()}


def _box(bbox: list[float], width: int, height: int) -> tuple[int, int, int, int]:
    """The box rounded to whole pixels and clipped inside the image, at least 1 px wide and high."""
    x, y, w, h = bbox
    left = min(max(math.floor(x + 0.5), 0), width - 1)
    top = min(max(math.floor(y + 0.5), 0), height - 1)
    right = min(max(math.floor(x + w + 0.5), left + 1), width)
    bottom = min(max(math.floor(y + h + 0.5), top + 1), height)
    return left, top, right - left, bottom - top


def write_boxes(source: CocoFile, plan: Plan, image_ids: dict[int, int], summary: CocoImport,
                 counter: Counter) -> None:
    concept_ids = _concepts(plan, summary)
    numbers: dict[int, int] = {}  # platform image id -> next free box number
    reused = [image_id for image_id, _ in plan.reused.values()]
    for chunk in chunks(reused):
        for image_id, last in (Box.objects.filter(image_id__in=chunk).values("image_id")
                               .annotate(last=Max("number")).values_list("image_id", "last")):
            numbers[image_id] = last + 1
    problems = Problems()
    for batch in _batches(read_records(source, "annotations", problems), counter):
        known = set(Box.objects.filter(source=SOURCE, external_id__in=[r["id"] for r in batch])
                    .values_list("external_id", flat=True))
        new = []
        for record in batch:
            if record.get("iscrowd", 0) == 1:
                summary.crowd_skipped += 1
                continue
            if record["id"] in known:
                summary.boxes_skipped += 1
                continue
            image = plan.images[record["image_id"]]
            image_id = image_ids[record["image_id"]]
            x, y, width, height = _box(record["bbox"], image.width, image.height)
            number = numbers.get(image_id, 0)
            numbers[image_id] = number + 1
            new.append(Box(image_id=image_id, number=number, concept_id=concept_ids[record["category_id"]], x=x, y=y,
                           width=width, height=height, source=SOURCE, external_id=record["id"]))
        Box.objects.bulk_create(new)
        summary.boxes += len(new)
    problems.raise_any()

