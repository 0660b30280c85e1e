from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from ...image_sets.services import ImageSetError, set_spec
from ...services.flickr30k_import.importer import import_flickr30k, release_set
from ...services.flickr30k_import.source import DEFAULT_SET, Flickr30kImportError


class Command(BaseCommand):
    help = (
        "Import Flickr30k Entities as released (docs/formats/flickr30k.md, Importing Flickr30k Entities): a folder "
        "or a zip with Sentences/<id>.txt, Annotations/<id>.xml and optionally train.txt, val.txt, test.txt and "
        "flickr30k-images/. Images without their file are known by reference (size from the XML). All or nothing: "
        "every file is checked first, each problem names its file and line, and nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="the release folder, or a zip of it (annotations.zip)")
        parser.add_argument("--images", type=Path, help="folder of the image files, <id>.jpg")
        parser.add_argument("--set", dest="image_set", help=f"the collection, new or existing (default: {DEFAULT_SET})")
        parser.add_argument("--tag", action="append", default=[], help="a tag of the collection (repeatable)")
        parser.add_argument("--vocabulary", help="the vocabulary of the phrase types (default: flickr30k)")

    def handle(self, *args, path: Path, images: Path | None, image_set: str | None, tag: list[str],
               vocabulary: str | None, **options):
        try:
            checked = set_spec(image_set, tag, default_name=DEFAULT_SET)
        except ImageSetError as exc:
            raise CommandError(str(exc)) from None
        spec = release_set(checked.name, checked.tags)
        with tqdm(desc="Flickr30k images (checked, then written)", unit=" images", disable=options["verbosity"] < 1,
                  file=self.stderr._out, mininterval=0.5) as bar:

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            try:
                summary = import_flickr30k(path, images, vocabulary, image_set=spec, progress=progress)
            except Flickr30kImportError as exc:
                bar.close()
                raise CommandError("nothing was imported:\n" + "\n".join(exc.errors)) from None
        self.stdout.write(str(summary))
        self.stdout.write(f"The images are in the collection '{spec.name}'")
        for note in summary.notes:
            self.stdout.write(f"Note: {note}")
