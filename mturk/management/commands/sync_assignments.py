from django.core.management.base import BaseCommand, CommandError

from ...providers.base import ProviderError
from ...services.review import ReviewError
from ...states import InvalidTransition
from ...work.services.marketplace_sync import SyncReport, sync_all, sync_campaign
from ._common import find_campaign


def report_lines(report: SyncReport) -> list[str]:
    flagged = ", ".join(map(str, report.flagged)) or "none"
    return [
        f"HITs checked: {report.hits_checked}",
        f"HITs with nothing new (skipped): {report.hits_unchanged}",
        f"New submissions: {report.new_submissions}",
        f"Approved on the marketplace (e.g. auto-approval): {report.approved_elsewhere}",
        f"Rejected on the marketplace: {report.rejected_elsewhere}",
        f"Returned by their worker: {report.returned}",
        f"HITs expired: {report.expired_hits}",
        f"Approved by the campaign's rules: {report.auto_approved_by_rules}",
        f"Flagged by the checks (left for review): {flagged}",
    ]


class Command(BaseCommand):
    help = ("Pull submissions and decisions from the marketplace for one campaign, or every open campaign, "
            "then apply the campaigns' review rules.")

    def add_arguments(self, parser):
        parser.add_argument("campaign", nargs="?", help="campaign name or id (default: every open campaign)")

    def handle(self, *args, campaign: str | None, **options):
        target = find_campaign(campaign) if campaign else None
        scope = f"'{target.name}'" if target is not None else "every open campaign"
        try:
            report = sync_campaign(target) if target is not None else sync_all()
        except (ProviderError, ReviewError, InvalidTransition) as exc:
            raise CommandError(f"sync of {scope} stopped: {exc} (run it again to resume; it is safe to "
                               "repeat)") from None
        self.stdout.write(f"Synced {scope}:")
        for line in report_lines(report):
            self.stdout.write(f"  {line}")
        if target is None:
            self.stdout.write("  (a campaign whose sync failed is logged and retried by the next run)")
