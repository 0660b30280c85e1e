from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from ...image_sets.services import ImageSetError, set_name_for, set_spec
from ...services.coco_import.importer import import_coco
from ...services.coco_import.records import CocoImportError, folder_images


class Command(BaseCommand):
    help = (
        "Import COCO annotation files (docs/formats/coco.md, Importing COCO): a captions file and optionally an "
        "instances file, read streamed. Images are matched by file name (an image with that key is reused); with "
        "--images their files are imported, else (or when a file is missing) they are known by reference (no "
        "file, their COCO address). All or nothing: every record is checked first, each problem is named "
        "(file and record) and nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("captions", type=Path, help="COCO captions file, e.g. captions_train2014.json")
        parser.add_argument("--instances", type=Path, help="COCO instances file (boxes and categories)")
        parser.add_argument("--images", type=Path, help="folder of the image files, by COCO file_name")
        parser.add_argument("--subset", help="subset of every image, e.g. val2014 (default: from the file names)")
        parser.add_argument("--set", dest="image_set",
                            help="the collection the images land in, new or existing (default: the captions file's "
                                 "name)")
        parser.add_argument("--tag", action="append", default=[], help="a tag of the collection (repeatable)")

    def handle(self, *args, captions: Path, instances: Path | None, images: Path | None, subset: str | None,
               image_set: str | None, tag: list[str], **options):
        try:
            spec = set_spec(image_set, tag, source="coco", default_name=set_name_for(captions.name))
        except ImageSetError as exc:
            raise CommandError(str(exc)) from None
        for path in (captions, instances):
            if path is not None and not path.is_file():
                raise CommandError(f"{path}: no such file")
        if images is not None and not images.is_dir():
            raise CommandError(f"{images}: no such folder")
        with tqdm(desc="COCO records (checked, then written)", unit=" records", disable=options["verbosity"] < 1,
                  file=self.stderr._out, mininterval=0.5) as bar:

            def progress(done: int, total: int | None) -> None:
                if total is not None and bar.total != total:
                    bar.total = total
                bar.update(done - bar.n)

            try:
                summary = import_coco(captions, instances, folder_images(images) if images else None, subset,
                                      progress=progress, image_set=spec)
            except CocoImportError as exc:
                bar.close()
                raise CommandError("nothing was imported:\n" + "\n".join(exc.errors)) from None
        self.stdout.write(str(summary))
        self.stdout.write(f"The images are in the collection '{spec.name}'")
        for note in summary.notes:
            self.stdout.write(f"Note: {note}")
