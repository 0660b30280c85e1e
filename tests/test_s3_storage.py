"""Images and exports on S3, end to end against moto's S3 server started on a free local port.

The platform is configured as a deployment is: config/settings.py is evaluated with the environment
variables AWS_STORAGE_BUCKET_NAME, AWS_S3_ENDPOINT_URL, AWS_S3_REGION_NAME and dummy credentials. The
bucket is inspected with boto3 directly, never through the platform's code. With CELERY_BROKER_URL and
PostgreSQL, a real Celery worker process (given the same variables) makes the thumbnails and builds the
export; otherwise the tasks run in-process."""
from __future__ import annotations

import importlib.util
import io
import json
import os
import time
import urllib.request
import uuid
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import parse_qs, urlsplit

import boto3
import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from moto.server import ThreadedMotoServer
from PIL import Image as PILImage
from storages.backends.s3 import S3File, S3Storage

from annotation.models import Concept, Description, Image
from annotation.services import images as image_service
from annotation.services.boxes import BoxSpec, add_boxes
from annotation.services.images import import_image_bytes
from metrics.text.markup import tokenize
from mturk.models import DatasetExport
from tests.celery_process import celery_worker
from tests.factories import image_bytes, label_vocabulary

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.django_db(transaction=True)

# Settings django-storages' S3Storage reads when it is created.
S3_SETTINGS = ("AWS_STORAGE_BUCKET_NAME", "AWS_S3_ENDPOINT_URL", "AWS_S3_REGION_NAME", "AWS_QUERYSTRING_AUTH",
               "AWS_S3_SIGNATURE_VERSION")


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def s3_env(s3_endpoint, monkeypatch) -> dict[str, str]:
    """The environment of a deployment on S3 (a new bucket per test), set for this process too."""
    env = {
        "AWS_STORAGE_BUCKET_NAME": f"platform-{uuid.uuid4().hex[:12]}",
        "AWS_S3_ENDPOINT_URL": s3_endpoint,
        "AWS_S3_REGION_NAME": "us-east-1",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
    }
    for name in ("AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_QUERYSTRING_AUTH"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


@pytest.fixture
def bucket(s3_env) -> Callable[..., Any]:
    """A boto3 client on the bucket, which it creates (the platform expects an existing bucket)."""
    client = boto3.client("s3", endpoint_url=s3_env["AWS_S3_ENDPOINT_URL"], region_name="us-east-1")
    client.create_bucket(Bucket=s3_env["AWS_STORAGE_BUCKET_NAME"])
    client.bucket_name = s3_env["AWS_STORAGE_BUCKET_NAME"]
    return client


def deployment_settings(env: dict[str, str], var_dir: Path) -> dict[str, Any]:
    """The settings config/settings.py makes from these environment variables, evaluated afresh."""
    spec = importlib.util.spec_from_file_location("config.deployed_settings", ROOT / "config" / "settings.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    with mock.patch.dict(os.environ, {**env, "VAR_DIR": str(var_dir)}):
        spec.loader.exec_module(module)
    return {name: getattr(module, name) for name in dir(module) if name.isupper()}


@pytest.fixture
def on_s3(s3_env, bucket, settings, tmp_path) -> dict[str, Any]:
    deployed = deployment_settings(s3_env, tmp_path / "var")
    for name in S3_SETTINGS:
        setattr(settings, name, deployed[name])
    settings.STORAGES = deployed["STORAGES"]  # resets default_storage
    assert isinstance(default_storage, S3Storage) and not deployed["SERVE_MEDIA"]
    return deployed


@pytest.fixture
def worker_log(s3_env, tmp_path) -> Iterator[Path | None]:
    """The log of a real Celery worker process running with the S3 environment, or None when tasks run
    in-process (no CELERY_BROKER_URL, or no shared PostgreSQL database)."""
    if not os.environ.get("CELERY_BROKER_URL") or connection.vendor != "postgresql":
        yield None
        return
    log = tmp_path / "worker.log"
    with celery_worker(log, s3_env):
        yield log


def keys(bucket) -> set[str]:
    listing = bucket.list_objects_v2(Bucket=bucket.bucket_name)
    return {item["Key"] for item in listing.get("Contents", [])}


def stored(bucket, key: str) -> tuple[bytes, str]:
    answer = bucket.get_object(Bucket=bucket.bucket_name, Key=key)
    return answer["Body"].read(), answer["ContentType"]


def wait_for(what: str, check: Callable[[], Any]) -> Any:
    deadline = time.monotonic() + 60
    while not (value := check()):
        assert time.monotonic() < deadline, f"{what} did not happen within 60 s"
        time.sleep(0.1)
    return value


def assert_signed(url: str, endpoint: str, bucket_name: str, key: str) -> bytes:
    """A signed URL of the object on the S3 endpoint; returns what GETting it serves."""
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}" == endpoint and parts.path == f"/{bucket_name}/{key}", url
    assert {"X-Amz-Signature", "X-Amz-Credential", "X-Amz-Expires"} <= set(parse_qs(parts.query)), url
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read()


def test_upload_renditions_export_and_download_on_s3(api, on_s3, bucket, s3_env, worker_log):
    photo = image_bytes("JPEG", size=(1600, 1200))
    upload = SimpleUploadedFile("street.jpg", photo, content_type="image/jpeg")
    response = api.post("/api/images/", {"files": [upload]}, format="multipart")
    assert response.status_code == 201, response.content
    ((imported),) = response.json()["imported"]
    image = wait_for("the thumbnails", lambda: Image.objects.filter(pk=imported["id"]).exclude(thumb_small="")
                     .exclude(thumb_large="").first())

    # The original and both renditions are objects in the bucket, with image content types.
    assert image.original.name.startswith("images/originals/") and image.thumb_small.name.startswith("images/320/")
    assert image.thumb_large.name.startswith("images/1024/")
    assert keys(bucket) == {image.original.name, image.thumb_small.name, image.thumb_large.name}
    assert stored(bucket, image.original.name) == (photo, "image/jpeg")
    for field, longest in (("thumb_small", 320), ("thumb_large", 1024)):
        data, content_type = stored(bucket, getattr(image, field).name)
        assert content_type == "image/webp"
        with PILImage.open(io.BytesIO(data)) as rendition:
            assert rendition.format == "WEBP" and max(rendition.size) == longest

    # The API hands out signed S3 URLs that serve those bytes.
    described = api.get(f"/api/images/{image.pk}/").json()
    endpoint, name = s3_env["AWS_S3_ENDPOINT_URL"], bucket.bucket_name
    assert assert_signed(described["original_url"], endpoint, name, image.original.name) == photo
    assert assert_signed(described["thumbnail_url"], endpoint, name, image.thumb_small.name) == stored(
        bucket, image.thumb_small.name)[0]
    assert assert_signed(described["display_url"], endpoint, name, image.thumb_large.name) == stored(
        bucket, image.thumb_large.name)[0]

    # A COCO export (it copies the original images from the bucket) is built in the background...
    bicycle = Concept.objects.create(vocabulary=label_vocabulary(), name="bicycle", synset="bicycle.n.01")
    add_boxes(image, [BoxSpec(bicycle.pk, 100, 200, 600, 500)], source="gold")
    Description.objects.create(image=image, text="A red bicycle.", tokens=tokenize("A red bicycle."), source="crowd")
    requested = api.post("/api/exports/", {"format": "coco"}, format="json")
    assert requested.status_code == 202, requested.content
    export_id = requested.json()["id"]
    polled = wait_for("the export", lambda: (body := api.get(f"/api/exports/{export_id}/").json())["status"] in (
        "done", "failed") and body)
    assert polled["status"] == "done", polled["error"]
    if worker_log is not None:  # ...by the worker process, which also made the thumbnails
        log = worker_log.read_text()
        assert "mturk.tasks.build_dataset_export[" in log and "annotation.tasks.make_thumbnails[" in log, log

    # ...stored in the bucket as a zip...
    export = DatasetExport.objects.get(pk=export_id)
    assert export.file.name.startswith("exports/coco-") and export.file.name in keys(bucket)
    archive_bytes, content_type = stored(bucket, export.file.name)
    assert content_type == "application/zip"

    # ...and downloaded through the API, never from a public URL.
    download = api.get(polled["download_url"])
    assert download.status_code == 200 and download["Content-Type"] == "application/zip"
    assert download["Content-Disposition"] == f'attachment; filename="{export.file.name.rsplit("/", 1)[-1]}"'
    body = b"".join(download.streaming_content)
    assert body == archive_bytes and int(download["Content-Length"]) == len(body)
    archive = zipfile.ZipFile(io.BytesIO(body))
    assert archive.read(f"images/{image.key}.jpg") == photo
    captions = json.loads(archive.read("annotations/captions.json"))
    assert [c["caption"] for c in captions["annotations"]] == ["A red bicycle."]


def test_export_download_streams_from_s3_without_copying_the_object_first(api, on_s3, bucket, monkeypatch):
    image, _ = import_image_bytes("one.png", image_bytes("PNG", size=(300, 200)))
    add_boxes(image, [BoxSpec(Concept.objects.create(vocabulary=label_vocabulary(),
                                                     name="sky").pk, 0, 0, 300, 50)], source="gold")
    export_id = api.post("/api/exports/", {"format": "imageclef"}, format="json").json()["id"]
    export = DatasetExport.objects.get(pk=export_id)
    assert export.status == DatasetExport.Status.DONE, export.error
    archive_bytes, _ = stored(bucket, export.file.name)

    def copy_whole_object(self):
        raise AssertionError(f"{self.name} was copied whole into the web process before being sent")

    monkeypatch.setattr(S3File, "file", property(copy_whole_object))
    download = api.get(f"/api/exports/{export_id}/download/")
    assert download.status_code == 200
    assert b"".join(download.streaming_content) == archive_bytes


def test_a_concurrent_import_of_the_same_image_keeps_the_stored_original(on_s3, bucket, monkeypatch):
    """Two imports of the same bytes both pass the duplicate check; S3 gives both the same object name, so
    the import that loses the race must not delete the object the winner's row points to."""
    data = image_bytes("JPEG", size=(200, 100))
    inspect = image_service.inspect_image
    raced: list[bool] = []
    winner: list[Image] = []

    def inspect_while_another_import_commits(content: bytes):
        if not raced:
            raced.append(True)
            winner.append(import_image_bytes("first.jpg", content)[0])
        return inspect(content)

    monkeypatch.setattr(image_service, "inspect_image", inspect_while_another_import_commits)
    image, created = import_image_bytes("second.jpg", data)
    assert not created and image.pk == winner[0].pk and Image.objects.count() == 1
    assert image.original.name in keys(bucket)
    assert stored(bucket, image.original.name)[0] == data


def test_render_images_replaces_older_renditions_in_the_bucket(on_s3, bucket, capsys):
    image, _ = import_image_bytes("old.jpg", image_bytes("JPEG", size=(1600, 1200)))
    image.refresh_from_db()  # its renditions were made after the import committed
    current = {image.thumb_small.name, image.thumb_large.name}
    assert all(name.endswith(".webp") for name in current)
    for name in current:  # as stored before WebP: JPEG renditions, recipe version 0
        default_storage.delete(name)
    old = {field: default_storage.save(f"images/{size}/{image.sha256[:2]}/{image.sha256}.jpg",
                                       ContentFile(image_bytes("JPEG", size=(size, size * 3 // 4))))
           for field, size in (("thumb_small", 320), ("thumb_large", 1024))}
    Image.objects.filter(pk=image.pk).update(renditions_version=0, **old)
    assert keys(bucket) == {image.original.name, *old.values()}

    call_command("render_images")

    assert "1 image(s) rendered, 0 failed" in capsys.readouterr().out
    image.refresh_from_db()
    assert {image.thumb_small.name, image.thumb_large.name} == current
    assert keys(bucket) == {image.original.name, *current}  # the JPEG renditions are gone
    for name in current:
        data, content_type = stored(bucket, name)
        assert content_type == "image/webp"
        with PILImage.open(io.BytesIO(data)) as rendition:
            assert rendition.format == "WEBP"
