"""The console's Imports page (mturk/datasets/views/imports.py): researchers only, refused uploads store nothing, the
form works without JavaScript, the status endpoint, and a constant number of queries for the jobs list."""
from __future__ import annotations

import io
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from mturk.models.imports import ImportJob
from tests.factories import image_bytes
from tests.queries import queries_for

pytestmark = pytest.mark.django_db
XHR = {"HTTP_X_REQUESTED_WITH": "XMLHttpRequest"}


def images_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("good.png", image_bytes())
        archive.writestr("bad.jpg", b"not an image at all")
    return buffer.getvalue()


def no_stored_imports(media_root) -> bool:
    return not (media_root / "imports").exists() or not any((media_root / "imports").iterdir())


@pytest.mark.parametrize("url", ["/imports/", "/imports/1/", "/imports/1/status/"])
def test_researchers_only(client, url):
    assert client.get(url).status_code == 302  # to the login page
    user = get_user_model().objects.create_user("worker", password="x-pass-1234")
    client.force_login(user)
    response = client.get(url)
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_the_page_has_one_labelled_form_per_importer(researcher_client):
    page = researcher_client.get("/imports/").content.decode()
    for label, button in [("Image files or a zip", "Import images"), ("Albums zip", "Import albums"),
                          ("Concepts file (concepts.tsv)", "Import concept vocabulary"),
                          ("Dataset zip", "Import ImageCLEF dataset")]:
        assert f">{label}</label>" in page and f">{button}</button>" in page
    assert "No import yet." in page


def test_a_plain_form_post_imports_and_shows_the_report(researcher_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_client.post("/imports/", {"importer": "images",
                                                        "files": SimpleUploadedFile("set.zip", images_zip())})
    job = ImportJob.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("import-job", args=[job.pk])
    page = researcher_client.get(response["Location"]).content.decode()
    assert "1 imported, 0 already known, 1 refused" in page
    assert "bad.jpg" in page and "not an image" in page and "good.png" in page
    assert 'aria-valuenow="100"' in page
    listing = researcher_client.get("/imports/").content.decode()
    assert "set.zip" in listing and f"#{job.pk}" in listing


def test_a_wrong_type_gets_a_clear_message_and_stores_nothing(researcher_client, media_root):
    response = researcher_client.post("/imports/", {"importer": "albums", "albums-": "",
                                                    "files": SimpleUploadedFile("albums.tar", b"data")})
    assert response.status_code == 400
    assert "albums.tar: not an accepted file type (accepted: .zip)" in response.content.decode()
    assert ImportJob.objects.count() == 0 and no_stored_imports(media_root)


def test_a_too_large_file_is_refused_with_a_message(researcher_client, media_root, settings):
    settings.IMAGE_MAX_BYTES = 50
    response = researcher_client.post("/imports/", {"importer": "images",
                                                    "files": SimpleUploadedFile("a.png", image_bytes())}, **XHR)
    assert response.status_code == 400 and "over the limit of 50 bytes" in response.json()["error"]
    assert ImportJob.objects.count() == 0 and no_stored_imports(media_root)


def test_too_many_files_are_refused_with_advice(researcher_client, media_root, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FILES = 2
    files = [SimpleUploadedFile(f"{n}.png", image_bytes()) for n in range(3)]
    response = researcher_client.post("/imports/", {"importer": "images", "files": files})
    assert response.status_code == 400 and "put them in a zip" in response.content.decode()
    assert ImportJob.objects.count() == 0 and no_stored_imports(media_root)


def test_several_chosen_files_import_the_good_ones_and_the_job_page_names_each_bad_one(
        researcher_client, django_capture_on_commit_callbacks):
    files = [SimpleUploadedFile("kitchen.jpg", image_bytes("JPEG")), SimpleUploadedFile("street.png", image_bytes()),
             SimpleUploadedFile("notes.txt", b"shopping list"), SimpleUploadedFile("broken.jpg", b"\xff\xd8garbage")]
    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_client.post("/imports/", {"importer": "images", "files": files}, **XHR)
    assert response.status_code == 201
    job = ImportJob.objects.get()
    status = researcher_client.get(response.json()["status"]).json()
    assert (status["status"], status["imported"], status["refused"]) == ("done", 2, 2)
    page = researcher_client.get(response.json()["page"]).content.decode()
    assert "2 imported, 0 already known, 2 refused" in page
    for name in ("kitchen.jpg", "street.png", "notes.txt", "broken.jpg"):
        assert f'<td class="import-name">{name}</td>' in page
    assert page.count("not an image (or not a format Pillow can read)") == 2
    assert job.status == ImportJob.Status.DONE


def test_several_chosen_files_all_bad_are_refused_naming_each(researcher_client, media_root):
    files = [SimpleUploadedFile("notes.txt", b"shopping list"), SimpleUploadedFile("song.mp3", b"ID3 music")]
    response = researcher_client.post("/imports/", {"importer": "images", "files": files}, **XHR)
    assert response.status_code == 400
    error = response.json()["error"]
    assert "nothing was imported" in error
    assert "notes.txt: not an accepted file type" in error and "song.mp3: not an accepted file type" in error
    assert ImportJob.objects.count() == 0 and no_stored_imports(media_root)


def test_an_upload_from_the_script_gets_the_job_addresses(researcher_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_client.post("/imports/", {"importer": "images",
                                                        "files": SimpleUploadedFile("set.zip", images_zip())}, **XHR)
    job = ImportJob.objects.get()
    assert response.status_code == 201
    assert response.json() == {"id": job.pk, "page": f"/imports/{job.pk}/", "status": f"/imports/{job.pk}/status/"}
    status = researcher_client.get(response.json()["status"]).json()
    assert status == {"id": job.pk, "importer": "images", "status": "done", "done": 2, "total": 2, "unit": "files",
                      "percent": 100, "finished": True, "error": "",
                      "summary": "1 imported, 0 already known, 1 refused", "imported": 1, "refused": 1}


def test_a_queued_job_page_refreshes_itself_without_javascript(researcher_client):
    job = ImportJob.objects.create(importer="albums", file="imports/a.zip", original_name="a.zip")
    page = researcher_client.get(f"/imports/{job.pk}/").content.decode()
    assert '<noscript><meta http-equiv="refresh"' in page and 'data-finished="false"' in page
    assert researcher_client.get(f"/imports/{job.pk}/status/").json()["finished"] is False


def test_a_failed_job_shows_its_error_and_each_problem(researcher_client):
    job = ImportJob.objects.create(
        importer="concepts", file="imports/c.tsv", original_name="c.tsv", status="failed",
        error="1 problem(s); nothing was imported",
        report={"summary": "1 problem(s); nothing was imported",
                "refused": [{"name": "c.tsv line 3", "reason": "unknown parent concept 'x'"}]},
    )
    page = researcher_client.get(f"/imports/{job.pk}/").content.decode()
    assert "c.tsv line 3" in page and "unknown parent concept" in page and 'role="alert"' in page


def test_an_unknown_job_is_404(researcher_client):
    assert researcher_client.get("/imports/999/").status_code == 404
    assert researcher_client.get("/imports/999/status/").status_code == 404


def make_jobs(count: int, user) -> None:
    ImportJob.objects.bulk_create(
        ImportJob(importer="images", file=f"imports/{n}.zip", original_name=f"{n}.zip", created_by=user,
                  report={"imported": [{"name": "a", "detail": ""}], "refused": []})
        for n in range(count)
    )


def test_the_jobs_list_costs_the_same_queries_for_2_and_20_jobs(researcher_client, researcher):
    make_jobs(2, researcher)
    few = queries_for(researcher_client, "/imports/")
    make_jobs(18, researcher)
    assert queries_for(researcher_client, "/imports/") == few
