from django.core.management.base import BaseCommand, CommandError

from ...providers.registry import UnknownProvider, provider_names
from ...services.campaigns import CampaignError, publish_campaign
from ...states import InvalidTransition
from ._common import find_campaign


class Command(BaseCommand):
    help = "Publish a campaign's draft HITs (within its budget cap) and print the worker link."

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign name or id")
        parser.add_argument("--provider", help=f"({', '.join(provider_names())}); default: the campaign's")

    def handle(self, *args, campaign: str, provider: str | None, **options):
        target = find_campaign(campaign)
        try:
            result = publish_campaign(target, provider)
        except (CampaignError, UnknownProvider, InvalidTransition) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Published {result.published} HIT(s) of '{target.name}': up to "
                          f"{result.cost.assignments} assignments, ${result.cost.total} with fees")
        if result.stopped_by_budget:
            self.stdout.write(f"Stopped at the budget cap: {result.left_in_draft} HIT(s) left in draft")
        if result.worker_link:
            self.stdout.write(f"Worker link: {result.worker_link}")
