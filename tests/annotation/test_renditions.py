"""Renditions: WebP within the page's byte budgets on real photographs, and giving older images new ones."""
from __future__ import annotations

import io
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
import skimage
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.utils import timezone
from PIL import Image as PILImage

from annotation.models import Image, RenditionJob
from annotation.services import renditions
from annotation.services.image_files import RENDITIONS_VERSION, render_thumbnails
from annotation.services.images import import_image_bytes
from tests.factories import image_bytes

pytestmark = pytest.mark.django_db

# Photographs shipped in scikit-image's wheel: people, an animal, objects, a street scene, a dense sky, and
# the close-up of grass (the hardest to compress).
PHOTOS = Path(skimage.__file__).parent / "data"
REAL_PHOTOS = ["astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "motorcycle_left.png",
               "hubble_deep_field.jpg", "grass.png"]
BUDGETS = {"thumb_small": (320, 25 * 1024), "thumb_large": (1024, 80 * 1024)}


def psnr(reference: PILImage.Image, candidate: PILImage.Image) -> float:
    a = np.asarray(reference.convert("RGB"), dtype=np.float64)
    b = np.asarray(candidate.convert("RGB"), dtype=np.float64)
    return float(10 * np.log10(255**2 / ((a - b) ** 2).mean()))


@pytest.mark.parametrize("name", REAL_PHOTOS)
def test_renditions_of_real_photographs_are_webp_within_the_byte_budgets_and_faithful(name):
    data = (PHOTOS / name).read_bytes()
    made = render_thumbnails(data)
    with PILImage.open(io.BytesIO(data)) as source:
        source = source.convert("RGB")
    for field, (longest, budget) in BUDGETS.items():
        assert len(made[field]) <= budget, f"{name} {field}: {len(made[field])} bytes"
        reference = source.copy()
        reference.thumbnail((longest, longest), PILImage.Resampling.LANCZOS)
        with PILImage.open(io.BytesIO(made[field])) as rendition:
            assert rendition.format == "WEBP" and rendition.size == reference.size
            assert psnr(reference, rendition) >= 29.0, f"{name} {field}"


def test_renditions_carry_no_metadata():
    exif = PILImage.Exif()
    exif[0x010F] = "CameraMaker"  # Make
    exif[0x0112] = 1
    picture = PILImage.open(PHOTOS / "coffee.png").convert("RGB")
    buffer = io.BytesIO()
    picture.save(buffer, "JPEG", exif=exif, icc_profile=b"\0" * 128)
    for data in render_thumbnails(buffer.getvalue()).values():
        with PILImage.open(io.BytesIO(data)) as rendition:
            assert not {"exif", "icc_profile", "xmp"} & set(rendition.info)


def old_image(name: str, size: tuple[int, int] = (1600, 1200)) -> Image:
    """An image as stored before WebP renditions: JPEG files under images/320/ and images/1024/, version 0."""
    image, _ = import_image_bytes(name, image_bytes("JPEG", size=size))  # on_commit not run: no renditions yet
    for field in ("thumb_small", "thumb_large"):
        getattr(image, field).save(f"{image.sha256[:2]}/{image.sha256}.jpg", ContentFile(b"old jpeg"), save=False)
    Image.objects.filter(pk=image.pk).update(thumb_small=image.thumb_small.name, thumb_large=image.thumb_large.name,
                                             renditions_version=0)
    return Image.objects.get(pk=image.pk)


def assert_current(image: Image) -> None:
    image.refresh_from_db()
    assert image.renditions_version == RENDITIONS_VERSION
    for field, (longest, _) in BUDGETS.items():
        name = getattr(image, field).name
        assert name == f"images/{longest}/{image.sha256[:2]}/{image.sha256}.webp"
        with default_storage.open(name) as handle, PILImage.open(handle) as rendition:
            assert rendition.format == "WEBP"
            assert max(rendition.size) == min(longest, max(image.width, image.height))


def test_render_images_gives_older_images_new_renditions_and_removes_the_old_files(
        capsys, django_capture_on_commit_callbacks):
    images = [old_image("a.jpg"), old_image("b.jpg")]
    old_files = [i.thumb_small.name for i in images] + [i.thumb_large.name for i in images]
    assert all(default_storage.exists(name) for name in old_files)

    with django_capture_on_commit_callbacks(execute=True):  # the old files go once the new names are committed
        call_command("render_images", batch_size=1)

    out, err = capsys.readouterr()
    assert "2 image(s) rendered, 0 failed" in out
    assert "2/2" in err  # the progress bar
    for image in images:
        assert_current(image)
    assert not any(default_storage.exists(name) for name in old_files)
    assert RenditionJob.objects.get().finished_at is not None


def test_a_second_run_has_nothing_to_do(capsys):
    image = old_image("a.jpg")
    call_command("render_images")
    image.refresh_from_db()
    stored = (image.thumb_small.name, image.thumb_large.name)
    capsys.readouterr()

    call_command("render_images")

    assert "0 image(s) rendered, 0 failed" in capsys.readouterr().out
    image.refresh_from_db()
    assert (image.thumb_small.name, image.thumb_large.name) == stored
    assert all(default_storage.exists(name) for name in stored)


def test_an_interrupted_run_goes_on_where_it_stopped(capsys):
    images = [old_image(f"{n}.jpg", size=(400, 300)) for n in range(3)]
    job, created = renditions.current_job()
    assert created
    assert renditions.render_batch(job, batch_size=1)  # the run stops after its first batch
    assert (job.done, job.finished_at) == (1, None)

    call_command("render_images", batch_size=1)

    assert RenditionJob.objects.count() == 1  # the same run, gone on
    job.refresh_from_db()
    assert (job.total, job.done, job.failed) == (3, 3, 0) and job.finished_at is not None
    assert "2 image(s)" not in capsys.readouterr().out
    for image in images:
        assert_current(image)


def test_an_image_that_cannot_be_rendered_is_reported_and_keeps_its_old_renditions(capsys):
    broken, fine = old_image("broken.jpg", size=(400, 300)), old_image("fine.jpg", size=(400, 300))
    default_storage.delete(broken.original.name)

    call_command("render_images")

    out, err = capsys.readouterr()
    assert "1 image(s) rendered, 1 failed" in out
    assert f"image {broken.pk} (broken): FileNotFoundError" in err
    assert_current(fine)
    broken.refresh_from_db()
    assert broken.renditions_version == 0 and default_storage.exists(broken.thumb_large.name)


def test_old_files_are_removed_only_once_the_row_points_to_the_new_ones(monkeypatch,
                                                                      django_capture_on_commit_callbacks):
    image = old_image("a.jpg", size=(400, 300))
    old_names = {image.thumb_small.name, image.thumb_large.name}
    seen: list[tuple[str, str, str, bool, bool]] = []
    delete = default_storage.delete

    def checking_delete(name):
        row = Image.objects.get(pk=image.pk)
        seen.append((name, row.thumb_small.name, row.thumb_large.name, default_storage.exists(row.thumb_small.name),
                     default_storage.exists(row.thumb_large.name)))
        delete(name)

    monkeypatch.setattr(default_storage, "delete", checking_delete)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        renditions.ensure_thumbnails(image)
    assert seen == [] and all(default_storage.exists(name) for name in old_names)  # nothing goes before the commit
    for callback in callbacks:
        callback()

    assert {name for name, *_ in seen} == old_names
    for _, small, large, small_exists, large_exists in seen:
        assert small.endswith(".webp") and large.endswith(".webp") and small_exists and large_exists


def test_a_file_left_by_an_interrupted_run_is_replaced_not_kept_beside_a_new_name():
    image = old_image("a.jpg", size=(400, 300))
    leftover = f"images/1024/{image.sha256[:2]}/{image.sha256}.webp"
    default_storage.save(leftover, ContentFile(b"half a file"))

    renditions.ensure_thumbnails(image)

    assert_current(image)  # the exact name, holding a whole rendition


def test_imports_get_current_renditions_and_are_not_rendered_again(django_capture_on_commit_callbacks, capsys):
    with django_capture_on_commit_callbacks(execute=True):
        image, _ = import_image_bytes("new.jpg", image_bytes("JPEG", size=(1200, 900)))
    assert_current(image)
    assert not renditions.stale_images().exists()
    call_command("render_images")
    assert "0 image(s) rendered" in capsys.readouterr().out


def test_with_a_broker_a_run_a_worker_is_on_is_followed_not_queued_again(monkeypatch, capsys):
    from annotation import tasks
    from annotation.management.commands import render_images

    old_image("a.jpg", size=(400, 300))
    old_image("b.jpg", size=(400, 300))
    job, _ = renditions.current_job()
    renditions.render_batch(job, batch_size=1)  # a worker is part-way through this run
    queued: list[int] = []
    tasks.render_images.app.conf.task_always_eager = False  # restored by the celery_in_process fixture
    monkeypatch.setattr(tasks.render_images, "delay", lambda *args, **kwargs: queued.append(args[0]))
    monkeypatch.setattr(render_images.time, "sleep", lambda seconds: renditions.render_batch(job, batch_size=1))

    call_command("render_images")

    assert queued == []
    out, err = capsys.readouterr()
    assert f"Job {job.pk} is running on a Celery worker; following it" in err and "2/2" in err
    assert "2 image(s) rendered, 0 failed" in out


def test_with_a_broker_a_run_queued_a_moment_ago_is_followed_not_queued_twice(monkeypatch, capsys):
    from annotation import tasks
    from annotation.management.commands import render_images

    old_image("a.jpg", size=(400, 300))
    job, _ = renditions.current_job()  # queued by a first `render_images`; no worker has started it yet
    queued: list[int] = []
    tasks.render_images.app.conf.task_always_eager = False  # restored by the celery_in_process fixture
    monkeypatch.setattr(tasks.render_images, "delay", lambda *args, **kwargs: queued.append(args[0]))
    monkeypatch.setattr(render_images.time, "sleep", lambda seconds: renditions.render_batch(job, batch_size=5))

    call_command("render_images")

    assert queued == []
    assert "1 image(s) rendered, 0 failed" in capsys.readouterr().out


def test_with_a_broker_a_stalled_run_is_queued_again(monkeypatch, capsys):
    from annotation import tasks
    from annotation.management.commands import render_images

    old_image("a.jpg", size=(400, 300))
    old_image("b.jpg", size=(400, 300))
    job, _ = renditions.current_job()
    renditions.render_batch(job, batch_size=1)
    RenditionJob.objects.filter(pk=job.pk).update(updated_at=timezone.now() - timedelta(minutes=10))  # stalled
    queued: list[int] = []
    tasks.render_images.app.conf.task_always_eager = False  # restored by the celery_in_process fixture
    monkeypatch.setattr(tasks.render_images, "delay", lambda *args, **kwargs: queued.append(args[0]))
    monkeypatch.setattr(render_images.time, "sleep", lambda seconds: renditions.render_batch(job, batch_size=5))

    call_command("render_images")

    assert queued == [job.pk]
    assert "2 image(s) rendered, 0 failed" in capsys.readouterr().out


def test_with_a_broker_a_new_run_is_queued(monkeypatch, capsys):
    from annotation import tasks
    from annotation.management.commands import render_images

    old_image("a.jpg", size=(400, 300))
    queued: list[int] = []
    tasks.render_images.app.conf.task_always_eager = False  # restored by the celery_in_process fixture
    monkeypatch.setattr(tasks.render_images, "delay", lambda *args, **kwargs: queued.append(args[0]))
    monkeypatch.setattr(render_images.time, "sleep",
                        lambda seconds: renditions.render_batch(RenditionJob.objects.get(), batch_size=5))

    call_command("render_images")

    assert queued == [RenditionJob.objects.get().pk]
    assert "queued for a Celery worker" in capsys.readouterr().err
