"""Export jobs: request through the API, build in the background (in-process here), poll, download; media privacy."""
from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from mturk.datasets import formats as export_registry
from mturk.datasets.formats import ExportError, ExportFormat, write_export
from mturk.datasets.services.exports import build_export, request_export
from mturk.models import DatasetExport
from mturk.services.review import approve_assignment
from tests.factories import make_campaign, make_image, submitted
from tests.queries import queries_for

pytestmark = pytest.mark.django_db


def zip_of(response) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))


@pytest.fixture
def campaign():
    campaign = make_campaign(images=2, assignments=1, name="describe street")
    approve_assignment(submitted(campaign))
    submitted(campaign, "A man rides a blue bicycle past a bakery in the morning.")
    return campaign


def fake_format(monkeypatch, name: str, write, kinds: tuple[str, ...] = ()) -> ExportFormat:
    export_format = ExportFormat(name=name, description=f"{name} (test)", write=write, kinds=kinds)
    monkeypatch.setitem(export_registry._FORMATS._items, name, export_format)
    return export_format


def one_file(bundle, campaigns) -> int:
    bundle.write_text("data.txt", "hello\n")
    bundle.counts["things"] = 1
    return 1


# --- request, poll, download -------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_request_is_built_in_process_and_downloaded(api, campaign, researcher):
    response = api.post("/api/exports/", {"format": "assignments-jsonl", "campaigns": [campaign.pk]}, format="json")
    assert response.status_code == 202, response.json()
    body = response.json()
    export = DatasetExport.objects.get()
    assert body["id"] == export.pk
    assert (body["format"], body["campaigns"], body["status"], body["records"], body["counts"], body["error"]) == (
        "assignments-jsonl", [campaign.pk], "done", 2, {"assignments": 2}, "")
    assert body["download_url"] == f"http://testserver/api/exports/{export.pk}/download/"
    assert body["finished_at"] is not None
    assert body["progress_done"] == body["progress_total"] == export.progress_total > 0
    assert export.created_by == researcher
    assert export.file.name.startswith("exports/assignments-jsonl-") and export.file.name.endswith(".zip")

    polled = api.get(f"/api/exports/{export.pk}/")
    assert polled.status_code == 200 and polled.json() == body

    download = api.get(body["download_url"])
    assert download.status_code == 200
    assert download["Content-Type"] == "application/zip"
    assert download["Content-Disposition"] == f'attachment; filename="{export.file.name.rsplit("/", 1)[-1]}"'
    archive = zip_of(download)
    assert sorted(archive.namelist()) == ["README.md", "assignments.jsonl", "report/crowd.json"]
    readme = archive.read("README.md").decode()
    assert readme.startswith("# Dataset: assignments-jsonl export\n")
    assert "- Records: 2\n" in readme and "- Assignments: 2\n" in readme
    assert "### describe street" in readme and "- `assignments.jsonl`" in readme
    crowd = json.loads(archive.read("report/crowd.json"))
    (stats,) = crowd["campaigns"]
    assert (stats["campaign"], stats["task_kind"], stats["answered"], stats["approved"], stats["rejected"]) == (
        "describe street", "describe_image", 2, 1, 0)
    lines = [json.loads(line) for line in archive.read("assignments.jsonl").decode().splitlines()]
    assert sorted(line["status"] for line in lines) == ["approved", "submitted"]
    assert {line["campaign"] for line in lines} == {"describe street"}


def test_request_then_background_build(api, campaign, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = api.post("/api/exports/", {"format": "assignments-jsonl"}, format="json")
    assert response.status_code == 202
    assert response.json()["status"] == "queued"  # the job runs after the request's commit
    assert response.json()["download_url"] is None
    assert len(callbacks) == 1
    polled = api.get(f"/api/exports/{response.json()['id']}/").json()
    assert (polled["status"], polled["records"], polled["campaigns"]) == ("done", 2, [])
    archive = zip_of(api.get(polled["download_url"]))
    assert len(archive.read("assignments.jsonl").decode().splitlines()) == 2  # no campaign given: everything


@pytest.mark.parametrize("state", [DatasetExport.Status.QUEUED, DatasetExport.Status.RUNNING,
                                   DatasetExport.Status.FAILED])
def test_download_of_an_export_not_done_is_409(api, state):
    export = DatasetExport.objects.create(format="assignments-jsonl", status=state)
    response = api.get(f"/api/exports/{export.pk}/download/")
    assert response.status_code == 409
    assert response.json() == {"detail": f"the export is {state}, not done"}
    assert api.get(f"/api/exports/{export.pk}/").json()["download_url"] is None


def test_unknown_export_is_404(api):
    assert api.get("/api/exports/999999/").status_code == 404
    assert api.get("/api/exports/999999/download/").status_code == 404


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"format": "nope"}, "format"),
        ({}, "format"),
        ({"format": "assignments-jsonl", "campaigns": [999999]}, "campaigns"),
        ({"format": "assignments-jsonl", "campaigns": {}}, "campaigns"),
        ({"format": "assignments-jsonl", "campaigns": {"1": 1}}, "campaigns"),
        ({"format": "assignments-jsonl", "campaigns": "1"}, "campaigns"),
        ({"format": "assignments-jsonl", "campaigns": [99999999999999999999]}, "campaigns"),
        ({"format": "assignments-jsonl", "campaigns": ["abc"]}, "campaigns"),
        ({"format": "assignments-jsonl", "colour": "red"}, "colour"),
    ],
)
def test_bad_requests_are_400_and_store_nothing(api, payload, field, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = api.post("/api/exports/", payload, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert DatasetExport.objects.count() == 0 and callbacks == []


def test_unknown_format_message():
    with pytest.raises(ExportError) as caught:
        request_export("nope", [])
    assert str(caught.value).startswith("unknown export format 'nope' (available: ")
    assert "assignments-jsonl" in str(caught.value)
    assert DatasetExport.objects.count() == 0


@pytest.fixture
def clerk(db) -> APIClient:
    user = get_user_model().objects.create_user("bob", "bob@example.org", "pw-of-bob", is_staff=False)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def test_anonymous_and_non_staff_are_refused(clerk, campaign, django_capture_on_commit_callbacks):
    export = DatasetExport.objects.create(format="assignments-jsonl")
    with django_capture_on_commit_callbacks(execute=True):
        build_export(export)
    urls = ["/api/exports/", f"/api/exports/{export.pk}/", f"/api/exports/{export.pk}/download/"]
    for client, status in ((APIClient(), 401), (clerk, 403)):
        for url in urls:
            assert client.get(url).status_code == status, url
        assert client.post("/api/exports/", {"format": "assignments-jsonl"}, format="json").status_code == status
    assert DatasetExport.objects.count() == 1


def test_list_query_count_does_not_grow(api):
    campaigns = [make_campaign(images=1, name=f"c{i}", publish=False) for i in range(3)]

    def add(count: int) -> None:
        for _ in range(count):
            export = DatasetExport.objects.create(format="assignments-jsonl", status="done", records=1)
            export.campaigns.set(campaigns)

    add(2)
    small = queries_for(api, "/api/exports/")
    add(8)
    large = queries_for(api, "/api/exports/")
    body = api.get("/api/exports/").json()
    assert body["count"] == 10 and all(sorted(row["campaigns"]) == sorted(c.pk for c in campaigns)
                                       for row in body["results"])
    assert small == large


# --- building ----------------------------------------------------------------------------------------


def test_build_is_done_once_and_a_killed_job_starts_over(campaign, monkeypatch):
    fake_format(monkeypatch, "one-file", one_file)
    export = DatasetExport.objects.create(format="one-file", status=DatasetExport.Status.RUNNING)  # killed mid-way
    build_export(export)
    export.refresh_from_db()
    assert (export.status, export.records, export.counts) == ("done", 1, {"things": 1})
    first_file = export.file.name
    build_export(export)  # redelivered job: nothing to do
    export.refresh_from_db()
    assert export.file.name == first_file


def test_format_refusal_marks_the_export_failed(monkeypatch, media_root):
    def refuse(bundle, campaigns):
        raise ExportError("nothing to export")

    fake_format(monkeypatch, "refusing", refuse)
    export = build_export(DatasetExport.objects.create(format="refusing"))
    export.refresh_from_db()
    assert (export.status, export.error, export.file.name) == ("failed", "nothing to export", "")
    assert export.finished_at is not None
    assert not (media_root / "exports").exists() or not any((media_root / "exports").iterdir())


def test_unexpected_error_marks_the_export_failed_and_is_raised(monkeypatch, media_root):
    def crash(bundle, campaigns):
        bundle.write_text("part.txt", "half")
        raise RuntimeError("disk on fire")

    fake_format(monkeypatch, "crashing", crash)
    export = DatasetExport.objects.create(format="crashing")
    with pytest.raises(RuntimeError, match="disk on fire"):
        build_export(export)
    export.refresh_from_db()
    assert (export.status, export.error, export.file.name) == ("failed", "RuntimeError: disk on fire", "")
    assert not (media_root / "exports").exists() or not any((media_root / "exports").iterdir())


def test_write_export_refuses_campaigns_of_another_task_kind(monkeypatch, campaign):
    fake_format(monkeypatch, "boxes-only", one_file, kinds=("draw_boxes",))
    other = make_campaign(images=1, name="describe park")
    target = io.BytesIO()
    with pytest.raises(ExportError) as caught:
        write_export("boxes-only", target, [campaign, other])
    assert str(caught.value) == "format 'boxes-only' exports draw_boxes campaigns, not: describe street, describe park"
    assert target.getvalue() == b""  # nothing written
    # A format without `kinds` exports any campaign.
    assert write_export("assignments-jsonl", io.BytesIO(), [campaign]).records == 2


def test_requesting_a_wrong_kind_export_is_refused_and_stores_nothing(api, monkeypatch, campaign,
                                                                      django_capture_on_commit_callbacks):
    fake_format(monkeypatch, "boxes-only", one_file, kinds=("draw_boxes",))
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/exports/", {"format": "boxes-only", "campaigns": [campaign.pk]}, format="json")
    assert response.status_code == 400
    assert response.json() == {"detail": "format 'boxes-only' exports draw_boxes campaigns, not: describe street"}
    assert not DatasetExport.objects.exists()


# --- media: images are public, exports are not ------------------------------------------------------


def test_exports_are_not_served_as_media_but_images_are(client, campaign):
    export = DatasetExport.objects.create(format="assignments-jsonl")
    build_export(export)
    export.refresh_from_db()
    assert export.file.name.startswith("exports/") and export.file.storage.exists(export.file.name)
    assert client.get(f"/media/{export.file.name}").status_code == 404
    for sneaky in (f"/media/images/../{export.file.name}", f"/media/images/%2e%2e/{export.file.name}",
                   f"/media/images/./../{export.file.name}", f"/media/images%2F..%2F{export.file.name}"):
        assert client.get(sneaky).status_code == 404, sneaky
    image = make_image("public.png")
    response = client.get(image.original.url)
    assert image.original.url.startswith("/media/images/")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == image.original.open("rb").read()
