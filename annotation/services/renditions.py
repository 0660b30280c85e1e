"""The 320 and 1024 px renditions of images: making them, and giving older ones the current recipe.

Images known only by reference (no stored file: a COCO import without its image files) have no renditions:
they are skipped, and rendition runs neither count nor visit them."""
from __future__ import annotations

from datetime import timedelta

from django.core.files.base import ContentFile
from django.core.files.storage import Storage
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from ..models import Image, RenditionJob
from .image_files import RENDITION_EXTENSION, RENDITIONS_VERSION, render_thumbnails

FAILURES_KEPT = 100
RENDER_IMAGES = "annotation.tasks.render_images"  # the task that runs a rendition job (`manage.py render_images`)


def rendition_name(image: Image) -> str:
    """Where a rendition of the image is stored, below its field's folder (images/320/, images/1024/)."""
    if image.sha256 is None:
        raise ValueError(f"image {image.key} has no stored file, hence no renditions")
    return f"{image.sha256[:2]}/{image.sha256}.{RENDITION_EXTENSION}"


def _store(field_file, name: str, data: bytes) -> None:
    """Store at exactly `field.upload_to + name`: a file left there by an interrupted run that no row
    references is replaced rather than kept beside a new, suffixed name."""
    storage: Storage = field_file.storage
    target = field_file.field.generate_filename(field_file.instance, name)
    if field_file.name != target and storage.exists(target):
        storage.delete(target)
    field_file.save(name, ContentFile(data), save=False)


def ensure_thumbnails(image: Image) -> Image:
    """Give the image current renditions (320 and 1024 px) unless it has them (idempotent).

    The row is pointed at the new files before older files are removed, so a page never refers to a
    missing file; the older files go once that change is committed. An image known only by reference (no file)
    is returned as it is."""
    if not image.has_file:
        return image
    if image.renditions_version == RENDITIONS_VERSION and image.thumb_small and image.thumb_large:
        return image
    previous = {name for name in (image.thumb_small.name, image.thumb_large.name) if name}
    with image.original.open("rb") as handle:
        renditions = render_thumbnails(handle.read())
    for field_name, data in renditions.items():
        _store(getattr(image, field_name), rendition_name(image), data)
    image.renditions_version = RENDITIONS_VERSION
    Image.objects.filter(pk=image.pk).update(
        thumb_small=image.thumb_small.name, thumb_large=image.thumb_large.name,
        renditions_version=RENDITIONS_VERSION,
    )
    stale = previous - {image.thumb_small.name, image.thumb_large.name}
    if stale:
        storage = image.thumb_small.storage
        transaction.on_commit(lambda: [storage.delete(name) for name in sorted(stale)])
    return image


def stale_images():
    """Images whose renditions are missing or made by an older recipe (images without a file have none)."""
    return Image.objects.filter(renditions_version__lt=RENDITIONS_VERSION).exclude(original="")


def current_job() -> tuple[RenditionJob, bool]:
    """The unfinished run for the current recipe (an interrupted run goes on), else a new one; and whether it
    is new."""
    with transaction.atomic():
        job = (RenditionJob.objects.select_for_update()
               .filter(target_version=RENDITIONS_VERSION, finished_at__isnull=True).order_by("-pk").first())
        if job is not None:
            return job, False
        return RenditionJob.objects.create(target_version=RENDITIONS_VERSION, total=stale_images().count()), True


def is_running(job: RenditionJob, within: timedelta = timedelta(minutes=2)) -> bool:
    """Whether the run was queued or a worker recorded progress on it lately (a batch takes seconds)."""
    return job.finished_at is None and timezone.now() - job.updated_at < within


def render_batch(job: RenditionJob, batch_size: int = 50) -> bool:
    """Render the next batch of the run's images and record the progress. False when nothing was left."""
    batch = list(stale_images().filter(pk__gt=job.last_image_id).order_by("pk")[:batch_size])
    if not batch:
        RenditionJob.objects.filter(pk=job.pk).update(finished_at=timezone.now())
        job.refresh_from_db()
        return False
    done, failures = 0, []
    for image in batch:
        try:
            ensure_thumbnails(image)
            done += 1
        except Exception as exc:  # one unreadable image must not stop the run: it is reported
            failures.append({"image": image.pk, "key": image.key, "error": f"{type(exc).__name__}: {exc}"})
    with transaction.atomic():
        locked = RenditionJob.objects.select_for_update().get(pk=job.pk)
        locked.done = F("done") + done
        locked.failed = F("failed") + len(failures)
        locked.failures = (locked.failures + failures)[:FAILURES_KEPT]
        locked.last_image_id = batch[-1].pk
        locked.save(update_fields=["done", "failed", "failures", "last_image_id", "updated_at"])
    job.refresh_from_db()
    return True
