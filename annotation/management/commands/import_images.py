from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from mturk.management.commands._common import find_campaign
from mturk.services.campaigns import CampaignError, add_hits

from ...image_sets.services import ImageSetError, file_images, set_name_for, set_spec
from ...services.images import ImportFailed, import_path


class Command(BaseCommand):
    help = ("Import images from a folder, a zip file or one image file into a collection (--set, --tag); optionally "
            "add one HIT per image to a campaign.")

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path)
        parser.add_argument("--campaign", help="name or id of a campaign that gets one HIT per imported image")
        parser.add_argument("--set", dest="image_set",
                            help="the collection (image set) the images land in, new or existing (default: the "
                                 "folder's or zip's name)")
        parser.add_argument("--tag", action="append", default=[], help="a tag of the collection (repeatable)")

    def handle(self, *args, path: Path, campaign: str | None, image_set: str | None, tag: list[str], **options):
        target = find_campaign(campaign) if campaign else None
        try:
            spec = set_spec(image_set, tag, source="images", default_name=set_name_for(path.resolve().name))
        except ImageSetError as exc:
            raise CommandError(str(exc)) from None
        try:
            report = import_path(path)
        except ImportFailed as exc:
            raise CommandError(str(exc)) from None
        for problem in report.problems:
            self.stderr.write(f"refused {problem.name}: {problem.reason}")
        self.stdout.write(
            f"{len(report.imported)} imported, {len(report.duplicates)} already known, {len(report.problems)} refused"
        )
        if report.images:
            file_images(spec, [image.pk for image in report.images])
            self.stdout.write(f"{len(report.images)} image(s) in the collection '{spec.name}'")
        if target is not None:
            try:
                hits = add_hits(target, [{"image": image.pk} for image in report.images])
            except CampaignError as exc:
                raise CommandError(str(exc)) from None
            self.stdout.write(f"{len(hits)} HIT(s) added to campaign '{target.name}'")
        if report.problems and not report.images:
            raise CommandError("no image could be imported")

