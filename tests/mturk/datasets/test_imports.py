"""Import jobs (mturk/datasets/services/imports.py): the upload is checked before anything is stored, the job runs its
importer with throttled progress, stores the report or a clear error, and a redelivered job starts over."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import Image
from mturk import importers
from mturk.datasets.services import imports as service
from mturk.datasets.services.imports import request_import, run_import
from mturk.importers import Importer, ImportProblems, ImportRefused
from mturk.models.imports import ImportJob
from tests.factories import image_bytes
from tests.importing import write_zip

pytestmark = pytest.mark.django_db


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data)


def zipped(tmp_path: Path, files: dict[str, bytes]) -> bytes:
    return write_zip(tmp_path / "upload.zip", files).read_bytes()


def stored(media_root: Path) -> list[Path]:
    return sorted(p for p in (media_root / "imports").rglob("*") if p.is_file()) if (media_root / "imports").exists() \
        else []


def test_an_image_zip_is_stored_then_imported_by_the_job(media_root, researcher, tmp_path,
                                                          django_capture_on_commit_callbacks):
    data = zipped(tmp_path, {"a.jpg": image_bytes("JPEG"), "b.png": image_bytes(),
                             "broken.jpg": image_bytes("JPEG")[:200]})
    with django_capture_on_commit_callbacks(execute=True):
        job = request_import("images", [upload("photos.zip", data)], user=researcher)
    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE and job.original_name == "photos.zip"
    assert job.created_by == researcher and job.finished_at is not None
    assert (job.done, job.total) == (3, 3)
    assert [row["name"] for row in job.report["imported"]] == ["a.jpg", "b.png"]
    assert [row["name"] for row in job.report["refused"]] == ["broken.jpg"]
    assert "truncated" in job.report["refused"][0]["reason"]
    assert Image.objects.count() == 2
    assert len(stored(media_root)) == 1


def test_several_files_are_packed_into_one_zip_keeping_both_of_two_same_names(researcher,
                                                                              django_capture_on_commit_callbacks):
    files = [upload("x.png", image_bytes()), upload("x.png", image_bytes()), upload("y.jpg", image_bytes("JPEG"))]
    with django_capture_on_commit_callbacks(execute=True):
        job = request_import("images", files, user=researcher)
    job.refresh_from_db()
    assert job.original_name == "3 files" and job.file.name.endswith(".zip")
    assert sorted(row["name"] for row in job.report["imported"]) == ["x-2.png", "x.png", "y.jpg"]


def mixed_files() -> list[SimpleUploadedFile]:
    """Two real images, a text file and a damaged JPEG, as a researcher chooses them on the Imports page."""
    return [upload("kitchen.jpg", image_bytes("JPEG")), upload("notes.txt", b"shopping list"),
            upload("street.png", image_bytes()), upload("broken.jpg", b"\xff\xd8garbage bytes")]


def test_several_files_with_bad_ones_import_the_good_and_name_each_bad_with_its_reason(
        media_root, researcher, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job = request_import("images", mixed_files(), user=researcher)
    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE and job.original_name == "4 files"
    assert sorted(row["name"] for row in job.report["imported"]) == ["kitchen.jpg", "street.png"]
    assert sorted(Image.objects.values_list("original_name", flat=True)) == ["kitchen.jpg", "street.png"]
    reasons = {row["name"]: row["reason"] for row in job.report["refused"]}
    assert reasons == {"broken.jpg": "not an image (or not a format Pillow can read)",
                       "notes.txt": "not an image (or not a format Pillow can read)"}
    assert job.report["counts"] == {"imported": 2, "already known": 0, "refused": 2}


def test_several_files_all_bad_by_their_bytes_fail_the_job_naming_each(researcher,
                                                                       django_capture_on_commit_callbacks):
    files = [upload("notes.txt", b"shopping list"), upload("broken.jpg", b"\xff\xd8garbage bytes")]
    with django_capture_on_commit_callbacks(execute=True):
        job = request_import("images", files, user=researcher)
    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED and "nothing was imported" in job.error
    assert sorted(row["name"] for row in job.report["refused"]) == ["broken.jpg", "notes.txt"]
    assert all(row["reason"] for row in job.report["refused"])
    assert not Image.objects.exists()


def test_several_files_all_of_a_wrong_type_or_size_are_refused_naming_each_and_store_nothing(media_root, settings):
    settings.IMAGE_MAX_BYTES = 100
    files = [upload("notes.txt", b"shopping list"), upload("big.png", image_bytes(size=(200, 200))),
             upload("empty.jpg", b"")]
    with pytest.raises(ImportRefused) as refused:
        request_import("images", files)
    message = str(refused.value)
    assert "notes.txt: not an accepted file type" in message
    assert "big.png: the file is" in message and "over the limit of 100 bytes" in message
    assert "empty.jpg: the file is empty" in message
    assert ImportJob.objects.count() == 0 and stored(media_root) == []


def test_a_file_over_the_size_limit_among_good_ones_is_refused_by_name_in_the_report(
        settings, django_capture_on_commit_callbacks):
    settings.IMAGE_MAX_BYTES = 2000
    files = [upload("small.png", image_bytes()), upload("big.jpg", image_bytes("JPEG", size=(400, 400)))]
    assert files[0].size <= 2000 < files[1].size
    with django_capture_on_commit_callbacks(execute=True):
        job = request_import("images", files)
    job.refresh_from_db()
    assert [row["name"] for row in job.report["imported"]] == ["small.png"]
    assert job.report["refused"] == [{"name": "big.jpg", "reason": "file is over the limit of 2000 bytes"}]


@pytest.mark.parametrize(("importer", "files", "message"), [
    ("images", [("notes.txt", b"hello")], "not an accepted file type"),
    ("albums", [("a.jpg", b"x")], "not an accepted file type"),
    ("images", [], "choose a file"),
    ("coco", [("a.zip", b"PK"), ("b.json", b"x")], "imported on its own"),
    ("coco", [("a.json", b"x"), ("b.txt", b"y")], "b.txt: not an accepted file type"),
    ("concepts", [("a.tsv", b"x"), ("b.tsv", b"y")], "takes one file"),
    ("images", [("empty.png", b"")], "empty"),
    ("nonsense", [("a.png", b"x")], "unknown importer"),
])
def test_a_refused_upload_stores_nothing(media_root, importer, files, message):
    with pytest.raises(ImportRefused, match=message):
        request_import(importer, [upload(name, data) for name, data in files])
    assert ImportJob.objects.count() == 0 and stored(media_root) == []


def test_a_file_over_the_size_limit_is_refused_before_it_is_stored(media_root, settings):
    settings.IMAGE_MAX_BYTES = 100
    with pytest.raises(ImportRefused, match="over the limit of 100 bytes"):
        request_import("images", [upload("big.png", image_bytes(size=(200, 200)))])
    assert ImportJob.objects.count() == 0 and stored(media_root) == []


def test_options_are_checked_before_anything_is_stored(media_root):
    with pytest.raises(ImportRefused, match="has no option colour"):
        request_import("concepts", [upload("c.tsv", b"x")], {"colour": "red"})
    with pytest.raises(ImportRefused, match="not one of the choices"):
        request_import("images", [upload("a.png", image_bytes())], {"campaign": "999"})
    with pytest.raises(ImportRefused, match="at most 100 characters"):
        request_import("concepts", [upload("c.tsv", b"x")], {"vocabulary": "v" * 101})
    assert ImportJob.objects.count() == 0 and stored(media_root) == []


def test_the_vocabulary_defaults_to_the_file_name(django_capture_on_commit_callbacks):
    tsv = "name\tsynset\tsynonyms\tparent\ndog\tdog.n.01\t\t\n"
    job = request_import("concepts", [upload("animals.tsv", tsv.encode())])
    assert job.options == {"vocabulary": "animals"}


def fake_importer(monkeypatch, run: Any) -> None:
    monkeypatch.setitem(importers._IMPORTERS._items, "fake", Importer("fake", "fake things", "", (".txt",), run))


def test_an_all_or_nothing_failure_stores_each_problem_and_a_clear_error(monkeypatch):
    def run(path: Path, options: dict, progress: Any) -> dict:
        raise ImportProblems.from_messages(["boxes.tsv line 7: unknown concept 'wolf'", "no place given"])

    fake_importer(monkeypatch, run)
    job = request_import("fake", [upload("data.txt", b"x")])
    run_import(job)
    assert job.status == ImportJob.Status.FAILED
    assert job.error == "2 problem(s); nothing was imported"
    assert job.report["refused"] == [{"name": "boxes.tsv line 7", "reason": "unknown concept 'wolf'"},
                                     {"name": "", "reason": "no place given"}]


def test_an_unexpected_error_fails_the_job_with_its_message_and_is_raised(monkeypatch):
    def run(path: Path, options: dict, progress: Any) -> dict:
        raise RuntimeError("disk on fire")

    fake_importer(monkeypatch, run)
    job = request_import("fake", [upload("data.txt", b"x")])
    with pytest.raises(RuntimeError):
        run_import(job)
    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED and "RuntimeError: disk on fire" in job.error


def test_the_importer_reads_a_local_copy_named_like_the_upload(monkeypatch):
    seen: list[tuple[str, bytes, dict]] = []

    def run(path: Path, options: dict, progress: Any) -> dict:
        seen.append((path.name, path.read_bytes(), options))
        return {"summary": "ok"}

    fake_importer(monkeypatch, run)
    run_import(request_import("fake", [upload("my data.txt", b"content")]))
    assert seen == [("my data.txt", b"content", {})]


def test_a_redelivered_job_starts_over_and_a_finished_one_is_left_alone(monkeypatch):
    calls: list[int] = []

    def run(path: Path, options: dict, progress: Any) -> dict:
        calls.append(1)
        progress(len(calls), 5)
        return {"summary": f"run {len(calls)}"}

    fake_importer(monkeypatch, run)
    job = request_import("fake", [upload("data.txt", b"x")])
    ImportJob.objects.filter(pk=job.pk).update(status=ImportJob.Status.RUNNING, done=4, total=9,
                                               report={"summary": "half"}, error="old")
    run_import(job)  # a killed worker's job, delivered again
    assert (job.status, job.report, job.error, job.done, job.total) == ("done", {"summary": "run 1"}, "", 5, 5)
    run_import(job)  # delivered once more after it finished: nothing happens
    job.refresh_from_db()
    assert calls == [1] and job.report == {"summary": "run 1"}


def test_progress_is_written_at_most_every_interval_and_always_at_the_end():
    job = ImportJob.objects.create(importer="images", file="imports/x.zip", original_name="x.zip")
    clock = iter([10.0, 10.1, 10.2, 10.4, 10.45])  # seconds when each of the five files is done
    writer = service._ProgressWriter(job, clock=lambda: next(clock))
    seen = []
    with CaptureQueriesContext(connection) as queries:
        for done in (1, 2, 3, 4, 5):
            writer(done, 5)
            seen.append(ImportJob.objects.values_list("done", flat=True).get(pk=job.pk))
    assert seen == [1, 1, 1, 4, 5]
    assert sum(q["sql"].startswith("UPDATE") for q in queries.captured_queries) == 3
