import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ...measures import get_quality, quality_kind_names
from ...models.quality import GoldPurpose
from ...services.gold import GoldError, import_gold_lines


class Command(BaseCommand):
    help = ('Import gold (or onboarding) items of a task kind from a JSON Lines file, one {"items": {...}, '
            '"answer": ..., "note": "..."} per line. All or nothing: an error names the file and line, and '
            "nothing is stored.")

    def add_arguments(self, parser):
        formats = "; ".join(f"{name}: {get_quality(name).gold_format}" for name in quality_kind_names())
        parser.add_argument("kind", help=f"task kind (known answers as: {formats or 'no kind has gold scoring'})")
        parser.add_argument("file", help="JSON Lines file")
        parser.add_argument("--purpose", default=GoldPurpose.GOLD, choices=GoldPurpose.values,
                            help="gold: mixed into campaigns at their gold rate; onboarding: the qualifying set "
                                 "each worker does first (default: gold)")
        parser.add_argument("--options", default="",
                            help='the task-kind options of the campaigns the items are for, as JSON (e.g. '
                                 '\'{"min_boxes": 0, "vocabulary": "Pets"}\'); every known answer must be '
                                 "matchable under them (default: the kind's default options)")

    def handle(self, *args, **o):
        path = Path(o["file"])
        try:
            text = path.read_text(encoding="utf-8-sig")
        except OSError as exc:
            raise CommandError(f"{path}: cannot be read ({exc.strerror or exc})") from None
        except UnicodeDecodeError as exc:
            raise CommandError(f"{path}: not UTF-8 text ({exc})") from None
        try:
            options = json.loads(o["options"]) if o["options"] else None
        except ValueError as exc:
            raise CommandError(f"--options: not JSON ({exc})") from None
        try:
            items = import_gold_lines(o["kind"], text.splitlines(), o["purpose"], options=options)
        except GoldError as exc:
            raise CommandError("\n".join(f"{path}: {error}" for error in exc.errors)
                               + "\nnothing was imported") from None
        self.stdout.write(f"Imported {len(items)} {o['purpose']} item(s) of {o['kind']} from {path}")
