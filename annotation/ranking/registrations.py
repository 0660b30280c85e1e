"""Registers ranking evaluation with the crowd core at app start (annotation.apps): the judge_caption task kind and
its quality measure, the flickr8k export format, the wizard's sample judge_caption item, the background task
that stores leaderboards, and the test pools as test sets of human evaluation."""
from __future__ import annotations

from evaluation.registry import register_test_set_source
from mturk.datasets.formats import ExportFormat, ExportOption, register_format
from mturk.importers import Importer, ImportOption, register_importer
from mturk.item_sources import Sample, register_sample

from ..models import Description
from . import judge_caption, quality, tasks  # noqa: F401  (registers the kind, its quality measure, the task)
from .flickr8k_export import check_flickr8k_options, export_flickr8k
from .flickr8k_importer import run_flickr8k
from .human_eval_source import TEST_POOL

register_test_set_source(TEST_POOL)

register_format(ExportFormat(
    name="flickr8k",
    description="Flickr8k layout: captions (<image>#<n>), train/dev/test image lists and the caption relevance "
                "judgements (expert scores and crowd votes).",
    write=export_flickr8k, documentation="docs/formats/flickr8k.md", kinds=("describe_image",),
    options=(
        ExportOption("images", "flag", "Include the image files (Flicker8k_Dataset/<image>); the zip gets large."),
        ExportOption("split_seed", "text", "Seed of the 6000/1000/1000 train/dev/test split of the images (default: "
                                           "flickr8k); the same seed gives the same split in every export."),
        ExportOption("test_pool", "text", "Name of a test pool whose images are the test split (the rest is split "
                                          "6:1 into train and dev)."),
        ExportOption("aggregation", "text", "How each crowd-judged pair's label in CrowdLabels.txt is made: majority "
                                            "(default) or dawid_skene."),
    ),
    check_options=check_flickr8k_options,
))


@register_sample("judge_caption", "judge_caption needs a description of an image: describe images first (or import "
                                  "captions)")
def _described_image() -> Sample | None:
    row = Description.objects.order_by("pk").values_list("pk", "image_id").first()
    return None if row is None else Sample({"pairs": [{"image": row[1], "description": row[0]}]})


register_importer(Importer(
    name="flickr8k",
    label="the Flickr8k release",
    description="A zip of the Flickr8k text release as released: Flickr8k.token.txt, Flickr_8k.{train,dev,test}"
                "Images.txt, ExpertAnnotations.txt, CrowdFlowerAnnotations.txt (any folder inside), and optionally "
                "the images under Flicker8k_Dataset/; without them the images are known by reference. All or "
                "nothing; the same release again adds nothing.",
    extensions=(".zip",),
    run=run_flickr8k,
    options=(ImportOption("set", "Collection", "Where the images go (default Flickr8k)."),
             ImportOption("test_pool", "Test pool", "Also make a test pool of the released test split, named so.",
                          max_length=200)),
    progress_unit="steps",
    position=60,
    documentation="docs/formats/flickr8k.md",
))
