"""Registers the SIND / VIST export format; it carries the stories report."""
from __future__ import annotations

from mturk.datasets.formats import ExportBundle, ExportFormat, ExportOption, register_format
from mturk.models import Campaign

from .exports.scope import STORY_KINDS
from .exports.sind import write_sind
from .reports import meteor_for_report, report_sample_limit, start_scoring, write_story_report


def export_sind(bundle: ExportBundle, campaigns: list[Campaign]) -> int:
    # Once the stories are written, the agreement sample's stored METEOR scores are read; a JVM starts only
    # when some are missing, and scores them while the descriptions are written; they are then stored.
    bundle.add_steps(1)  # the stories report; write_sind counts its own steps
    with meteor_for_report() as meteor:
        records, writer = write_sind(bundle, campaigns, start_scoring(bundle, meteor))
        write_story_report(bundle, writer, meteor)
        meteor.store()
    bundle.advance()
    return records


register_format(ExportFormat(
    name="sind",
    description=(
        "Visual stories, SIND / VIST format: stories in sequence (SIS), descriptions of images in isolation "
        "(DII) and in sequence (DIS) for train/val/test, the human stories in the challenge format, ratings."
    ),
    write=export_sind,
    documentation="docs/formats/sind.md",
    kinds=STORY_KINDS,
    options=(
        ExportOption("images", "flag", "Include the photo files (images/<split>/<photo id>.jpg); the zip gets large."),
        ExportOption("split_seed", "text",
                     "Seed of the 80/10/10 train/val/test split of the albums (default: sind); the same seed "
                     "gives the same split in every export."),
        ExportOption("report_sample", "number",
                     "Stories in the report's agreement sample (default 1000; 0 = all stories, slower)."),
    ),
    check_options=report_sample_limit,
))
