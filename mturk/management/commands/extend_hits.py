from django.core.management.base import BaseCommand, CommandError

from ...services.hits import HITError, extend_hit
from ...states import HITStatus, InvalidTransition
from ._common import find_campaign


class Command(BaseCommand):
    help = ("Keep a campaign's HITs on offer longer: each gets SECONDS more than now or its current expiry "
            "(an expired HIT re-opens). Default: every published or expired HIT; choose some with --hit.")

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign name or id")
        parser.add_argument("--seconds", type=int, required=True, help="how much longer (60 s to 365 days)")
        parser.add_argument("--hit", type=int, action="append", dest="hits", metavar="HIT_ID",
                            help="our id of a HIT of the campaign to extend (repeatable)")

    def handle(self, *args, campaign: str, seconds: int, hits: list[int] | None, **options):
        target = find_campaign(campaign)
        if hits:
            chosen = list(target.hits.filter(pk__in=hits).order_by("pk"))
            strangers = sorted(set(hits) - {hit.pk for hit in chosen})
            if strangers:
                raise CommandError(f"not HITs of '{target.name}': {', '.join(map(str, strangers))}")
        else:
            chosen = list(target.hits.filter(status__in=[HITStatus.PUBLISHED, HITStatus.EXPIRED]).order_by("pk"))
            if not chosen:
                raise CommandError(f"'{target.name}' has no published or expired HITs to extend")
        for hit in chosen:
            try:
                extended = extend_hit(hit, seconds)
            except (HITError, InvalidTransition) as exc:
                raise CommandError(f"extending HIT {hit.pk} stopped: {exc}") from None
            expiry = extended.expires_at.isoformat() if extended.expires_at else "its marketplace expiry"
            self.stdout.write(f"HIT {extended.pk} now expires at {expiry}")
