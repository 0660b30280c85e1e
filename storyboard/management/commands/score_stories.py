from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from metrics.meteor import MeteorError
from mturk.jobs import task_named

from ...models import Story
from ...services.agreement_scores import SCORE_ALL_STORIES, score_stories


class Command(BaseCommand):
    help = ("Compute the missing or stale agreement scores of the stories (METEOR against the other stories of "
            "the same photo sequence, as the stories report uses them) in one METEOR JVM, and store them.")

    def add_arguments(self, parser):
        parser.add_argument("--background", action="store_true",
                            help="queue the work as a background job instead (needs a Celery worker)")

    def handle(self, *args, background: bool, **options):
        if background:
            task_named(SCORE_ALL_STORIES).delay()
            self.stdout.write("Queued: the Celery worker computes the missing or stale scores.")
            return
        with tqdm(total=Story.objects.count(), unit="stories", file=self.stderr, disable=None) as bar:
            try:
                report = score_stories(progress=bar.update)
            except MeteorError as exc:
                raise CommandError(str(exc)) from None
        self.stdout.write(f"{report.stories:,} stories: {report.scored:,} scored, {report.reused:,} already scored by "
                          f"an export, the others up to date.")
