"""The ImageCLEF-style layout (ours; documented in docs/formats/imageclef.md).

    concepts.tsv        name, synset, synonyms, parent (annotation.services.concepts)
    images.tsv          image, file, width, height
    images/<key>.<ext>  the original image files
    boxes.tsv           image, box, concept, x, y, width, height (0-based pixels, x, y = top-left corner)
    descriptions.tsv    image, description, source, linked, markup

`annotation.services.imageclef_import` reads the same layout back. The helpers shared by the three
writers (image keys that are safe in file names and TSV lines, root concepts) live here too."""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath
from typing import IO, TYPE_CHECKING

from metrics.text.markup import render

from ..services.concepts import concepts_tsv

if TYPE_CHECKING:
    from mturk.exports import ExportBundle

    from ..models import Concept
    from ..selectors import BoxRow, DescriptionRow, GroundedDataset, ImageRow

IMAGES_HEADER = ("image", "file", "width", "height")
BOXES_HEADER = ("image", "box", "concept", "x", "y", "width", "height")
DESCRIPTIONS_HEADER = ("image", "description", "source", "linked", "markup")
SIMULATED = "simulated"


def key_problem(key: str) -> str | None:
    """Why an image key cannot be written as a TSV cell and a file name, or None."""
    if not key:
        return "the image key is empty"
    if key != key.strip():
        return f"the image key '{key}' has leading or trailing spaces"
    if any(char in key for char in "\t\r\n/\\"):
        return f"the image key {key!r} contains a tab, a line break or a slash"
    if key.startswith(("#", ".")):
        return f"the image key '{key}' starts with '{key[0]}'"
    return None


def sorted_images(dataset: GroundedDataset) -> list[ImageRow]:
    """The dataset's images by key, after checking every key can be exported (ExportError otherwise)."""
    problems = [problem for image in dataset.images if (problem := key_problem(image.key))]
    if problems:
        from mturk.exports import ExportError

        raise ExportError("images that cannot be exported: " + "; ".join(problems))
    return sorted(with_reference_names(dataset.images), key=lambda image: image.key)


def reference_file_names(images: Iterable[tuple[int, str, str]]) -> dict[int, str]:
    """The file names of images known only by reference (no stored file), from (pk, key, stored original):
    <key>.<extension of the name it was imported under> (COCO's file_name). One query when there are any."""
    from ..models import Image

    ids = [pk for pk, _, original in images if not original]
    if not ids:
        return {}
    return {pk: f"{key}{PurePosixPath(name).suffix.lower()}" for pk, key, name in
            Image.objects.filter(pk__in=ids).values_list("pk", "key", "original_name")}


def with_reference_names(images: list[ImageRow]) -> list[ImageRow]:
    """The rows with the file name of each image known only by reference (its stored original is empty)."""
    names = reference_file_names((image.pk, image.key, image.original) for image in images)
    return [dataclasses.replace(image, file_name=names[image.pk]) if image.pk in names else image
            for image in images]


def image_path(image: ImageRow) -> str:
    """Where an export puts the image file: images/<key>.<extension of the original>."""
    return f"images/{image.file_name}"


def by_reference_note(count: int) -> str:
    """The dataset card's paragraph on images listed without their file."""
    return (f"{count} image(s) are known to the platform only by reference (annotations imported without the "
            "image files, e.g. from COCO): they are listed with their annotations but their files are not in this "
            "zip; fetch them from their source (COCO's `coco_url`, or the dataset's own download).")


def copy_image_files(bundle: ExportBundle, images: Iterable[ImageRow],
                     path: Callable[[ImageRow], str] = image_path, advance: bool = True) -> int:
    """Copy the stored file of each image into the bundle (one step each when `advance`); images known only by
    reference have none: they are counted and named in the bundle's notes. Returns how many were skipped."""
    skipped = 0
    for image in images:
        if image.original:
            bundle.copy_stored_file(path(image), image.original)
        else:
            skipped += 1
        if advance:
            bundle.advance()
    if skipped:
        bundle.counts["images without file (by reference)"] = skipped
        bundle.notes.append(by_reference_note(skipped))
    return skipped


def boxes_of(dataset: GroundedDataset, image: ImageRow) -> list[BoxRow]:
    return sorted(dataset.boxes.get(image.pk, []), key=lambda box: box.number)


def descriptions_of(dataset: GroundedDataset, image: ImageRow) -> list[DescriptionRow]:
    return list(dataset.descriptions.get(image.pk, []))  # already in creation order


def root_names(concepts: Iterable[Concept]) -> dict[str, str]:
    """Concept name -> the name of its root ancestor (itself when it has no parent)."""
    by_pk = {concept.pk: concept for concept in concepts}
    roots: dict[str, str] = {}
    for concept in by_pk.values():
        node, seen = concept, {concept.pk}
        while node.parent_id in by_pk and node.parent_id not in seen:  # the seen check guards against cycles
            node = by_pk[node.parent_id]
            seen.add(node.pk)
        roots[concept.name] = node.name
    return roots


def is_simulated(dataset: GroundedDataset) -> bool:
    """Whether any exported description or box was generated rather than collected."""
    return any(
        description.source == SIMULATED for rows in dataset.descriptions.values() for description in rows
    ) or any(box.source == SIMULATED for rows in dataset.boxes.values() for box in rows)


def _line(cells: Iterable[object]) -> str:
    return "\t".join(str(cell) for cell in cells) + "\n"


def _write_rows(handle: IO[str], header: tuple[str, ...], rows: Iterable[Iterable[object]]) -> int:
    handle.write(_line(header))
    count = 0
    for row in rows:
        handle.write(_line(row))
        count += 1
    return count


def write_imageclef(bundle: ExportBundle, dataset: GroundedDataset) -> int:
    """Write the ImageCLEF-style files; returns the number of descriptions."""
    images = sorted_images(dataset)
    bundle.write_text("concepts.tsv", concepts_tsv(dataset.concepts))
    with bundle.open_text("images.tsv") as handle:
        _write_rows(handle, IMAGES_HEADER, ([i.key, image_path(i), i.width, i.height] for i in images))
    copy_image_files(bundle, images)
    with bundle.open_text("boxes.tsv") as handle:
        boxes = _write_rows(handle, BOXES_HEADER, (
            [image.key, box.number, box.concept, box.x, box.y, box.width, box.height]
            for image in images for box in boxes_of(dataset, image)
        ))
    linked = links = 0
    with bundle.open_text("descriptions.tsv") as handle:
        handle.write(_line(DESCRIPTIONS_HEADER))
        descriptions = 0
        for image in images:
            for index, description in enumerate(descriptions_of(dataset, image), start=1):
                found = description.links is not None
                linked += found
                links += len(description.links or {})
                handle.write(_line([image.key, index, description.source, int(found),
                                    render(description.tokens, description.links or {})]))
                descriptions += 1
    bundle.counts.update({
        "images": len(images), "concepts": len(dataset.concepts), "boxes": boxes, "descriptions": descriptions,
        "linked_descriptions": linked, "links": links,
    })
    bundle.simulated |= is_simulated(dataset)
    bundle.notes.append(
        "ImageCLEF-style layout (docs/formats/imageclef.md): `concepts.tsv`, `images.tsv`, `images/`, `boxes.tsv` "
        "(0-based pixels, x and y the top-left corner, `box` the box id within its image) and `descriptions.tsv` "
        "(tokens in the correspondence markup `A [woman]^2 in a [dress]^0 .`; `linked` = 0 when no word-to-box "
        "correspondence was collected yet). `python manage.py import_imageclef DIR` reads it back."
    )
    return descriptions
