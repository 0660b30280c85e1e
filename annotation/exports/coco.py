"""The COCO layout (documented in docs/formats/coco.md).

    annotations/captions.json    info, licenses, images, annotations (id, image_id, caption)
    annotations/instances.json   info, licenses, images, annotations (id, image_id, category_id, segmentation,
                                 area, bbox, iscrowd), categories (id, name, supercategory)
    annotations/image_keys.json  COCO image id -> image key
    images/<key>.<ext>           the original image files (`file_name` is relative to images/)

COCO ids are integers: images 1..N in key order, categories 1..C in name order, annotations numbered
in order (image key, then box number or description order). The JSON is written one record per line
as it is produced, never built whole in memory. With the `aggregated` option, images whose boxes came from a
draw_boxes HIT with a stored aggregate get the aggregated boxes, each with an `aggregation` object
(coco_aggregated)."""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any

from .coco_aggregated import NOTE as AGGREGATED_NOTE
from .coco_aggregated import aggregated_boxes, aggregated_option
from .common import (
    Provenance,
    boxes_of,
    copy_image_files,
    descriptions_of,
    is_simulated,
    root_names,
    sorted_images,
)

if TYPE_CHECKING:
    from mturk.datasets.formats import ExportBundle

    from ..selectors import GroundedDataset, ImageRow

INFO = {
    "description": "Grounded image descriptions: boxes, descriptions and word-to-box links",
    "version": "1.0",
    "contributor": "",
    "url": "",
}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _write_list(handle: IO[str], name: str, items: Iterable[Any], last: bool = False) -> int:
    """Write `"name": [ ... ]` with one item per line; returns the number of items."""
    handle.write(f' "{name}": [')
    count = 0
    for item in items:
        handle.write(("\n  " if count == 0 else ",\n  ") + _dumps(item))
        count += 1
    handle.write("\n ]" + ("\n" if last else ",\n"))
    return count


def _image_records(images: list[ImageRow]) -> Iterator[dict]:
    for number, image in enumerate(images, start=1):
        yield {"id": number, "file_name": image.file_name, "width": image.width, "height": image.height}


def write_coco(bundle: ExportBundle, dataset: GroundedDataset) -> int:
    """Write the COCO captions and instances files; returns the annotations written (captions and boxes)."""
    images = sorted_images(dataset)
    provenance = Provenance()
    copy_image_files(bundle, images)
    with bundle.open_text("annotations/image_keys.json") as handle:
        handle.write("{")
        for number, image in enumerate(images, start=1):
            handle.write(("\n " if number == 1 else ",\n ") + f"{_dumps(str(number))}: {_dumps(image.key)}")
        handle.write("\n}\n")

    def captions() -> Iterator[dict]:
        number = 0
        for image_id, image in enumerate(images, start=1):
            for description in descriptions_of(dataset, image):
                number += 1
                provenance.description(description)
                yield {"id": number, "image_id": image_id, "caption": description.text}

    with bundle.open_text("annotations/captions.json") as handle:
        handle.write("{\n" + f' "info": {_dumps(INFO)},\n "licenses": [],\n')
        _write_list(handle, "images", _image_records(images))
        caption_count = _write_list(handle, "annotations", captions(), last=True)
        handle.write("}\n")

    aggregated = aggregated_boxes(dataset) if aggregated_option(bundle.options) else None
    concepts = {c.name: c for c in [*dataset.concepts, *(aggregated.concepts if aggregated else [])]}
    categories = sorted(concepts.values(), key=lambda concept: concept.name)
    category_ids = {concept.name: number for number, concept in enumerate(categories, start=1)}
    roots = root_names(categories)

    def instances() -> Iterator[dict]:
        number = 0
        for image_id, image in enumerate(images, start=1):
            merged = aggregated.images.get(image.pk) if aggregated else None
            own = boxes_of(dataset, image)
            for index, box in enumerate(merged.boxes if merged else own):
                number += 1
                # an aggregated box is made from the answers to the HIT the image's own boxes came from
                provenance.box(dataclasses.replace(box, campaign=own[0].campaign) if merged else box)
                right, bottom = box.x + box.width, box.y + box.height
                record = {
                    "id": number, "image_id": image_id, "category_id": category_ids[box.concept],
                    "segmentation": [[box.x, box.y, right, box.y, right, bottom, box.x, bottom]],
                    "area": box.width * box.height, "bbox": [box.x, box.y, box.width, box.height], "iscrowd": 0,
                }
                if merged:
                    record["aggregation"] = merged.aggregation[index]
                yield record

    with bundle.open_text("annotations/instances.json") as handle:
        handle.write("{\n" + f' "info": {_dumps(INFO)},\n "licenses": [],\n')
        _write_list(handle, "images", _image_records(images))
        box_count = _write_list(handle, "annotations", instances())
        _write_list(handle, "categories", (
            {"id": category_ids[concept.name], "name": concept.name, "supercategory": roots[concept.name]}
            for concept in categories
        ), last=True)
        handle.write("}\n")

    bundle.counts.update({
        "images": len(images), "categories": len(categories), "boxes": box_count, "captions": caption_count,
    })
    if aggregated is not None:
        exported = {image.pk for image in images}
        bundle.counts["images_with_aggregated_boxes"] = sum(pk in exported for pk in aggregated.images)
    bundle.simulated |= is_simulated(dataset)
    bundle.notes.append(
        "COCO layout (docs/formats/coco.md): `annotations/captions.json` (every description as a caption) and "
        "`annotations/instances.json` (boxes as `bbox` [x, y, width, height] in pixels from the top-left corner, "
        "categories = concepts, supercategory = the root concept). COCO image ids are 1..N in image-key order; "
        "`annotations/image_keys.json` maps them to the image keys. Word-to-box links are not part of COCO: "
        "use the imageclef or flickr30k export for them."
    )
    if aggregated is not None:
        bundle.notes.append(AGGREGATED_NOTE)
    provenance.record(bundle)
    return caption_count + box_count
