from django.core.management.base import BaseCommand

from ...quality.services.computation import compute_quality
from ._common import find_campaign


class Command(BaseCommand):
    help = ("Measure a campaign's work: gold accuracy and agreement per worker, agreement and aggregated answer "
            "per item (replaces the earlier figures).")

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign name or id")

    def handle(self, *args, campaign: str, **options):
        target = find_campaign(campaign)
        result = compute_quality(target)
        self.stdout.write(f"Quality of '{target.name}' ({result.measure}): {result.answers} answers, "
                          f"{result.items} items compared, {result.workers} workers, {result.aggregated} items "
                          "aggregated")
