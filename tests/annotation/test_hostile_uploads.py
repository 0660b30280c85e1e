"""Hostile uploads on the grounded importers and the ranking submissions: a zip bomb member, a member lying about
its size or CRC, NumPy headers claiming huge shapes or holding objects. Each is refused with a clear message
naming the file, and nothing changes."""
from __future__ import annotations

import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Image
from annotation.ranking.models import RankingSubmission
from mturk.importers import ImportProblems, get_importer
from tests.annotation.ranking.pool import SCORES, build_pool, npy
from tests.annotation.test_coco_import import CAPTIONS, INSTANCES, nothing_written
from tests.annotation.test_import_imageclef import TEXT_FILES, counts, jpeg_b, png_a
from tests.factories import image_bytes
from tests.hostile_zips import bomb_zip, npy_header, npz_of, object_npy, patch_member
from tests.importing import Steps, write_zip

pytestmark = pytest.mark.django_db

MiB = 1024 * 1024


def imageclef_files() -> dict[str, bytes]:
    files = {name: text.encode() for name, text in TEXT_FILES.items()}
    return {**files, "images/img-a.png": png_a(), "images/img-b.jpg": jpeg_b()}


def test_an_imageclef_table_expanding_past_its_limit_is_refused_and_nothing_changes(tmp_path, settings):
    settings.IMPORT_MAX_DOCUMENT_BYTES = 256 * 1024
    others = {name: data for name, data in imageclef_files().items() if name != "descriptions.tsv"}
    row = b"img-a\t1\tcrowd\tno\tA red car.\n"
    upload = bomb_zip(tmp_path / "dataset.zip", "descriptions.tsv", 50 * MiB, line=row, others=others)
    assert upload.stat().st_size < 200_000
    with pytest.raises(ImportProblems) as refused:
        get_importer("imageclef").run(upload, {"vocabulary": "dataset", "set": "dataset", "tags": ""}, Steps())
    assert ("descriptions.tsv", "expands past the limit of 262144 bytes") in refused.value.problems
    assert counts() == dict.fromkeys(counts(), 0)


def test_an_imageclef_dataset_of_wrong_lines_lists_fifty_problems_and_counts_the_others(tmp_path):
    files = imageclef_files()
    files["boxes.tsv"] = files["boxes.tsv"] + b"x\n" * 10_000
    with pytest.raises(ImportProblems) as refused:
        get_importer("imageclef").run(write_zip(tmp_path / "d.zip", files), {"vocabulary": "d", "set": "d"}, Steps())
    wrong = [reason for name, reason in refused.value.problems if name.startswith("boxes.tsv line")]
    assert len(wrong) == 50 and wrong[0] == "expected 7 tab-separated columns, found 1"
    assert refused.value.problems[-1] == ("", "... and 9950 more problem(s)")
    assert counts() == dict.fromkeys(counts(), 0)


@pytest.mark.parametrize("lie", [{"file_size": 100}, {"file_size": 10_000_000}, {"crc": 7}],
                         ids=["smaller", "larger", "crc"])
def test_a_coco_zip_whose_entry_lies_is_refused_naming_it_and_nothing_is_written(tmp_path, lie):
    upload = tmp_path / "coco.zip"
    with zipfile.ZipFile(upload, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.write(CAPTIONS, "captions_train2014.json")
    patch_member(upload, **lie)
    with pytest.raises(ImportProblems) as refused:
        get_importer("coco").run(upload, {"subset": ""}, Steps())
    [(name, reason)] = refused.value.problems
    assert name == "captions_train2014.json" and reason.startswith("corrupt zip entry (")
    assert nothing_written()


def test_a_coco_member_expanding_past_the_entry_limit_is_refused(tmp_path, settings):
    settings.IMPORT_MAX_ENTRY_BYTES = MiB
    captions = json.loads(CAPTIONS.read_text())
    captions["padding"] = " " * (2 * MiB)
    upload = write_zip(tmp_path / "coco.zip", {"captions_train2014.json": json.dumps(captions).encode(),
                                               "instances_train2014.json": INSTANCES.read_bytes()})
    with pytest.raises(ImportProblems) as refused:
        get_importer("coco").run(upload, {"subset": ""}, Steps())
    assert refused.value.problems == [("captions_train2014.json", "expands past the limit of 1048576 bytes")]
    assert nothing_written()


def test_an_image_zip_keeps_the_good_images_and_names_the_lying_one(tmp_path):
    upload = write_zip(tmp_path / "both.zip", {"a.png": image_bytes("PNG", (10, 10)),
                                               "b.png": image_bytes("PNG", (12, 12))})
    patch_member(upload, crc=3, only="b.png")
    report = get_importer("images").run(upload, {"set": "s", "tags": ""}, Steps())
    assert report["counts"] == {"imported": 1, "already known": 0, "refused": 1}
    assert report["refused"] == [{"name": "b.png", "reason": "corrupt zip entry (Bad CRC-32 for file 'b.png')"}]
    assert list(Image.objects.values_list("original_name", flat=True)) == ["a.png"]


@pytest.mark.parametrize(("content", "name", "message"), [
    (npy_header((100_000, 100_000)), "s.npy",
     "s.npy: the array has shape (100000, 100000), expected (3, 6) (images, captions)"),
    (npz_of({"arr_0.npy": npy_header((12_000, 12_000), data=bytes(4 * MiB))}), "s.npz",
     "s.npz (arr_0.npy): the array has shape (12000, 12000), expected (3, 6) (images, captions)"),
    (npz_of({"arr_0.npy": object_npy()}), "s.npz", "s.npz (arr_0.npy): the array's type is object, not numeric"),
    (object_npy(), "s.npy", "s.npy: the array's type is object, not numeric"),
    (npy_header((3, 6)), "s.npy", "s.npy: the file ends before the array's 144 bytes"),
], ids=["npy-huge-header", "npz-of-zeros", "npz-object", "npy-object", "npy-truncated"])
def test_hostile_score_matrices_are_a_400_naming_the_file_and_nothing_is_stored(api, content, name, message):
    pool, _, _ = build_pool()
    answer = api.post(f"/api/test-pools/{pool.pk}/submissions/",
                      {"system": "s", "file": SimpleUploadedFile(name, content)}, format="multipart")
    assert answer.status_code == 400, answer.content
    assert answer.json()["errors"] == [message]
    assert not RankingSubmission.objects.exists()


def test_a_csv_score_matrix_with_a_huge_line_is_refused_by_line(api, settings):
    settings.IMPORT_MAX_LINE_BYTES = 1000
    pool, _, _ = build_pool()
    content = b"1,2,3,4,5,6\n" + b"1," * 2000 + b"1\n"
    answer = api.post(f"/api/test-pools/{pool.pk}/submissions/",
                      {"system": "s", "file": SimpleUploadedFile("s.csv", content)}, format="multipart")
    assert answer.status_code == 400 and answer.json()["errors"] == ["line 2: longer than 1000 bytes"]
    assert not RankingSubmission.objects.exists()
    good = api.post(f"/api/test-pools/{pool.pk}/submissions/",
                    {"system": "s", "file": SimpleUploadedFile("s.npy", npy(SCORES))}, format="multipart")
    assert good.status_code == 201, good.content
