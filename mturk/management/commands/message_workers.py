from django.core.management.base import BaseCommand, CommandError

from ...models import Worker
from ...services.review import ReviewError, message_workers
from ._common import find_campaign


class Command(BaseCommand):
    help = ("Message a campaign's workers on the marketplace: all of them, or those given with --worker "
            "(marketplace worker ids). Prints how many were reached and the ids that were not.")

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign name or id")
        parser.add_argument("--subject", required=True, help="message subject")
        parser.add_argument("--text", required=True, help="message text")
        parser.add_argument("--worker", action="append", dest="workers", metavar="ID",
                            help="a marketplace worker id to message (repeatable; default: every worker)")

    def handle(self, *args, campaign: str, subject: str, text: str, workers: list[str] | None, **options):
        target = find_campaign(campaign)
        try:
            missed = message_workers(target, subject, text, worker_ids=workers)
        except ReviewError as exc:
            raise CommandError(str(exc)) from None
        if workers is None:
            workers = list(Worker.objects.filter(assignments__hit__campaign=target)
                           .values_list("external_id", flat=True).distinct())
        total = len(set(workers))
        self.stdout.write(f"Reached {total - len(set(missed))} of {total} worker(s) of '{target.name}'.")
        if missed:
            self.stdout.write(f"Not reached: {', '.join(missed)}")
