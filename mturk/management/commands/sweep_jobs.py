from django.core.management.base import BaseCommand

from ...jobs import sweep


class Command(BaseCommand):
    help = ("Send the background jobs the broker never took (it was down), take up the running jobs whose worker "
            "stopped (lease run out) and fail those that stopped JOB_MAX_ATTEMPTS times. Celery beat runs the "
            "same every JOB_SWEEP_SECONDS, and each worker when it starts.")

    def handle(self, *args, **options) -> None:
        report = sweep()
        for label, names in (("sent to the broker", report.sent), ("still waiting for the broker", report.unsent),
                             ("taken up again (worker stopped)", report.requeued),
                             ("failed (worker stopped too many times)", report.failed)):
            self.stdout.write(f"{label}: {len(names)}" + (f" ({', '.join(names)})" if names else ""))
        if report.unsent:
            self.stderr.write("the broker could not be reached: run again once it is back")
