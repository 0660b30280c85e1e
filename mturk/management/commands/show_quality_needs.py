from django.core.management.base import BaseCommand, CommandError

from ...quality.services.pilot import PilotError, give_overlap
from ...selectors.quality import campaign_quality
from ...selectors.quality_needs import GOLD_FROM_APPROVED, quality_needs
from ...services import gold
from ._common import find_campaign


class Command(BaseCommand):
    help = ("Say what a campaign's missing quality figures need (agreement: items answered by two workers; gold "
            "accuracy: gold HITs), and with --overlap or --gold-from-approved produce it, as the quality page's "
            "buttons do.")

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign name or id")
        parser.add_argument("--overlap", nargs=2, type=int, metavar=("ITEMS", "WORKERS"),
                            help="give the first ITEMS real HITs WORKERS workers each, as the pilot (handed out "
                                 "first), within the budget cap")
        parser.add_argument("--confirm-fee-increase", action="store_true",
                            help="with --overlap: accept MTurk's higher fee when a HIT reaches 10 assignments")
        parser.add_argument("--gold-from-approved", type=int, nargs="?", const=GOLD_FROM_APPROVED, metavar="N",
                            help=f"make gold items from up to N approved answers (default {GOLD_FROM_APPROVED})")

    def handle(self, *args, campaign: str, overlap, confirm_fee_increase: bool, gold_from_approved: int | None,
               **options):
        target = find_campaign(campaign)
        try:
            if overlap is not None:
                done = give_overlap(target, overlap[0], overlap[1], confirm_fee_increase=confirm_fee_increase)
                self.stdout.write(f"The first {done.hits} item(s) of '{target.name}' go to {overlap[1]} workers "
                                  f"each ({done.added} assignment(s) added), handed out first.")
            if gold_from_approved is not None:
                made = gold.gold_from_approved(target, gold_from_approved)
                self.stdout.write(f"{len(made)} gold item(s) made from approved answers: "
                                  f"{', '.join(str(item.pk) for item in made)}")
        except (PilotError, gold.GoldError) as exc:
            raise CommandError(str(exc)) from None
        needs = quality_needs(target, campaign_quality(target, with_workers=False))
        for need in (needs.agreement, needs.gold):
            self.stdout.write(f"{need.figure}: {need.state}. {need.text}")

