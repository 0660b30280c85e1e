"""Exports page, built exports: progress written during the build, the status endpoint, the download with the
browser's session, and the reports served from the zip with a strict Content-Security-Policy."""
from __future__ import annotations

import io
import zipfile

import pytest
from django.urls import reverse

from annotation.models import Concept
from mturk.datasets.formats import ExportBundle
from mturk.datasets.services import exports as export_service
from mturk.datasets.services.exports import ProgressRecorder, build_export, request_export
from mturk.models import DatasetExport
from tests.annotation.test_export_imageclef import build_dataset
from tests.queries import queries_for

pytestmark = pytest.mark.django_db

CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; "
       "frame-ancestors 'self'; sandbox")


@pytest.fixture
def built(researcher) -> DatasetExport:
    build_dataset()
    return build_export(request_export("imageclef", [], researcher))


def row_progress(pk: int) -> tuple[int, int | None]:
    return DatasetExport.objects.values_list("progress_done", "progress_total").get(pk=pk)


def test_progress_is_written_to_the_row_while_the_export_is_built(researcher, monkeypatch):
    build_dataset()  # two images: the card, each image, the content-selection report
    monkeypatch.setattr(export_service, "PROGRESS_INTERVAL_SECONDS", 0)
    export = request_export("imageclef", [], researcher)
    seen: list[tuple[int, int | None]] = []
    copy = ExportBundle.copy_stored_file

    def copy_and_look(bundle: ExportBundle, name: str, storage_name: str) -> None:
        seen.append(row_progress(export.pk))  # what the page would read at this moment
        copy(bundle, name, storage_name)

    monkeypatch.setattr(ExportBundle, "copy_stored_file", copy_and_look)
    export = build_export(export)
    assert seen == [(0, 4), (1, 4)]  # before each image file: the card's step and the images known, then one done
    assert export.status == DatasetExport.Status.DONE
    assert row_progress(export.pk) == (export.progress_done, export.progress_total) == (4, 4)


def test_progress_is_stored_a_few_times_a_second_at_most_but_always_at_the_end(researcher):
    export = DatasetExport.objects.create(format="imageclef")
    now = [100.0]
    record = ProgressRecorder(export.pk, interval=0.5, clock=lambda: now[0])
    record(0, 10)
    assert row_progress(export.pk) == (0, 10)
    now[0] += 0.1
    record(3, 10)  # too soon: not stored
    assert row_progress(export.pk) == (0, 10)
    now[0] += 0.5
    record(4, 10)
    assert row_progress(export.pk) == (4, 10)
    record(10, 10)  # the last step, however soon
    assert row_progress(export.pk) == (10, 10)


def test_a_rerun_starts_its_progress_over(researcher, monkeypatch):
    build_dataset()
    export = request_export("imageclef", [], researcher)
    DatasetExport.objects.filter(pk=export.pk).update(status=DatasetExport.Status.RUNNING, progress_done=7,
                                                      progress_total=9)
    seen: list[tuple[int, int | None]] = []
    original = ExportBundle.add_steps

    def look_first(bundle: ExportBundle, count: int) -> None:
        seen.append(row_progress(export.pk))
        original(bundle, count)

    monkeypatch.setattr(ExportBundle, "add_steps", look_first)
    build_export(export)
    assert seen[0] == (0, None)  # the killed run's progress was cleared when the job was claimed
    assert row_progress(export.pk) == (4, 4)


def test_sind_reports_its_progress_per_album_batch(monkeypatch):
    from storyboard.exports import sind
    from storyboard.services.workflow import create_story_workflow
    from storyboard.simulation import run_story_workflow
    from tests.factories import make_album

    campaigns = create_story_workflow("Stories", [make_album(6) for _ in range(3)], publish=True, is_simulated=True)
    run_story_workflow(campaigns, seed=3)
    monkeypatch.setattr(sind, "BATCH", 1)
    seen: list[tuple[int, int]] = []
    from mturk.datasets.formats import write_export

    write_export("sind", io.BytesIO(), [], {"report_sample": 0}, lambda done, total: seen.append((done, total)))
    done_values = [done for done, _ in seen]
    assert done_values == sorted(done_values) and len(set(done_values)) > 3  # it advanced, step by step
    final_total = seen[-1][1]
    assert seen[-1] == (final_total, final_total) and final_total >= 1 + 3 + 1  # card, each album's stories, report


def test_status_endpoint_reports_state_progress_and_links(researcher_client, built):
    queued = DatasetExport.objects.create(format="coco", progress_done=1, progress_total=4)
    body = researcher_client.get(reverse("export-status", args=[queued.pk])).json()
    assert body == {"id": queued.pk, "status": "queued", "status_label": "Queued", "done": 1, "total": 4,
                    "percent": 25, "records": None, "error": "", "download_url": None, "reports": []}
    body = researcher_client.get(reverse("export-status", args=[built.pk])).json()
    # records: the 6 boxes and 5 descriptions written
    assert (body["status"], body["percent"], body["done"], body["total"], body["records"]) == ("done", 100, 4, 4, 11)
    assert body["download_url"] == f"/api/exports/{built.pk}/download/"
    assert [r["name"] for r in body["reports"]] == ["README.md", "content_selection.html", "content_selection.json",
                                                    "crowd.json"]
    assert body["reports"][1]["url"] == f"/exports/{built.pk}/report/content_selection.html"


def test_the_zip_downloads_with_the_browsers_session(researcher_client, built):
    response = researcher_client.get(f"/api/exports/{built.pk}/download/")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert "descriptions.tsv" in archive.namelist()


def test_the_report_is_served_from_the_zip_with_a_strict_policy(researcher_client, built):
    response = researcher_client.get(reverse("export-report", args=[built.pk, "content_selection.html"]))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert response["Content-Security-Policy"] == CSP
    assert response["X-Content-Type-Options"] == "nosniff"
    archive = zipfile.ZipFile(built.file.open("rb"))
    stored = archive.read("report/content_selection.html").decode()
    back = '<nav aria-label="Back" style="margin: 0 0 1rem; font-size: .95rem;"><a href="/exports/" target="_top">'
    assert response.content.decode() == stored.replace("<body>", f"<body>{back}\u2190 Exports</a></nav>", 1)
    assert b"<svg" in response.content
    framed = researcher_client.get(reverse("export-report", args=[built.pk, "content_selection.html"]),
                                   headers={"Sec-Fetch-Dest": "iframe"})
    assert framed.content.decode() == stored  # in a frame, the page around it is the way back

    data = researcher_client.get(reverse("export-report", args=[built.pk, "crowd.json"]))
    assert data["Content-Type"] == "application/json; charset=utf-8" and data["Content-Security-Policy"] == CSP


def test_crowd_text_in_a_report_is_escaped(researcher, researcher_client):
    images = build_dataset()
    Concept.objects.filter(name="boot").update(name="<script>alert(1)</script>")
    export = build_export(request_export("imageclef", [], researcher))
    assert images and export.status == DatasetExport.Status.DONE
    html = researcher_client.get(reverse("export-report", args=[export.pk, "content_selection.html"])).content
    assert b"<script>" not in html and b"&lt;script&gt;alert(1)&lt;/script&gt;" in html


@pytest.mark.parametrize("name", ["nope.html", "descriptions.tsv", "..%2Fdescriptions.tsv", "report"])
def test_a_name_that_is_not_a_report_in_the_zip_is_not_found(researcher_client, built, name):
    assert researcher_client.get(f"/exports/{built.pk}/report/{name}").status_code == 404


def test_an_export_not_built_has_no_report(researcher_client):
    export = DatasetExport.objects.create(format="imageclef", status=DatasetExport.Status.RUNNING)
    assert researcher_client.get(reverse("export-report", args=[export.pk, "README.md"])).status_code == 404


def test_done_exports_are_listed_with_download_and_report_links(researcher_client, built):
    page = researcher_client.get(reverse("exports")).content.decode()
    assert f'<a href="/api/exports/{built.pk}/download/" download>Download zip of export #{built.pk}</a>' in page
    assert f'aria-label="Reports of export #{built.pk}"' in page
    assert f'href="/exports/{built.pk}/report/content_selection.html"' in page
    assert '<td data-label="Records" class="export-records">11</td>' in page  # 6 boxes and 5 descriptions


def test_query_count_is_the_same_for_2_or_20_built_exports(researcher_client, built):
    def copies(count: int) -> None:
        for _ in range(count):
            DatasetExport.objects.create(format=built.format, status=built.status, file=built.file.name,
                                         records=built.records, progress_done=4, progress_total=4)

    copies(1)
    few = queries_for(researcher_client, reverse("exports"))
    copies(18)
    assert queries_for(researcher_client, reverse("exports")) == few
