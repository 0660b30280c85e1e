"""Flickr30k Entities import, second pass: the files read again and written in batches of images (a few queries
per batch): images and their origins, boxes, descriptions, correspondences and word links."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from django.conf import settings
from django.db import reset_queries

from ...models import Box, Concept, Correspondence, Description, Image, ImageOrigin, Vocabulary, WordLink
from ..coco_import.records import FORMATS
from ..images import import_image_bytes
from .checks import Plan, load_image
from .plan import ImagePlan
from .source import ANNOTATIONS, DATASET, ORIGIN_ID, SOURCE, Flickr30kImport, Flickr30kImportError, Source

BATCH = 500  # images per batch


def write_concepts(types: set[str], vocabulary: str, summary: Flickr30kImport) -> dict[str, int]:
    """The concept of every type in the vocabulary (created when missing, offered again when hidden)."""
    owner, _ = Vocabulary.objects.get_or_create(name=vocabulary)
    owned = Concept.objects.filter(vocabulary=owner)
    existing = set(owned.filter(name__in=types).values_list("name", flat=True))
    missing = sorted(types - existing)
    Concept.objects.bulk_create([Concept(vocabulary=owner, name=name, synonyms=[name]) for name in missing])
    owned.filter(name__in=types, offered=False).update(offered=True)
    summary.concepts_created = len(missing)
    return dict(owned.filter(name__in=types).values_list("name", "pk"))


def _new_image(source: Source, key: str, image: ImagePlan, plan: Plan, stored: list[str],
               summary: Flickr30kImport) -> Image | None:
    """The image stored with its file (returned saved), or an unsaved image known by reference (None: stored)."""
    name = image.file_name or f"{key}.jpg"
    if key in plan.with_file:
        data = source.image(name, settings.IMAGE_MAX_BYTES) or b""
        created, new = import_image_bytes(name, data, key=key)
        if not new or created.key != key:
            raise Flickr30kImportError([f"{ANNOTATIONS}/{key}.xml: image '{key}' was stored concurrently"])
        stored.append(created.original.name)
        summary.images_with_file += 1
        return created
    extension = PurePosixPath(name).suffix.lower()
    summary.images_by_reference += 1
    return Image(key=key, sha256=None, original="", source_url="", original_name=name[:255],
                 format=FORMATS.get(extension, extension[1:].upper()[:10] or "JPEG"), width=image.width,
                 height=image.height, file_size=0)


def _batch(source: Source, keys: list[str], plan: Plan, concepts: dict[str, int], summary: Flickr30kImport,
           stored: list[str]) -> list[int]:
    problems: list[str] = []
    images: dict[str, ImagePlan] = {}
    for key in keys:
        image = load_image(source, key, problems)
        if image is not None:
            images[key] = image
    if problems:  # the files changed since they were checked
        raise Flickr30kImportError(problems[:50])
    pks: dict[str, int] = {}
    by_reference: list[Image] = []
    for key in keys:
        known = plan.stored.get(key)
        if known is not None:
            pks[key] = known.pk
            continue
        made = _new_image(source, key, images[key], plan, stored, summary)
        if made is not None and made.pk is not None:
            pks[key] = made.pk
        elif made is not None:
            by_reference.append(made)
    for created in Image.objects.bulk_create(by_reference):
        pks[created.key] = created.pk
    ImageOrigin.objects.bulk_create([
        ImageOrigin(image_id=pks[key], dataset=DATASET, external_id=int(key), subset=plan.subsets.get(key, ""))
        for key in keys if ORIGIN_ID.fullmatch(key) and not (key in plan.stored and plan.stored[key].has_origin)])
    annotated = []
    for key in keys:
        known = plan.stored.get(key)
        if known is not None and known.annotated:
            summary.images_skipped += 1
        else:
            summary.images_reused += known is not None
            annotated.append(key)
    _annotations(annotated, images, pks, concepts, summary)
    return list(pks.values())


def _annotations(keys: list[str], images: dict[str, ImagePlan], pks: dict[str, int], concepts: dict[str, int],
                 summary: Flickr30kImport) -> None:
    boxes = [Box(image_id=pks[key], number=box.number, concept_id=concepts[box.type], x=box.x, y=box.y,
                 width=box.width, height=box.height, source=SOURCE)
             for key in keys for box in images[key].boxes]
    box_pks = {(box.image_id, box.number): box.pk for box in Box.objects.bulk_create(boxes)}
    planned = [(key, described) for key in keys for described in images[key].descriptions]
    descriptions = Description.objects.bulk_create([
        Description(image_id=pks[key], text=" ".join(described.words), tokens=described.words, source=SOURCE)
        for key, described in planned])
    linked = [(description, key, described) for description, (key, described) in zip(descriptions, planned,
                                                                                      strict=True)
              if described.annotated]
    correspondences = Correspondence.objects.bulk_create([
        Correspondence(description=description, source=SOURCE) for description, _, _ in linked])
    links = [WordLink(correspondence=correspondence, token_index=token, box_id=box_pks[(pks[key], number)])
             for correspondence, (_, key, described) in zip(correspondences, linked, strict=True)
             for token, number in sorted(described.links.items())]
    WordLink.objects.bulk_create(links, batch_size=5000)
    for key in keys:
        counts = images[key].counts
        summary.phrases_linked += counts["linked"]
        summary.phrases_nobox += counts["nobox"]
        summary.phrases_scene += counts["scene"]
        summary.phrases_notvisual += counts["notvisual"]
        summary.names_dropped += counts["names dropped"]
        summary.boxes_clipped += counts["clipped"]
    summary.boxes += len(boxes)
    summary.descriptions += len(descriptions)
    summary.correspondences += len(correspondences)
    summary.links += len(links)


def write_release(source: Source, plan: Plan, vocabulary: str, summary: Flickr30kImport, stored: list[str],
                  step: Callable[[int], None]) -> list[int]:
    """Everything written; returns the platform ids of the release's images."""
    concepts = write_concepts(plan.types, vocabulary, summary)
    image_ids: list[int] = []
    for start in range(0, len(plan.keys), BATCH):
        keys = plan.keys[start:start + BATCH]
        image_ids += _batch(source, keys, plan, concepts, summary, stored)
        step(len(keys))
        reset_queries()  # with DEBUG on, Django keeps every query's SQL
    return image_ids
