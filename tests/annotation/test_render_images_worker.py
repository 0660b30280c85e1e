"""render_images with a broker: the job runs on a real Celery worker process, the command follows its progress."""
import threading
from unittest import mock

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.db import connection

from annotation.models import Image, RenditionJob
from annotation.services.image_files import RENDITIONS_VERSION
from annotation.services.images import import_image_bytes
from config.celery import app
from tests.factories import image_bytes
from tests.test_celery_worker import pytestmark as worker_marks
from tests.test_celery_worker import real_worker  # noqa: F401 - the fixture

pytestmark = worker_marks


def test_the_worker_renders_and_the_command_shows_the_progress(real_worker, capsys):  # noqa: F811
    assert not app.conf.task_always_eager
    images = []
    for n in range(3):
        with mock.patch("annotation.tasks.make_thumbnails.apply_async"):  # stored as before: the job does the work
            image, _ = import_image_bytes(f"{n}.jpg", image_bytes("JPEG", size=(800, 600)))
        name = default_storage.save(f"images/1024/{image.sha256[:2]}/{image.sha256}.jpg", ContentFile(b"old"))
        Image.objects.filter(pk=image.pk).update(thumb_large=name, thumb_small="", renditions_version=0)
        images.append(image)

    def follow():
        try:
            call_command("render_images", batch_size=1, poll=0.1)
        finally:
            connection.close()

    follower = threading.Thread(target=follow)
    follower.start()
    follower.join(timeout=120)
    assert not follower.is_alive(), "the job did not finish within 120 s"

    out, err = capsys.readouterr()
    assert "queued for a Celery worker" in err and "3/3" in err
    assert "3 image(s) rendered, 0 failed" in out
    assert RenditionJob.objects.get().finished_at is not None
    for image in images:
        image.refresh_from_db()
        assert image.renditions_version == RENDITIONS_VERSION and image.thumb_large.name.endswith(".webp")
        assert default_storage.exists(image.thumb_small.name)
