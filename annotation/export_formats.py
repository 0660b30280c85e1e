"""Registers the grounded-descriptions export formats (each carries the content-selection report); the flickr8k
and compositional formats register themselves (annotation.ranking, annotation.compositional)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mturk.datasets.formats import ExportBundle, ExportError, ExportFormat, ExportOption, register_format
from mturk.models import Campaign

from .exports.coco import write_coco
from .exports.coco_aggregated import aggregated_option
from .exports.flickr30k import write_flickr30k
from .exports.imageclef import write_imageclef
from .reports import write_grounded_report
from .selectors import GroundedDataset, grounded_dataset

GROUNDED_KINDS = ("draw_boxes", "describe_image", "link_words")


Writer = Callable[[ExportBundle, GroundedDataset], int]


def _with_report(write: Writer) -> Callable[[ExportBundle, list[Campaign]], int]:
    def export(bundle: ExportBundle, campaigns: list[Campaign]) -> int:
        dataset = grounded_dataset(campaigns)
        bundle.add_steps(len(dataset.images) + 1)  # the writers advance one step per image; then the report
        records = write(bundle, dataset)
        write_grounded_report(bundle, dataset)
        bundle.advance()
        return records

    return export


def check_coco_options(options: dict[str, Any]) -> None:
    try:
        aggregated_option(options)
    except ValueError as exc:
        raise ExportError(str(exc)) from None


COCO_OPTIONS = (
    ExportOption("aggregated", "flag", "Boxes of images that several workers boxed: the aggregated boxes (IoU "
                                       "clustering, concept by vote) instead of the first approved answer's, each "
                                       "with an \"aggregation\" object; needs the campaign's quality computed."),
)

for name, write, description, doc, options, check in (
    ("imageclef", write_imageclef,
     "Grounded descriptions, ImageCLEF style: concepts, images, labelled boxes and descriptions with their "
     "word-to-box correspondence markup.", "docs/formats/imageclef.md", (), None),
    ("coco", write_coco, "COCO captions and instances JSON (descriptions and labelled boxes).", "docs/formats/coco.md",
     COCO_OPTIONS, check_coco_options),
    ("flickr30k", write_flickr30k,
     "Flickr30k-Entities style sentences with box phrases and PASCAL-VOC-like box annotations.",
     "docs/formats/flickr30k.md", (), None),
):
    register_format(ExportFormat(name=name, description=description, write=_with_report(write), documentation=doc,
                                 kinds=GROUNDED_KINDS, options=options, check_options=check))
