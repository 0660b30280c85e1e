"""Background work for images."""
from celery import shared_task

from mturk.jobs import FireAndForget

from .models import Image, RenditionJob
from .services.renditions import ensure_thumbnails, render_batch


@shared_task(base=FireAndForget, autoretry_for=(OSError,), retry_backoff=True, max_retries=5,
             label="Making an image's thumbnails",
             recovery="`manage.py render_images` makes the missing renditions")
def make_thumbnails(image_id: int) -> None:
    image = Image.objects.filter(pk=image_id).first()
    if image is not None:
        ensure_thumbnails(image)


@shared_task
def render_images(job_id: int, batch_size: int = 50, batches: int | None = None) -> None:
    """Give the images of a rendition run their current renditions, `batches` batches of them (all when None),
    going on where the run got to."""
    job = RenditionJob.objects.filter(pk=job_id, finished_at__isnull=True).first()
    count = 0
    while job is not None and (batches is None or count < batches) and render_batch(job, batch_size):
        count += 1

