from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ...image_sets.services import ImageSetError, set_name_for, set_spec
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
        parser.add_argument("--set", dest="image_set",
                            help="the collection the images land in, new or existing (default: the directory's or "
                                 "zip's name)")
        parser.add_argument("--tag", action="append", default=[], help="a tag of the collection (repeatable)")

    def handle(self, *args, path: Path, vocabulary: str | None, image_set: str | None, tag: list[str], **options):
        try:
            spec = set_spec(image_set, tag, source="imageclef", default_name=set_name_for(path.resolve().name))
            summary = import_imageclef(path, vocabulary, image_set=spec)
        except ImageSetError as exc:
            raise CommandError(str(exc)) from None
        except ImageCLEFImportError as exc:
            raise CommandError("\n".join(exc.errors)) from None
        self.stdout.write(str(summary))
        self.stdout.write(f"The images are in the collection '{spec.name}'")
