"""ImageCLEF import: checked, then written in one transaction; all or nothing (import_imageclef)."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction

from ...image_sets.services import SetSpec, file_images
from ...models import Concept, Image
from ..boxes import BoxSpec, add_boxes, add_correspondence
from ..concepts import import_concepts
from ..image_files import ImageRejected
from ..images import import_image_bytes
from .checks import check_imageclef
from .source import CONCEPTS, IMAGES, BoxLine, ImageCLEFImport, ImageCLEFImportError, Plan, Source


def write_plan(source: Source, plan: Plan, vocabulary: str, summary: ImageCLEFImport, stored: list[str],
               image_set: SetSpec) -> None:
    concepts = import_concepts(plan.concepts_text, vocabulary, source=CONCEPTS)
    summary.concepts_created = concepts.created
    used = {box.concept for box in plan.boxes}
    concept_ids = dict(Concept.objects.filter(vocabulary=concepts.vocabulary, name__in=used).values_list("name", "pk"))
    images: dict[str, Image] = {}
    for spec in plan.images:
        if spec.existing is not None:
            images[spec.key] = spec.existing
            summary.images_reused += 1
            continue
        data = source.read(spec.file, settings.IMAGE_MAX_BYTES) or b""
        image, created = import_image_bytes(PurePosixPath(spec.file).name, data, key=spec.key)
        if not created or image.key != spec.key:
            raise ImageCLEFImportError([f"{IMAGES} line {spec.line}: image '{spec.key}' was stored concurrently"])
        stored.append(image.original.name)
        images[spec.key] = image
        summary.images += 1
    file_images(image_set, [image.pk for image in images.values()])
    boxes_by_image: dict[str, list[BoxLine]] = defaultdict(list)
    for box in plan.boxes:
        boxes_by_image[box.key].append(box)
    for key, specs in boxes_by_image.items():
        specs.sort(key=lambda box: box.number)
        add_boxes(images[key], [BoxSpec(concept_ids[b.concept], b.x, b.y, b.width, b.height) for b in specs],
                  source="gold", numbers=[b.number for b in specs])
        summary.boxes += len(specs)
    for described in sorted(plan.descriptions, key=lambda d: (d.key, d.index)):
        description = images[described.key].descriptions.create(
            text=" ".join(described.tokens), tokens=described.tokens, source=described.source
        )
        summary.descriptions += 1
        if described.linked:
            add_correspondence(description, described.links, source="gold")
            summary.correspondences += 1
            summary.links += len(described.links)


def import_imageclef(path: Path | str, vocabulary: str | None = None,
                     progress: Callable[[int, int], None] | None = None,
                     image_set: SetSpec | None = None) -> ImageCLEFImport:
    """Import a directory (or zip) in the ImageCLEF-style layout; all or nothing. Its images (new or already
    stored) land in `image_set` (default: a collection named like the dataset).

    `progress(done, 2)`, when given, is called once everything is checked (1) and once it is written (2)."""
    source = Source(Path(path))
    try:
        vocabulary = vocabulary or source.name
        plan = check_imageclef(source, vocabulary)
        if progress is not None:
            progress(1, 2)
        summary = ImageCLEFImport(vocabulary)
        stored: list[str] = []
        try:
            with transaction.atomic():
                write_plan(source, plan, vocabulary, summary, stored,
                           image_set or SetSpec(source.name[:100] or "ImageCLEF", source="imageclef"))
        except BaseException as exc:
            for name in stored:  # the rows are rolled back; the stored files must go too
                default_storage.delete(name)
            if isinstance(exc, (ImageRejected, IntegrityError, ValueError)) and not isinstance(
                exc, ImageCLEFImportError
            ):
                raise ImageCLEFImportError([f"nothing was imported: {exc}"]) from exc
            raise
        if progress is not None:
            progress(2, 2)
        return summary
    finally:
        source.close()
