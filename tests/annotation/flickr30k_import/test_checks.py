"""Flickr30k Entities import: problems named by file and line and nothing written; re-import adds nothing; a zip,
the image files, the console importer, the API, and a number of queries that does not grow with the images."""
from __future__ import annotations

import shutil

import pytest
from django.db import connection

from annotation.image_sets.models import ImageSet
from annotation.models import Box, Correspondence, Description, Image, ImageOrigin, WordLink
from annotation.services.flickr30k_import.importer import import_flickr30k
from annotation.services.flickr30k_import.source import Flickr30kImportError
from mturk.importers import ImportProblems, get_importer
from tests.factories import image_bytes

from .helpers import FIXTURE, release_copy, zipped

pytestmark = pytest.mark.django_db


def rows() -> tuple[int, ...]:
    return (Image.objects.count(), ImageOrigin.objects.count(), Box.objects.count(), Description.objects.count(),
            Correspondence.objects.count(), WordLink.objects.count(), ImageSet.objects.count())


def refused(folder) -> list[str]:
    with pytest.raises(Flickr30kImportError) as caught:
        import_flickr30k(folder)
    assert rows() == (0, 0, 0, 0, 0, 0, 0)
    return caught.value.errors


def spoil(folder, name: str, old: str, new: str) -> None:
    file = folder / name
    text = file.read_text()
    assert old in text
    file.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize(("name", "old", "new", "message"), [
    ("Sentences/1000000002.txt", "[/EN#5/other it]", "[/EN#5/other it",
     "Sentences/1000000002.txt line 2: malformed bracket: the phrase of entity 5 is not closed"),
    ("Sentences/1000000002.txt", "[/EN#5/other it]", "[/EN#5/other [/EN#2/animals it]",
     "Sentences/1000000002.txt line 2: malformed bracket: token 7 '[/EN#2/animals' opens a phrase inside another"),
    ("Sentences/1000000003.txt", "[/EN#1/people A woman]", "[EN#1/people A woman]",
     "Sentences/1000000003.txt line 2: malformed bracket: token 1 '[EN#1/people' is not a phrase opener"),
    ("Sentences/1000000004.txt", "sits .", "sits ] .",
     "Sentences/1000000004.txt line 4: malformed bracket: token 5 ']' closes no phrase"),
    ("Sentences/1000000004.txt", "[/EN#4/animals A sparrow]", "[/EN#12/animals A sparrow]",
     "Sentences/1000000004.txt line 5: unknown entity 12 (no <object> of the annotation file names it)"),
    ("Annotations/1000000004.xml", "<xmax>380</xmax>", "<xmax>402</xmax>",
     "Annotations/1000000004.xml line 17: box (200, 100, 402, 290) lies outside the image (400x300 px"),
    ("Annotations/1000000003.xml", "<xmin>101</xmin>", "<xmin>-1</xmin>",
     "Annotations/1000000003.xml line 8: box (-1, 21, 330, 375) lies outside the image"),
    ("Annotations/1000000002.xml", "</bndbox>", "</bndbx>",
     "Annotations/1000000002.xml line 16: bad XML (mismatched tag)"),
    ("Annotations/1000000002.xml", "<ymin>210</ymin>", "<ymin>2x0</ymin>",
     "Annotations/1000000002.xml line 13: <ymin> must be a whole number, got '2x0'"),
    ("Annotations/1000000001.xml", "<nobndbox>1</nobndbox>", "",
     "Annotations/1000000001.xml line 50: an <object> with neither <bndbox> nor <nobndbox>1 / <scene>1"),
])
def test_a_problem_names_file_and_line_and_nothing_is_written(tmp_path, name, old, new, message):
    folder = release_copy(tmp_path)
    spoil(folder, name, old, new)
    errors = refused(folder)
    assert any(error.startswith(message) for error in errors), errors


def test_a_box_sticking_out_by_one_pixel_is_clipped_inside_the_image_and_counted(tmp_path):
    folder = release_copy(tmp_path)
    spoil(folder, "Annotations/1000000004.xml", "<xmax>380</xmax>", "<xmax>401</xmax>")  # 400 px wide
    spoil(folder, "Annotations/1000000003.xml", "<xmin>101</xmin>", "<xmin>0</xmin>")
    summary = import_flickr30k(folder)
    assert summary.boxes_clipped == 2 and "2 box(es) sticking out of the image by a pixel clipped" in str(summary)
    wide = Box.objects.get(image__key="1000000004", x=199, y=99)
    assert wide.x + wide.width == 400
    assert Box.objects.filter(image__key="1000000003", x=0, y=20, width=330, height=355).exists()


def test_every_problem_is_listed_and_files_must_pair(tmp_path):
    folder = release_copy(tmp_path)
    spoil(folder, "Sentences/1000000001.txt", "[/EN#8/scene the city]", "[/EN#8/scene the city")
    (folder / "Annotations" / "1000000003.xml").unlink()
    (folder / "val.txt").write_text("1000000004\n")
    errors = refused(folder)
    assert errors == [
        "Sentences/1000000003.txt: no Annotations/1000000003.xml",
        "test.txt line 1: image 1000000004 is already in val.txt line 1",
        "Sentences/1000000001.txt line 3: malformed bracket: the phrase of entity 8 is not closed",
    ]


def test_re_import_adds_nothing_and_gives_the_same_rows():
    first = import_flickr30k(FIXTURE)
    before = rows()
    again = import_flickr30k(FIXTURE)
    assert rows() == before == (4, 4, 9, 20, 18, 53, 1)
    assert (again.images_skipped, again.boxes, again.descriptions, again.images_by_reference) == (4, 0, 0, 0)
    assert first.images_by_reference == 4 and "already imported" in str(again)


def test_a_zip_with_a_top_folder_and_the_image_files(tmp_path):
    folder = release_copy(tmp_path)
    (folder / "flickr30k-images").mkdir()
    (folder / "flickr30k-images" / "1000000004.jpg").write_bytes(image_bytes(fmt="JPEG", size=(400, 300)))
    summary = import_flickr30k(zipped(folder, tmp_path / "annotations.zip", top="flickr30k_entities/"))
    assert (summary.images_with_file, summary.images_by_reference) == (1, 3)
    assert Image.objects.get(key="1000000004").has_file
    assert not Image.objects.get(key="1000000003").has_file


def test_an_image_file_of_another_size_is_refused(tmp_path):
    images = tmp_path / "images"
    images.mkdir()
    (images / "1000000003.jpg").write_bytes(image_bytes(fmt="JPEG", size=(50, 40)))
    with pytest.raises(Flickr30kImportError) as caught:
        import_flickr30k(FIXTURE, images=images)
    assert caught.value.errors == ["Annotations/1000000003.xml: the image file 1000000003.jpg is 50x40 px, not "
                                   "500x375 as <size> says"]
    assert not Image.objects.exists()


def test_queries_do_not_grow_with_the_images(tmp_path):
    small, large = tmp_path / "small", tmp_path / "large"
    shutil.copytree(FIXTURE, small)
    shutil.copytree(FIXTURE, large)
    for index in range(5, 41):  # 36 more images like the fourth
        key = f"10000000{index:02d}"
        for folder, suffix in (("Sentences", "txt"), ("Annotations", "xml")):
            text = (FIXTURE / folder / f"1000000004.{suffix}").read_text().replace("1000000004", key)
            (large / folder / f"{key}.{suffix}").write_text(text)
    import_flickr30k(small)  # the vocabulary, its concepts and the collection exist from now on
    counted = []
    for folder in (small, large):
        Image.objects.all().delete()
        statements: list[str] = []

        def count(execute, sql, params, many, context, statements=statements):  # the import empties the log
            statements.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            import_flickr30k(folder)
        counted.append(len(statements))
    assert Image.objects.count() == 40 and Box.objects.count() == 2 * 37 + 7
    # 36 more images, not 36 more queries: SQLite splits a bulk insert at 999 parameters (about 100 rows), the
    # only growth; PostgreSQL takes each batch in one statement
    assert counted[0] == 20
    assert counted[0] <= counted[1] <= counted[0] + (3 if connection.vendor == "sqlite" else 0)


def test_the_console_importer_reports_counts_or_problems(tmp_path):
    archive = zipped(FIXTURE, tmp_path / "annotations.zip")
    importer = get_importer("flickr30k")
    options = importer.check_options({}, "annotations.zip")
    assert (options["set"], options["vocabulary"]) == ("Flickr30k Entities", "flickr30k")
    report = importer.run(archive, options, lambda done, total: None)
    assert report["counts"]["boxes"] == 9 and report["counts"]["phrases notvisual"] == 2
    assert report["image_set"] == "Flickr30k Entities"
    folder = release_copy(tmp_path)
    spoil(folder, "Sentences/1000000004.txt", "[/EN#4/animals A sparrow]", "[/EN#13/animals A sparrow]")
    with pytest.raises(ImportProblems) as caught:
        importer.run(zipped(folder, tmp_path / "bad.zip"), options, lambda done, total: None)
    assert caught.value.problems == [("Sentences/1000000004.txt line 5",
                                      "unknown entity 13 (no <object> of the annotation file names it)")]


def test_the_api_imports_a_zip_in_a_job_and_a_bad_one_fails_naming_the_problem(api, tmp_path,
                                                                               django_capture_on_commit_callbacks):
    archive = zipped(FIXTURE, tmp_path / "annotations.zip")
    with archive.open("rb") as handle, django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/imports/", {"importer": "flickr30k", "file": handle, "set": "F30k"},
                            format="multipart")
    assert response.status_code == 202, response.content
    job = api.get(f"/api/imports/{response.json()['id']}/").json()
    assert job["status"] == "done" and job["options"]["set"] == "F30k"
    assert job["report"]["counts"]["descriptions"] == 20 and job["report"]["image_set"] == "F30k"
    assert ImageSet.objects.get(name="F30k").source == "flickr30k"
    folder = release_copy(tmp_path)
    spoil(folder, "Annotations/1000000002.xml", "<width>375</width>", "<width>375</wdth>")
    Image.objects.all().delete()
    with zipped(folder, tmp_path / "b.zip").open("rb") as handle, django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/imports/", {"importer": "flickr30k", "file": handle}, format="multipart")
    job = api.get(f"/api/imports/{response.json()['id']}/").json()
    assert job["status"] == "failed" and "nothing was imported" in job["error"]
    assert job["report"]["refused"] == [{"name": "Annotations/1000000002.xml line 4",
                                         "reason": "bad XML (mismatched tag)"}]
    assert not Image.objects.exists()
