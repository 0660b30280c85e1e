from django.core.management.base import BaseCommand, CommandError

from ...services.hits import HITError, delete_decided_hits, expire_campaign
from ...states import InvalidTransition
from ._common import find_campaign


class Command(BaseCommand):
    help = ("Take every published HIT of a campaign off offer now. Workers who already accepted one may "
            "still submit until their assignment deadline.")

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign name or id")
        parser.add_argument("--delete-decided", action="store_true",
                            help="also delete the expired HITs whose work is all decided")

    def handle(self, *args, campaign: str, delete_decided: bool, **options):
        target = find_campaign(campaign)
        try:
            expired = expire_campaign(target)
        except (HITError, InvalidTransition) as exc:
            raise CommandError(f"expiring '{target.name}' stopped: {exc} (run expire_hits again to continue; "
                               "HITs already expired are skipped)") from None
        self.stdout.write(f"Expired {expired} HIT(s) of '{target.name}'. Workers who already accepted one may "
                          f"still submit until their deadline (up to {target.time_limit_seconds} s after "
                          "accepting).")
        if not delete_decided:
            return
        deleted, skipped = delete_decided_hits(target)
        self.stdout.write(f"Deleted {deleted} HIT(s) whose work is all decided.")
        if skipped:
            self.stdout.write(f"Kept {len(skipped)} HIT(s):")
            for hit_id, reason in skipped.items():
                self.stdout.write(f"  HIT {hit_id}: {reason}")
