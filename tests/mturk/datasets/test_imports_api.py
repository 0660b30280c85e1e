"""POST /api/imports/: every registered importer through one endpoint, run as the console's import job; refusals
before anything is stored; the job polled; the importers listed; the list in a constant number of queries."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotation.image_sets.models import ImageSet
from annotation.models import Image
from mturk.datasets.services.imports import request_import
from mturk.models.imports import ImportJob
from tests.factories import image_bytes
from tests.queries import queries_for

pytestmark = pytest.mark.django_db


def test_an_image_upload_is_stored_then_imported_by_the_job_with_its_options(api, django_capture_on_commit_callbacks):
    upload = SimpleUploadedFile("kitchen.png", image_bytes())
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/imports/", {"importer": "images", "file": upload, "set": "Kitchens",
                                              "tags": "pilot"}, format="multipart")
    assert response.status_code == 202, response.content
    body = api.get(f"/api/imports/{response.json()['id']}/").json()
    assert body["importer"] == "images" and body["status"] == "done" and body["original_name"] == "kitchen.png"
    assert body["options"] == {"set": "Kitchens", "tags": "pilot"}
    assert [row["name"] for row in body["report"]["imported"]] == ["kitchen.png"]
    assert list(ImageSet.objects.get(name="Kitchens").images.values_list("original_name", flat=True)) == [
        "kitchen.png"]


@pytest.mark.parametrize(("data", "message"), [
    ({"importer": "nope"}, "nope"),
    ({"importer": "flickr30k", "file": SimpleUploadedFile("release.txt", b"x")}, "not an accepted file type"),
    ({"importer": "images", "file": SimpleUploadedFile("a.png", b"x"), "colour": "red"}, "colour"),
    ({"importer": "images"}, "file"),
])
def test_a_refused_request_stores_nothing_and_says_why(api, data, message):
    response = api.post("/api/imports/", data, format="multipart")
    assert response.status_code == 400, response.content
    assert message in response.json()["detail"]
    assert not ImportJob.objects.exists() and not Image.objects.exists()


def test_the_importers_are_listed_with_their_files_and_options(api):
    importers = {row["name"]: row for row in api.get("/api/imports/importers/").json()}
    assert {"images", "coco", "imageclef", "flickr8k", "flickr30k", "vist", "albums"} <= set(importers)
    assert importers["flickr30k"]["extensions"] == [".zip"]
    assert "set" in [option["name"] for option in importers["flickr8k"]["options"]]
    assert importers["vist"]["documentation"].startswith("docs/formats/")


def test_only_staff_may_import():
    user = get_user_model().objects.create_user("worker", password="x")
    client = APIClient()
    client.force_authenticate(user)
    assert client.post("/api/imports/", {"importer": "images"}, format="multipart").status_code == 403
    assert APIClient().get("/api/imports/").status_code in (401, 403)


def test_the_job_list_answers_in_the_same_number_of_queries_for_3_and_30_jobs(api, researcher):
    def jobs(count: int) -> None:
        for n in range(count):
            request_import("images", [SimpleUploadedFile(f"{n}.png", image_bytes())], user=researcher)

    jobs(3)
    few = queries_for(api, "/api/imports/")
    jobs(27)
    assert queries_for(api, "/api/imports/") == few
    assert api.get("/api/imports/").json()["count"] == 30
