from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.image_sets.services import ImageSetError, set_name_for, set_spec

from ...services.albums.fields import AlbumImportError
from ...services.albums.writing import SOURCE, import_albums


class Command(BaseCommand):
    help = (
        "Import photo albums (docs/formats/albums.md): a folder whose sub-folders are albums, or a JSON manifest. "
        "All or nothing: every problem is reported (album, photo, manifest entry) and nothing is written. "
        "Re-importing keeps the photos already there and adds the new ones."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="a folder of album folders, or a .json manifest")
        parser.add_argument("--set", dest="image_set",
                            help="the collection the photos land in, new or existing (default: the folder's or "
                                 "manifest's name)")
        parser.add_argument("--tag", action="append", default=[], help="a tag of the collection (repeatable)")

    def handle(self, *args, path: Path, image_set: str | None, tag: list[str], **options):
        try:
            spec = set_spec(image_set, tag, source=SOURCE, default_name=set_name_for(path.name))
        except ImageSetError as exc:
            raise CommandError(f"--set/--tag: {exc}") from None
        try:
            report = import_albums(path, spec)
        except AlbumImportError as exc:
            count = len(exc.errors)
            raise CommandError(
                f"{count} problem(s), nothing was imported:\n" + "\n".join(exc.errors)
            ) from None
        self.stdout.write(str(report))
