from django.core.management.base import BaseCommand, CommandError
from django.db.models import Count, Q

from ...models import Assignment
from ...providers.registry import get_provider
from ...services.review import approve_submitted
from ...states import AssignmentStatus
from ._common import find_campaign


class Command(BaseCommand):
    help = ("Review a campaign's submitted work: without options, print what is waiting; with "
            "--approve-passing, approve every submission whose automatic checks pass.")

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign name or id")
        parser.add_argument("--approve-passing", action="store_true",
                            help="approve submitted work without check flags (flagged work is left for a person)")

    def handle(self, *args, campaign: str, approve_passing: bool, **options):
        target = find_campaign(campaign)
        if not approve_passing:
            self._waiting(target)
            return
        result = approve_submitted(target, passing_checks_only=True)
        self.stdout.write(f"Approved: {result.approved}")
        flagged = ", ".join(map(str, result.flagged)) or "none"
        self.stdout.write(f"Flagged by the checks (left for review): {len(result.flagged)}"
                          + (f" ({flagged})" if result.flagged else ""))
        self.stdout.write(f"Failed: {len(result.failed)}")
        for assignment_id, reason in result.failed.items():
            self.stdout.write(f"  assignment {assignment_id}: {reason}")
        if result.failed:
            raise CommandError(f"{len(result.failed)} approval(s) failed; run review_submissions again to retry them")

    def _waiting(self, campaign) -> None:
        counts = Assignment.objects.filter(hit__campaign=campaign, status=AssignmentStatus.SUBMITTED).aggregate(
            submitted=Count("pk", filter=Q(confirmed=True)),
            flagged=Count("pk", filter=Q(confirmed=True) & ~Q(check_flags=[])),
            unreported=Count("pk", filter=Q(confirmed=False)),
        )
        self.stdout.write(f"Waiting for review in '{campaign.name}': {counts['submitted']} submitted, "
                          f"{counts['submitted'] - counts['flagged']} passing the checks, "
                          f"{counts['flagged']} flagged")
        if get_provider(campaign.provider).has_marketplace and counts["unreported"]:
            self.stdout.write(f"{counts['unreported']} not reported by the marketplace yet (run sync_assignments "
                              "first; only reported work can be approved)")
        self.stdout.write("Approve the passing ones with --approve-passing.")
