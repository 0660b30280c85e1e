"""Background work through a real Celery worker process on the configured broker and PostgreSQL."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from annotation.models import Image
from annotation.services.images import import_image_bytes
from config.celery import app
from tests.factories import image_bytes

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.celery_worker,
    pytest.mark.skipif(not os.environ.get("CELERY_BROKER_URL"), reason="set CELERY_BROKER_URL to use a real worker"),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the worker process needs a shared database"),
]


def database_url() -> str:
    db = connection.settings_dict
    user = db["USER"] or ""
    auth = f"{user}:{db['PASSWORD']}@" if db["PASSWORD"] else (f"{user}@" if user else "")
    return f"postgres://{auth}{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def real_worker(transactional_db, media_root, tmp_path):
    app.conf.task_always_eager = False
    app.control.purge()
    env = {**os.environ, "DATABASE_URL": database_url(), "MEDIA_ROOT": str(media_root),
           "DJANGO_SETTINGS_MODULE": "config.settings"}
    log = (tmp_path / "worker.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "--loglevel=INFO",
         "--without-gossip", "--without-mingle", "-n", f"test-{os.getpid()}@%h"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while not app.control.ping(timeout=0.5):
            assert process.poll() is None, (tmp_path / "worker.log").read_text()
            assert time.monotonic() < deadline, "the Celery worker did not answer within 60 s"
        yield process
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def test_thumbnails_are_made_by_the_worker_process(real_worker, media_root):
    assert not app.conf.task_always_eager and settings.CELERY_BROKER_URL
    image, _ = import_image_bytes("worker.jpg", image_bytes("JPEG", size=(1600, 1200)))
    deadline = time.monotonic() + 60
    while True:
        image = Image.objects.get(pk=image.pk)
        if image.thumb_small and image.thumb_large:
            break
        assert real_worker.poll() is None, "the worker died"
        assert time.monotonic() < deadline, "the worker made no thumbnails within 60 s"
        time.sleep(0.2)
    assert (media_root / image.thumb_large.name).stat().st_size > 0
    assert (media_root / image.thumb_small.name).exists()
