from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ...services.albums.fields import AlbumImportError
from ...services.albums.writing import import_albums


class Command(BaseCommand):
    help = (
        "Import photo albums (docs/formats/albums.md): a folder whose sub-folders are albums, or a JSON manifest. "
        "All or nothing: every problem is reported (album, photo, manifest entry) and nothing is written. "
        "Re-importing keeps the photos already there and adds the new ones."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="a folder of album folders, or a .json manifest")

    def handle(self, *args, path: Path, **options):
        try:
            report = import_albums(path)
        except AlbumImportError as exc:
            count = len(exc.errors)
            raise CommandError(
                f"{count} problem(s), nothing was imported:\n" + "\n".join(exc.errors)
            ) from None
        self.stdout.write(str(report))
