from django.core.management.base import BaseCommand, CommandError

from mturk.management.commands._common import find_campaign

from ...ranking.services.pools import PoolError, create_test_pool


class Command(BaseCommand):
    help = ("Freeze a test pool of images and their captions (approved describe_image results of the campaigns, "
            "or every description) for ranking evaluation.")

    def add_arguments(self, parser):
        parser.add_argument("name")
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--campaign", action="append", default=[], help="name or id (repeatable)")
        source.add_argument("--all-descriptions", action="store_true", help="every description, imported too")
        parser.add_argument("--images", type=int, help="the first N images (by id) with captions")
        parser.add_argument("--captions-per-image", type=int, help="at most K captions per image (by id)")

    def handle(self, *args, name: str, campaign: list[str], all_descriptions: bool, images: int | None,
               captions_per_image: int | None, **options):
        try:
            pool = create_test_pool(name, campaigns=[find_campaign(c) for c in campaign],
                                    all_descriptions=all_descriptions, images=images,
                                    captions_per_image=captions_per_image)
        except PoolError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"pool {pool.pk} '{pool.name}': {pool.pool_images.count()} images, "
                          f"{pool.pool_captions.count()} captions")
