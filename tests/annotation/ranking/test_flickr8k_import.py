"""import_flickr8k: the hand-written release in tests/fixtures/flickr8k/ (the released layout and its quirks: split
files without a final newline, an image named `<id>_<secret>.jpg.1`, an image in no split, a fraction written
to 15 digits) imported, exported as flickr8k, and compared line by line; refusals name file and line and change
nothing; a second import adds nothing."""
from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.image_sets.models import ImageSet
from annotation.models import Description, Image, ImageOrigin
from annotation.ranking.models import CaptionJudgement, PoolCaption, PoolImage, TestPool
from annotation.ranking.services.flickr8k_import import Flickr8kImportError, import_flickr8k, open_release
from annotation.ranking.services.judgement_import import JudgementImportError, import_judgements
from mturk.datasets.formats import run_export

pytestmark = pytest.mark.django_db

RELEASE = Path(__file__).parents[2] / "fixtures" / "flickr8k" / "release"
TEXT = RELEASE / "Flickr8k_text"
NAMES = ["Flickr8k.token.txt", "Flickr_8k.trainImages.txt", "Flickr_8k.devImages.txt", "Flickr_8k.testImages.txt",
         "ExpertAnnotations.txt", "CrowdFlowerAnnotations.txt"]


def released(name: str, folder: Path = TEXT) -> list[str]:
    return sorted(line for line in (folder / name).read_text(encoding="utf-8-sig").splitlines() if line)


def crowd_fields(lines: list[str]) -> list[tuple[str, str, float, str, str]]:
    """The crowd file's fields, the fraction as a number (the release writes 15 digits, the export 6)."""
    rows = [line.split("\t") for line in lines]
    return sorted((i, c, round(float(f), 6), y, n) for i, c, f, y, n in rows)


def export(tmp_path: Path, name: str = "out.zip") -> dict[str, list[str]]:
    run_export("flickr8k", tmp_path / name, [], {})
    with zipfile.ZipFile(tmp_path / name) as archive:
        return {n: sorted(line for line in archive.read(n).decode().splitlines() if line)
                for n in NAMES}


def run(folder: Path = RELEASE, **options: str) -> str:
    out = io.StringIO()
    call_command("import_flickr8k", str(folder), stdout=out, **options)
    return out.getvalue()


def table_counts() -> tuple[int, ...]:
    return (Image.objects.count(), ImageOrigin.objects.count(), Description.objects.count(),
            CaptionJudgement.objects.count(), TestPool.objects.count())


def test_the_release_is_imported_as_released():
    output = run(test_pool="Flickr8k test")
    assert "images: 4" in output and "train images: 2" in output and "images in no split: 1" in output
    origins = {o.name: (o.external_id, o.subset, o.image.key, o.image.original)
               for o in ImageOrigin.objects.select_related("image")}
    assert origins == {
        "1000001_aaaa1111aa.jpg": (1000001, "train", "1000001_aaaa1111aa", ""),
        "2000002_bbbb2222bb.jpg": (2000002, "train", "2000002_bbbb2222bb", ""),
        "3000003_cccc3333cc.jpg.1": (3000003, "", "3000003_cccc3333cc.jpg", ""),  # by reference, in no split
        "4000004_dddd4444dd.jpg": (4000004, "test", "4000004_dddd4444dd", ""),
    }
    assert Description.objects.filter(source="flickr8k").count() == 20
    first = Description.objects.get(external_id=10000010)  # Flickr id and #0
    assert (first.text, first.tokens[:2]) == ("A black dog runs on the grass .", ["A", "black"])
    umbrella = Image.objects.get(key="4000004_dddd4444dd")
    caption = Description.objects.get(external_id=40000042)
    experts = CaptionJudgement.objects.filter(image=umbrella, description=caption, grade__isnull=False)
    assert sorted(experts.values_list("judge", "grade")) == [("expert 1", 4), ("expert 2", 4), ("expert 3", 3)]
    votes = CaptionJudgement.objects.filter(image=umbrella, description=Description.objects.get(external_id=30000031))
    assert sorted(votes.values_list("judge", "relevant")) == [("CrowdFlower", False), ("CrowdFlower", True),
                                                              ("CrowdFlower", True)]
    assert CaptionJudgement.objects.count() == 9 + 3 + 3 + 3 + 4
    image_set = ImageSet.objects.get(name="Flickr8k")
    assert image_set.source == "flickr8k" and "Please cite: M. Hodosh" in image_set.licence
    assert image_set.members.count() == 4
    pool = TestPool.objects.get(name="Flickr8k test")
    assert list(PoolImage.objects.filter(pool=pool).values_list("image_id", flat=True)) == [umbrella.pk]
    assert PoolCaption.objects.filter(pool=pool).count() == 5


def test_import_then_export_gives_the_released_lines(tmp_path: Path):
    run()
    files = export(tmp_path)
    for name in NAMES[:5]:
        assert files[name] == released(name), name
    assert crowd_fields(files["CrowdFlowerAnnotations.txt"]) == crowd_fields(released("CrowdFlowerAnnotations.txt"))


def test_export_then_import_then_export_is_identical(tmp_path: Path):
    run()
    first = export(tmp_path, "first.zip")
    folder = tmp_path / "again"
    folder.mkdir()
    for name, lines in first.items():
        (folder / name).write_text("".join(f"{line}\n" for line in lines))
    # a fresh platform: the export's own files imported back
    CaptionJudgement.objects.all().delete()
    Description.objects.all().delete()
    ImageSet.objects.all().delete()
    Image.objects.all().delete()
    run(folder)
    assert export(tmp_path, "second.zip") == first


def test_a_second_import_adds_nothing():
    run(test_pool="p")
    before = table_counts()
    output = run(test_pool="p")
    assert table_counts() == before
    assert "images already known: 4" in output and "captions already known: 20" in output
    assert "expert grades already known: 9" in output and "crowd votes already known: 13" in output


def test_a_zip_with_a_flicker8k_dataset_folder_is_read(tmp_path: Path):
    path = tmp_path / "release.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name in NAMES:
            archive.write(TEXT / name, f"Flickr8k_text/{name}")
        archive.writestr("__MACOSX/Flickr8k_text/._Flickr8k.token.txt", b"\x00\x05junk")
    summary = import_flickr8k(open_release(path))
    assert summary.counts["images by reference"] == 4 and summary.counts["crowd votes"] == 13


def test_odd_captions_keep_their_words_single_spaced():
    summary = import_flickr8k(open_release(RELEASE.parent / "odd"))
    assert summary.counts["captions"] == 3
    assert summary.notes == ["2 caption(s) had extra tabs or spaces: stored single-spaced"]
    texts = list(Description.objects.order_by("external_id").values_list("text", flat=True))
    assert texts == ["A cat sleeps on a sofa .", "A grey cat on a couch .", "A sleeping cat ."]


@pytest.mark.parametrize("file, content, error", [
    ("Flickr8k.token.txt", "1000001_aaaa1111aa.jpg#0 no tab here\n",
     "Flickr8k.token.txt: line 1: expected `<image file>#<n>` TAB caption, found no tab"),
    ("Flickr8k.token.txt", "1000001_aaaa1111aa.jpg#0\tA dog .\n1000001_aaaa1111aa.jpg#0\tAgain .\n",
     "Flickr8k.token.txt: line 2: the caption id 1000001_aaaa1111aa.jpg#0 appears twice"),
    ("Flickr8k.token.txt", "dog.jpg#0\tA dog .\n",
     "Flickr8k.token.txt: line 1: the caption id 'dog.jpg#0' is not `<flickr id>_<...>#<0-9>`"),
    ("ExpertAnnotations.txt", "4000004_dddd4444dd.jpg\t4000004_dddd4444dd.jpg#2\t4\t5\t3\n",
     "ExpertAnnotations.txt: line 1: a grade must be 1, 2, 3 or 4 (4 = describes the image), got '5'"),
    ("ExpertAnnotations.txt", "4000004_dddd4444dd.jpg\t9999999_ffff.jpg#2\t4\t4\t3\n",
     "ExpertAnnotations.txt: line 1: the caption id '9999999_ffff.jpg#2' is not in Flickr8k.token.txt"),
    ("CrowdFlowerAnnotations.txt", "4000004_dddd4444dd.jpg\t4000004_dddd4444dd.jpg#2\t0.5\t3\t0\n",
     "CrowdFlowerAnnotations.txt: line 1: the fraction of yes '0.5' is not 3/3"),
    ("CrowdFlowerAnnotations.txt", "4000004_dddd4444dd.jpg\t4000004_dddd4444dd.jpg#2\t1\t3\n",
     "CrowdFlowerAnnotations.txt: line 1: 4 fields, expected image, caption id, fraction of yes, yes count, no "
     "count"),
    ("Flickr_8k.testImages.txt", "1000001_aaaa1111aa.jpg\n",
     "Flickr_8k.testImages.txt: line 1: the image 1000001_aaaa1111aa.jpg is already in the train split"),
])
def test_bad_lines_are_named_and_nothing_is_written(tmp_path: Path, file: str, content: str, error: str):
    folder = tmp_path / "release"
    shutil.copytree(TEXT, folder)
    (folder / file).write_text(content)
    with pytest.raises(CommandError) as raised:
        run(folder, test_pool="p")
    assert error in str(raised.value)
    assert table_counts() == (0, 0, 0, 0, 0)


def _refused(tmp_path: Path, file: str, data: bytes) -> list[str]:
    """The problems of the fixture release with `file` replaced by `data`; nothing may have been written."""
    folder = tmp_path / "release"
    shutil.copytree(TEXT, folder)
    (folder / file).write_bytes(data)
    with pytest.raises(Flickr8kImportError) as raised:
        import_flickr8k(open_release(folder))
    assert table_counts() == (0, 0, 0, 0, 0)
    return raised.value.errors


def test_an_expert_file_cut_inside_its_last_line_is_refused_not_imported_a_grade_short(tmp_path: Path):
    data = (TEXT / "ExpertAnnotations.txt").read_bytes()
    assert data.endswith(b"\t1\t2\t1\n")  # the last pair's three grades
    assert _refused(tmp_path, "ExpertAnnotations.txt", data[:-3]) == [
        "ExpertAnnotations.txt: line 3: 2 grade(s), but the file has 3 a line (one per expert, as on line 1): the "
        "line is cut short or damaged"]


@pytest.mark.parametrize("grades", ["4\t4", "4\t4\t3\t3"])
def test_an_expert_line_with_fewer_or_more_grades_than_the_file_is_refused(tmp_path: Path, grades: str):
    lines = (TEXT / "ExpertAnnotations.txt").read_text().splitlines(keepends=True)
    image, caption = lines[1].split("\t")[:2]
    lines[1] = f"{image}\t{caption}\t{grades}\n"
    count = len(grades.split())
    assert _refused(tmp_path, "ExpertAnnotations.txt", "".join(lines).encode()) == [
        f"ExpertAnnotations.txt: line 2: {count} grade(s), but the file has 3 a line (one per expert, as on line 1): "
        "the line is cut short or damaged"]


def test_a_damaged_crowd_file_is_said_to_be_damaged_where_it_is(tmp_path: Path):
    data = (TEXT / "CrowdFlowerAnnotations.txt").read_bytes()
    middle = data.index(b"\n") + 1 + 10  # ten bytes into the second line
    damaged = data[:middle] + b"\xff" * 32 * 1024 + data[middle:]
    assert _refused(tmp_path, "CrowdFlowerAnnotations.txt", damaged) == [
        f"CrowdFlowerAnnotations.txt: not text: the file looks damaged at byte {middle} (line 2)"]


def test_a_released_file_given_to_import_judgements_is_pointed_to_import_flickr8k():
    with pytest.raises(JudgementImportError) as raised:
        import_judgements((TEXT / "ExpertAnnotations.txt").read_bytes())
    assert "import_flickr8k" in raised.value.errors[0] and raised.value.errors[0].startswith("line 1:")


def test_the_api_imports_a_zip_in_a_job_and_a_bad_one_fails_naming_file_and_line(
        admin_client, tmp_path: Path, django_capture_on_commit_callbacks):
    path = tmp_path / "release.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name in NAMES:
            archive.write(TEXT / name, name)
    with path.open("rb") as handle, django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post("/api/imports/", {"importer": "flickr8k", "file": handle, "set": "F8k"})
    assert response.status_code == 202, response.json()
    job = admin_client.get(f"/api/imports/{response.json()['id']}/").json()
    assert job["status"] == "done" and job["report"]["counts"]["crowd votes"] == 13
    assert ImageSet.objects.get(name="F8k").source == "flickr8k"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("Flickr8k.token.txt", "1000001_x.jpg#0\t\n")
    with path.open("rb") as handle, django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post("/api/imports/", {"importer": "flickr8k", "file": handle})
    job = admin_client.get(f"/api/imports/{response.json()['id']}/").json()
    assert job["status"] == "failed"
    assert job["report"]["refused"] == [{"name": "Flickr8k.token.txt",
                                         "reason": "line 1: the caption of 1000001_x.jpg#0 is empty"}]


def test_the_console_importer_is_registered():
    from mturk.importers import get_importer
    importer = get_importer("flickr8k")
    assert importer.accepts("release.zip") and not importer.accepts("release.txt")


def test_a_missing_token_file_is_refused(tmp_path: Path):
    with pytest.raises(Flickr8kImportError, match="no Flickr8k.token.txt"):
        open_release(tmp_path)


def test_checking_a_token_file_takes_less_memory_than_the_file(tmp_path: Path):
    """The plan holds each image once, not the captions (read again when written): checking a token file of
    4,000 images and 20,000 captions in the release's shape allocates less than the file's size."""
    import tracemalloc

    from annotation.ranking.services.flickr8k_import.checks import check_release

    folder = tmp_path / "big"
    folder.mkdir()
    lines = [f"{1_000_000 + i}_{i:010x}.jpg#{n}\tA dog in a red shirt runs along the beach with a ball number {n} ."
             for i in range(4000) for n in range(5)]
    token = folder / "Flickr8k.token.txt"
    token.write_text("\n".join(lines) + "\n")
    release = open_release(folder)
    tracemalloc.start()
    try:
        plan = check_release(release)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < token.stat().st_size
    assert (len(plan.images), plan.captions) == (4000, 20000)


def test_a_token_file_naming_more_images_than_the_cap_is_refused(tmp_path: Path, monkeypatch):
    from annotation.ranking.services.flickr8k_import import checks

    monkeypatch.setattr(checks, "MAX_IMAGES", 3)
    folder = tmp_path / "many"
    folder.mkdir()
    (folder / "Flickr8k.token.txt").write_text("".join(f"{n}_a.jpg#0\ta\n" for n in range(1, 6)))
    with pytest.raises(Flickr8kImportError) as raised:
        import_flickr8k(open_release(folder))
    assert raised.value.errors == ["Flickr8k.token.txt: line 4: more than 3 images (the release has 8,092): refused, "
                                   "so that the import stays within memory"]
    assert table_counts() == (0, 0, 0, 0, 0)
