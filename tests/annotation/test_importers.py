"""The console's importers of images, concept vocabularies and ImageCLEF datasets (annotation/importers.py):
each reuses its import service; images report bad files by name, the others change nothing on a problem."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from annotation.image_sets.models import ImageSet
from annotation.models import Concept, Image, Vocabulary
from mturk.importers import ImportProblems, ImportRefused, get_importer
from mturk.models import HIT
from tests.annotation.test_import_imageclef import counts, dataset_dir
from tests.factories import image_bytes, make_campaign
from tests.importing import Steps, write_zip

pytestmark = pytest.mark.django_db

CONCEPTS = "name\tsynset\tsynonyms\tparent\nanimal\tanimal.n.01\t\t\ndog\tdog.n.01\thound\tanimal\n"


def test_images_zip_keeps_the_good_files_and_names_the_bad_ones(tmp_path):
    source = write_zip(tmp_path / "set.zip", {"a.png": image_bytes(), "b/c.jpg": image_bytes("JPEG"),
                                              "broken.jpg": image_bytes("JPEG")[:150], ".hidden.png": b"x",
                                              "../escape.png": image_bytes()})
    steps = Steps()
    report = get_importer("images").run(source, {}, steps)
    assert [row["name"] for row in report["imported"]] == ["a.png", "b/c.jpg"]
    reasons = {row["name"]: row["reason"] for row in report["refused"]}
    assert reasons.keys() == {"../escape.png", "broken.jpg"}
    assert reasons["../escape.png"] == "entry escapes the target folder ('..' in its path); refused"
    assert reasons["broken.jpg"].startswith("damaged or truncated image")
    assert report["counts"] == {"imported": 2, "already known": 0, "refused": 2}
    assert steps == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert Image.objects.count() == 2


def test_one_image_file_and_a_second_import_of_it(tmp_path):
    picture = tmp_path / "cat.png"
    picture.write_bytes(image_bytes())
    first = get_importer("images").run(picture, {}, Steps())
    again = get_importer("images").run(picture, {}, Steps())
    assert first["imported"] == [{"name": "cat.png", "detail": "image cat"}]
    assert again["imported"] == [{"name": "cat.png", "detail": "already known as image cat"}]


def test_a_file_that_is_not_a_zip_nor_an_image_is_refused_by_name(tmp_path):
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"hello")
    with pytest.raises(ImportProblems) as refused:
        get_importer("images").run(junk, {}, Steps())
    assert refused.value.problems == [("junk.png", "not an image (or not a format Pillow can read)")]
    assert not ImageSet.objects.exists()


def test_a_zip_whose_every_file_is_refused_fails_naming_each_and_makes_no_collection(tmp_path):
    source = write_zip(tmp_path / "holiday.zip", {"a.jpg": b"not a picture", "b.png": image_bytes()[:40]})
    with pytest.raises(ImportProblems) as refused:
        get_importer("images").run(source, {"set": "holiday", "tags": "trip"}, Steps())
    assert [name for name, _reason in refused.value.problems] == ["a.jpg", "b.png"]
    assert all(reason for _name, reason in refused.value.problems)
    assert not ImageSet.objects.exists() and not Image.objects.exists()


def test_images_can_get_one_hit_each_in_a_campaign(tmp_path):
    campaign = make_campaign(images=1, publish=False)
    images = get_importer("images")
    assert (str(campaign.pk), f"{campaign.name} (describe_image)") in images.options[0].choices()
    source = write_zip(tmp_path / "set.zip", {"a.png": image_bytes(), "b.png": image_bytes()})
    report = images.run(source, {"campaign": str(campaign.pk)}, Steps())
    assert report["notes"] == ["2 image(s) in the collection 'Imported images'",
                               f"2 HIT(s) added to campaign '{campaign.name}'"]
    assert HIT.objects.filter(campaign=campaign).count() == 3


def test_concepts_are_checked_then_written(tmp_path):
    source = tmp_path / "animals.tsv"
    source.write_text(CONCEPTS, encoding="utf-8")
    steps = Steps()
    report = get_importer("concepts").run(source, {"vocabulary": "zoo"}, steps)
    assert report["summary"] == "Vocabulary 'zoo': 2 concepts (2 new, 0 updated)"
    assert steps == [(0, 2), (1, 2), (2, 2)]
    assert Concept.objects.get(name="dog").parent.name == "animal"


def test_a_bad_concepts_file_names_the_line_and_changes_nothing(tmp_path):
    source = tmp_path / "animals.tsv"
    source.write_text(CONCEPTS + "cat\tcat\t\tfeline\n", encoding="utf-8")
    with pytest.raises(ImportProblems) as refused:
        get_importer("concepts").run(source, {"vocabulary": "zoo"}, Steps())
    assert refused.value.problems == [("animals.tsv line 4", "'cat' is not a WordNet synset id like woman.n.01"),
                                      ("animals.tsv line 4", "unknown parent concept 'feline'")]
    assert Concept.objects.count() == 0 and Vocabulary.objects.count() == 0


def test_a_concepts_file_that_is_not_utf8_is_refused(tmp_path):
    source = tmp_path / "animals.tsv"
    source.write_bytes(b"name\tsynset\xff")
    with pytest.raises(ImportProblems, match="1 problem"):
        get_importer("concepts").run(source, {"vocabulary": "zoo"}, Steps())


def test_the_vocabulary_name_is_checked(tmp_path):
    check = get_importer("concepts").check_options
    assert check is not None
    assert check({}, "my words.tsv") == {"vocabulary": "my words"}
    with pytest.raises(ImportRefused, match="1 to 100 characters"):
        check({}, "w" * 101 + ".tsv")


def zip_folder(folder: Path, target: Path) -> Path:
    with zipfile.ZipFile(target, "w") as archive:
        for file in sorted(folder.rglob("*")):
            if file.is_file():
                archive.write(file, f"{folder.name}/{file.relative_to(folder)}")
    return target


def test_an_imageclef_zip_is_imported_in_two_steps(tmp_path):
    source = zip_folder(dataset_dir(tmp_path / "gold"), tmp_path / "gold.zip")
    steps = Steps()
    report = get_importer("imageclef").run(source, {"vocabulary": "gold"}, steps)
    assert steps == [(0, 2), (1, 2), (2, 2)]
    assert report["counts"]["images"] == 2 and report["counts"]["boxes"] == 6
    assert counts()["Description"] == 5


def test_a_bad_imageclef_zip_names_file_and_line_and_changes_nothing(tmp_path):
    bad_boxes = "image\tbox\tconcept\tx\ty\twidth\theight\nimg-a\t0\twolf\t1\t1\t5\t5\n"
    source = zip_folder(dataset_dir(tmp_path / "gold", **{"boxes.tsv": bad_boxes}), tmp_path / "gold.zip")
    before = counts()
    with pytest.raises(ImportProblems) as refused:
        get_importer("imageclef").run(source, {"vocabulary": "gold"}, Steps())
    assert ("boxes.tsv line 2", "unknown concept 'wolf'") in refused.value.problems
    assert counts() == before
