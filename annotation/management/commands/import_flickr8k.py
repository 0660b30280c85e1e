from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ...image_sets.services import ImageSetError, set_spec
from ...ranking.services.flickr8k_import import Flickr8kImportError, import_flickr8k, open_release
from ...ranking.services.flickr8k_import.importer import DEFAULT_SET


class Command(BaseCommand):
    help = ("Import the Flickr8k text release as released (a folder or a zip: Flickr8k.token.txt, "
            "Flickr_8k.{train,dev,test}Images.txt, ExpertAnnotations.txt, CrowdFlowerAnnotations.txt); images by "
            "reference unless --images or a Flicker8k_Dataset/ folder gives their files; all or nothing.")

    def add_arguments(self, parser):
        parser.add_argument("release", type=Path, help="The release's folder or zip.")
        parser.add_argument("--images", type=Path, help="A folder of the image files (Flicker8k_Dataset).")
        parser.add_argument("--set", default=DEFAULT_SET, help=f"The collection (image set); default {DEFAULT_SET}.")
        parser.add_argument("--test-pool", default="", help="Also make a test pool of the released test split.")

    def handle(self, *args, release: Path, images: Path | None, set: str, test_pool: str, **options):
        try:
            name = set_spec(set).name
            summary = import_flickr8k(open_release(release, images), image_set=name, test_pool=test_pool.strip())
        except (Flickr8kImportError, ImageSetError) as exc:
            errors = getattr(exc, "errors", [str(exc)])
            raise CommandError("nothing was imported:\n" + "\n".join(errors)) from None
        for key, value in summary.counts.items():
            self.stdout.write(f"{key}: {value}")
        for note in summary.notes:
            self.stdout.write(note)
        self.stdout.write(f"collection: {summary.image_set}" + (f"; test pool: {summary.test_pool}"
                                                                if summary.test_pool else ""))
