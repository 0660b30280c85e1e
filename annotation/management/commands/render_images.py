import sys
import time

from django.core.management.base import BaseCommand
from tqdm import tqdm

from mturk.jobs import task_named

from ...models import RenditionJob
from ...services.renditions import RENDER_IMAGES, current_job, is_running


class Command(BaseCommand):
    help = ("Give every image whose renditions are missing or made by an older recipe its current 320 and 1024 px "
            "renditions, as a background job, with a progress bar. Safe to interrupt and to run again: a run goes on "
            "where the last one stopped.")

    def add_arguments(self, parser):
        parser.add_argument("--batch-size", type=int, default=50, help="images per committed step (default 50)")
        parser.add_argument("--poll", type=float, default=1.0,
                            help="seconds between progress reads while a Celery worker runs the job (default 1)")

    def handle(self, *args, batch_size: int, poll: float, **options):
        job, created = current_job()
        render_images = task_named(RENDER_IMAGES)
        bar = tqdm(total=job.total, initial=job.done + job.failed, unit="image", file=sys.stderr,
                   desc=f"renditions v{job.target_version}")
        if render_images.app.conf.task_always_eager:
            # No broker: the task runs in this process, one batch per call, so the bar moves as it goes.
            while job.finished_at is None:
                render_images.delay(job.pk, batch_size=batch_size, batches=1)
                job = self._advance(bar, job)
        else:
            if not created and is_running(job):
                self.stderr.write(f"Job {job.pk} is running on a Celery worker; following it (Ctrl-C stops "
                                  "following, not the job).")
            else:
                render_images.delay(job.pk, batch_size=batch_size)
                self.stderr.write(f"Job {job.pk} queued for a Celery worker; Ctrl-C stops following it, not the job.")
            while job.finished_at is None:
                time.sleep(poll)
                job = self._advance(bar, job)
        bar.close()
        for failure in job.failures:
            self.stderr.write(f"image {failure['image']} ({failure['key']}): {failure['error']}")
        self.stdout.write(f"{job.done} image(s) rendered, {job.failed} failed")

    @staticmethod
    def _advance(bar: tqdm, job: RenditionJob) -> RenditionJob:
        job.refresh_from_db()
        bar.update(job.done + job.failed - bar.n)
        return job
