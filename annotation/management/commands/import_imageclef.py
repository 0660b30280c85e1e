from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ...services.imageclef_import.importer import import_imageclef
from ...services.imageclef_import.source import ImageCLEFImportError


class Command(BaseCommand):
    help = (
        "Import a dataset in the ImageCLEF-style layout (docs/formats/imageclef.md): a directory or a zip with "
        "concepts.tsv, images.tsv, the images, boxes.tsv and descriptions.tsv. All or nothing: any problem is "
        "reported (file and line) and nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="the dataset directory (or a zip of it)")
        parser.add_argument("--vocabulary", help="vocabulary name for concepts.tsv (default: the directory name)")

    def handle(self, *args, path: Path, vocabulary: str | None, **options):
        try:
            summary = import_imageclef(path, vocabulary)
        except ImageCLEFImportError as exc:
            raise CommandError("\n".join(exc.errors)) from None
        self.stdout.write(str(summary))
