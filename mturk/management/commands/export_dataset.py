import argparse
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ...datasets.formats import ExportError, format_names, run_export
from ._common import find_campaign


def sample_size(value: str) -> int:
    """A whole number of stories, 0 or more."""
    try:
        number = int(value)
    except ValueError:
        number = -1
    if number < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number of stories, 0 or more (0 = all), not {value!r}")
    return number


def named_value(value: str) -> tuple[str, str]:
    name, equals, text = value.partition("=")
    if not equals or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, not {value!r}")
    return name.strip(), text


class Command(BaseCommand):
    help = "Export a dataset in one of the registered formats: a zip with the data, README.md and report/."

    def add_arguments(self, parser):
        parser.add_argument("--format", required=True, help=f"({', '.join(format_names())})")
        parser.add_argument("--out", required=True, type=Path)
        parser.add_argument("--campaign", action="append", default=[], help="name or id (repeatable); default all")
        parser.add_argument(
            "--images", action="store_true", help="include the image files (formats with an images option)"
        )
        parser.add_argument("--split-seed", help="seed of the split (sind, flickr8k, compositional)")
        parser.add_argument("--pairs", help="held-out concept pairs, comma-separated (compositional), e.g. "
                                            "black_cat,eat_man")
        parser.add_argument("--group", help="a stored held-out group of concept pairs (compositional), e.g. 1")
        parser.add_argument("--report-sample", type=sample_size, metavar="N",
                            help="stories in the report's agreement sample (sind; default 1000, 0 = all)")
        parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", type=named_value,
                            help="any other option of the format, as text (repeatable), e.g. test_pool=NAME")

    def handle(self, *args, format: str, out: Path, campaign: list[str], images: bool, split_seed: str | None,
               pairs: str | None, group: str | None, report_sample: int | None, option: list[tuple[str, str]],
               **options):
        campaigns = [find_campaign(c) for c in campaign]
        format_options: dict[str, object] = dict(option)
        if images:
            format_options["images"] = True
        if split_seed is not None:
            format_options["split_seed"] = split_seed
        if report_sample is not None:
            format_options["report_sample"] = report_sample
        if pairs is not None:
            format_options["pairs"] = pairs
        if group is not None:
            format_options["group"] = group
        try:
            result = run_export(format, out, campaigns, format_options)
        except ExportError as exc:
            raise CommandError(str(exc)) from None
        counts = ", ".join(f"{n} {name}" for name, n in result.counts.items())
        self.stdout.write(f"Wrote {result.records} record(s) to {out}" + (f" ({counts})" if counts else ""))
