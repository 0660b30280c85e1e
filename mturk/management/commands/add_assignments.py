from django.core.management.base import BaseCommand, CommandError

from ...models import HIT
from ...services.hits import HITError, add_assignments


class Command(BaseCommand):
    help = ("Let COUNT more workers do a published or expired HIT, within the campaign's budget cap. Going to "
            "10 or more assignments raises the marketplace fee and needs --confirm-fee-increase.")

    def add_arguments(self, parser):
        parser.add_argument("hit_id", type=int, help="our HIT id")
        parser.add_argument("count", type=int, help="how many assignments to add (1 to 1000)")
        parser.add_argument("--confirm-fee-increase", action="store_true",
                            help="accept the higher fee tier when the HIT reaches 10 or more assignments")

    def handle(self, *args, hit_id: int, count: int, confirm_fee_increase: bool, **options):
        hit = HIT.objects.filter(pk=hit_id).first()
        if hit is None:
            raise CommandError(f"no HIT numbered {hit_id}")
        try:
            updated = add_assignments(hit, count, confirm_fee_increase=confirm_fee_increase)
        except HITError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"HIT {updated.pk} now takes {updated.max_assignments} assignment(s).")
