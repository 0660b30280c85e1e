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
from .common import boxes_of, copy_image_files, descriptions_of, image_path, is_simulated, sorted_images

if TYPE_CHECKING:
    from mturk.exports import ExportBundle

    from ..selectors import GroundedDataset

IMAGES_HEADER = ("image", "file", "width", "height")
BOXES_HEADER = ("image", "box", "concept", "x", "y", "width", "height")
DESCRIPTIONS_HEADER = ("image", "description", "source", "linked", "markup")
# A spreadsheet reads a cell starting with one of these as a formula. Cells are written unchanged (the importer,
# system runs and every program reading the files get the text as it was written); the dataset card says how
# many markup cells start so and how to open the files safely (docs/formats/imageclef.md#spreadsheets).
FORMULA_STARTS = ("=", "+", "-", "@")


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
    linked = links = formula_like = 0
    with bundle.open_text("descriptions.tsv") as handle:
        handle.write(_line(DESCRIPTIONS_HEADER))
        descriptions = 0
        for image in images:
            for index, description in enumerate(descriptions_of(dataset, image), start=1):
                found = description.links is not None
                linked += found
                links += len(description.links or {})
                markup = render(description.tokens, description.links or {})
                formula_like += markup.startswith(FORMULA_STARTS)
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
    if formula_like:
        bundle.notes.append(
            f"{formula_like} description{'s' if formula_like != 1 else ''} of `descriptions.tsv` start with `=`, `+`, "
            "`-` or `@`, written as the workers typed them: a spreadsheet may read such a cell as a formula. Open the "
            "`.tsv` files as text (every column of type Text), not by double-clicking them "
            "(docs/formats/imageclef.md, Spreadsheets).")
    return descriptions
