import json

from django.core.management.base import BaseCommand, CommandError

from ...models import Campaign
from ...providers.registry import UnknownProvider, get_provider, provider_names
from ...selectors.publication import PublicationPreview, preview_publication, publication_summary
from ...services.campaigns import CampaignError, publish_campaign
from ...states import InvalidTransition
from ._common import find_campaign


class Command(BaseCommand):
    help = ("Publish a campaign's draft HITs (within its budget cap) and print the worker link. "
            "On a marketplace a background job creates the HITs (mturk) or the study (prolific); without a task "
            "queue it runs before the command ends, and its failure ends the command with an error.")

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign name or id")
        parser.add_argument("--provider", help=f"({', '.join(provider_names())}); default: the campaign's")
        parser.add_argument("--sandbox", action="store_true",
                            help="publish to the marketplace's sandbox (default: the MTURK_SANDBOX setting)")
        parser.add_argument("--dry-run", action="store_true",
                            help="print the HITs, the cost with fees and the worker requirements; change nothing")

    def handle(self, *args, campaign: str, provider: str | None, sandbox: bool, dry_run: bool, **options):
        target = find_campaign(campaign)
        wanted_sandbox = True if sandbox else None
        if dry_run:
            try:
                preview = preview_publication(target, provider, sandbox=wanted_sandbox)
            except UnknownProvider as exc:
                raise CommandError(str(exc)) from None
            self._print_preview(target, preview)
            if preview.error:
                raise CommandError(f"publishing '{target.name}' would be refused: {preview.error}")
            return
        try:
            result = publish_campaign(target, provider, sandbox=wanted_sandbox)
        except (CampaignError, UnknownProvider, InvalidTransition) as exc:
            raise CommandError(str(exc)) from None
        target = Campaign.objects.get(pk=target.pk)
        for line in publication_summary(target, result):
            self.stdout.write(line)
        if result.worker_link:
            self.stdout.write(f"Worker link: {result.worker_link}")

    def _print_preview(self, campaign, preview: PublicationPreview) -> None:
        write = self.stdout.write
        where = f" ({preview.environment})" if preview.has_marketplace else ""
        provider = get_provider(preview.provider)
        asks = provider.fee_source
        write(f"Dry run for '{campaign.name}' on {preview.provider}{where}: nothing is written and {asks}.")
        write(f"{len(preview.drafts)} draft HIT(s); {len(preview.to_publish)} would be published:")
        for hit in preview.to_publish:
            write(f"  HIT {hit.pk} position {hit.position}: items {json.dumps(hit.items, sort_keys=True)}, "
                  f"max assignments {hit.max_assignments}")
        cost = preview.within_budget
        write(f"Cost: {cost.assignments} assignment(s): rewards ${cost.rewards} + fees ${cost.fees} = "
              f"${cost.total}")
        write(f"Fee per assignment: ${preview.fee_per_assignment} ({preview.fee_rule})")
        if preview.budget_cap is None:
            write("Budget cap: none")
        else:
            verdict = (f"stops publication ({preview.left_in_draft} HIT(s) would stay in draft; all drafts "
                       f"would cost ${preview.all_drafts.total})" if preview.stopped_by_budget
                       else "does not stop publication")
            write(f"Budget cap: ${preview.budget_cap}, already committed ${preview.committed}: {verdict}")
        if preview.has_marketplace:
            label = provider.requirements_label
            if preview.requirements is None:
                write(f"{label}: not built (see the error below)")
            else:
                write(f"{label}:")
                write(json.dumps(preview.requirements, indent=2, sort_keys=True))
            for rule in preview.participation:
                write(f"{provider.participation_label}: {rule}")
        if not preview.error:
            write("Checks: OK")
