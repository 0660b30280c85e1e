from django.core.management.base import BaseCommand, CommandError

from ...models import Worker
from ...services.review import ReviewError, set_worker_blocked


def find_worker(reference: str) -> Worker:
    """A worker by our id or as provider:external_id (e.g. mturk:A1B2C3)."""
    if ":" in reference:
        provider, external_id = reference.split(":", 1)
        worker = Worker.objects.filter(provider=provider, external_id=external_id).first()
    elif reference.isdigit():
        worker = Worker.objects.filter(pk=int(reference)).first()
    else:
        worker = None
    if worker is None:
        raise CommandError(f"no worker '{reference}' (give our worker id or provider:external_id, "
                           "e.g. mturk:A1B2C3)")
    return worker


class Command(BaseCommand):
    help = ("Block a worker from our HITs (on the marketplace too), or lift a block with --unblock. "
            "WORKER is our worker id or provider:external_id, e.g. mturk:A1B2C3.")

    def add_arguments(self, parser):
        parser.add_argument("worker", help="our worker id or provider:external_id (e.g. mturk:A1B2C3)")
        parser.add_argument("--reason", default="", help="why (required to block; sent to the marketplace)")
        parser.add_argument("--unblock", action="store_true", help="lift the block instead")

    def handle(self, *args, worker: str, reason: str, unblock: bool, **options):
        target = find_worker(worker)
        try:
            set_worker_blocked(target, not unblock, reason)
        except ReviewError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Worker {target.pk} ({target}) is {'unblocked' if unblock else 'blocked'}.")
