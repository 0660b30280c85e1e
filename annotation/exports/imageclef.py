"""The ImageCLEF-style layout (ours; documented in docs/formats/imageclef.md).

    concepts.tsv        name, synset, synonyms, parent (annotation.services.concepts)
    images.tsv          image, file, width, height
    images/<key>.<ext>  the original image files
    boxes.tsv           image, box, concept, x, y, width, height (0-based pixels, x, y = top-left corner)
    descriptions.tsv    image, description, source, linked, markup

`annotation.services.imageclef_import` reads the same layout back. What the grounded writers share is in
`annotation.exports.common`."""
from __future__ import annotations

from collections.abc import Iterable
from typing import IO, TYPE_CHECKING

from metrics.text.markup import render

from ..services.concepts import concepts_tsv
from .common import (
    Provenance,
    boxes_of,
    copy_image_files,
    descriptions_of,
    formula_like,
    image_path,
    is_simulated,
    note_formulas,
    sorted_images,
)

if TYPE_CHECKING:
    from mturk.datasets.formats import ExportBundle

    from ..selectors import GroundedDataset

IMAGES_HEADER = ("image", "file", "width", "height")
BOXES_HEADER = ("image", "box", "concept", "x", "y", "width", "height")
DESCRIPTIONS_HEADER = ("image", "description", "source", "linked", "markup")


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
    """Write the ImageCLEF-style files; returns the records written (boxes and descriptions)."""
    images = sorted_images(dataset)
    provenance = Provenance()
    bundle.write_text("concepts.tsv", concepts_tsv(dataset.concepts))
    with bundle.open_text("images.tsv") as handle:
        _write_rows(handle, IMAGES_HEADER, ([i.key, image_path(i), i.width, i.height] for i in images))
    copy_image_files(bundle, images)
    with bundle.open_text("boxes.tsv") as handle:
        handle.write(_line(BOXES_HEADER))
        boxes = 0
        for image in images:
            for box in boxes_of(dataset, image):
                handle.write(_line([image.key, box.number, box.concept, box.x, box.y, box.width, box.height]))
                provenance.box(box)
                boxes += 1
    linked = links = formulas = 0
    with bundle.open_text("descriptions.tsv") as handle:
        handle.write(_line(DESCRIPTIONS_HEADER))
        descriptions = 0
        for image in images:
            for index, description in enumerate(descriptions_of(dataset, image), start=1):
                found = description.links is not None
                linked += found
                links += len(description.links or {})
                markup = render(description.tokens, description.links or {})
                formulas += formula_like(markup)
                provenance.description(description)
                handle.write(_line([image.key, index, description.source, int(found), markup]))
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
    note_formulas(bundle, formulas, ("description of `descriptions.tsv`", "descriptions of `descriptions.tsv`"),
                  "docs/formats/imageclef.md")
    provenance.record(bundle)
    return boxes + descriptions
