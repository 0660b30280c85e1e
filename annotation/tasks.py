"""Background work for images."""
from celery import shared_task

from .models import Image
from .services.images import ensure_thumbnails


@shared_task(autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def make_thumbnails(image_id: int) -> None:
    image = Image.objects.filter(pk=image_id).first()
    if image is not None:
        ensure_thumbnails(image)
