"""Exports page on S3: a report is read from the stored zip by byte ranges, never by copying the zip first."""
from __future__ import annotations

import io
import zipfile

import pytest
from django.urls import reverse
from storages.backends.s3 import S3File

from annotation.models import Concept
from annotation.services.boxes import BoxSpec, add_boxes
from annotation.services.images import import_image_bytes
from mturk.datasets.services.exports import build_export, request_export
from mturk.models import DatasetExport
from tests.factories import image_bytes, label_vocabulary
from tests.test_s3_storage import bucket, on_s3, s3_endpoint, s3_env, stored  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db(transaction=True)


def test_reports_are_read_from_the_zip_on_s3_by_ranges(researcher_client, researcher, on_s3, bucket,  # noqa: F811
                                                       monkeypatch):
    image, _ = import_image_bytes("one.png", image_bytes("PNG", size=(300, 200)))
    add_boxes(image, [BoxSpec(Concept.objects.create(vocabulary=label_vocabulary(),
                                                     name="sky").pk, 0, 0, 300, 50)], source="gold")
    export = build_export(request_export("imageclef", [], researcher))
    assert export.status == DatasetExport.Status.DONE, export.error
    archive = zipfile.ZipFile(io.BytesIO(stored(bucket, export.file.name)[0]))

    def copy_whole_object(self):
        raise AssertionError(f"{self.name} was copied whole into the web process")

    monkeypatch.setattr(S3File, "file", property(copy_whole_object))
    report = researcher_client.get(reverse("export-report", args=[export.pk, "content_selection.html"]),
                                   headers={"Sec-Fetch-Dest": "iframe"})  # framed: served as stored, no back link
    assert report.status_code == 200 and report.content == archive.read("report/content_selection.html")
    card = researcher_client.get(reverse("export-report", args=[export.pk, "README.md"])).content.decode()
    assert "<h1>Dataset: imageclef export</h1>" in card  # the card as HTML
    status = researcher_client.get(reverse("export-status", args=[export.pk])).json()
    assert [r["name"] for r in status["reports"]] == ["README.md", "content_selection.html", "content_selection.json",
                                                      "crowd.json"]
