from django.core.management.base import BaseCommand, CommandError

from ...models import HIT
from ...services.hits import HITError, add_assignments, add_assignments_everywhere
from ._common import find_campaign


class Command(BaseCommand):
    help = ("Let COUNT more workers do a published or expired HIT (or, with --campaign, every one of a campaign's: "
            "on Prolific the study gets the places they need), within the campaign's budget cap. On MTurk, going "
            "to 10 or more assignments raises the fee and needs --confirm-fee-increase.")

    def add_arguments(self, parser):
        parser.add_argument("hit_id", type=int, nargs="?", help="our HIT id (omit it with --campaign)")
        parser.add_argument("count", type=int, help="how many assignments to add (1 to 1000)")
        parser.add_argument("--campaign", help="add to every published or expired HIT of this campaign")
        parser.add_argument("--confirm-fee-increase", action="store_true",
                            help="accept the higher fee tier when a HIT reaches 10 or more assignments")

    def handle(self, *args, hit_id: int | None, count: int, campaign: str | None, confirm_fee_increase: bool,
               **options):
        try:
            if campaign is not None:
                if hit_id is not None:
                    raise CommandError("give either a HIT id or --campaign, not both")
                target = find_campaign(campaign)
                hits = add_assignments_everywhere(target, count, confirm_fee_increase=confirm_fee_increase)
                self.stdout.write(f"{hits} HIT(s) of '{target.name}' take {count} more assignment(s) each.")
                return
            if hit_id is None:
                raise CommandError("give a HIT id, or --campaign")
            hit = HIT.objects.filter(pk=hit_id).first()
            if hit is None:
                raise CommandError(f"no HIT numbered {hit_id}")
            updated = add_assignments(hit, count, confirm_fee_increase=confirm_fee_increase)
        except HITError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"HIT {updated.pk} now takes {updated.max_assignments} assignment(s).")
