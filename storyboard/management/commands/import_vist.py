from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ...services.vist_import.importer import import_vist
from ...services.vist_import.records import SPLITS, VistImportError


class Command(BaseCommand):
    help = ("Import the released VIST files (docs/formats/vist-import.md): <split>.story-in-sequence.json, "
            "<split>.description-in-isolation.json and <split>.description-in-sequence.json, given as files or "
            "folders holding them; all or nothing, re-importing adds nothing.")

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", type=Path, help="files, or folders searched for the released names")
        parser.add_argument("--split", action="append", choices=SPLITS, default=[],
                            help="only this split's files of the folders (repeatable); the split of a file whose "
                                 "name gives none")

    def handle(self, *args, paths: list[Path], split: list[str], **options):
        try:
            summary = import_vist(list(paths), tuple(split))
        except VistImportError as exc:
            raise CommandError("nothing was imported:\n" + "\n".join(exc.errors)) from None
        self.stdout.write(str(summary))
        for note in summary.notes:
            self.stdout.write(note)
