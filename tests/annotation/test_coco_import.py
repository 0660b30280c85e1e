"""Importing COCO annotation files (annotation/services/coco_import/, the import_coco command and the console's
importer): the fixture imported with and without its image files, images reused by key, a second import adding
nothing, and bad records named (file and record) with nothing written."""
from __future__ import annotations

import json
import zipfile
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Box, Concept, Description, Image, ImageOrigin, Vocabulary
from annotation.services.boxes import BoxSpec, add_boxes
from annotation.services.coco_import.importer import import_coco
from annotation.services.coco_import.records import CocoImportError, folder_images
from annotation.services.images import import_image_bytes
from mturk.importers import ImportProblems, get_importer
from tests.factories import label_vocabulary
from tests.importing import Steps

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).parent / "compositional" / "coco_fixture"  # a COCO excerpt the compositional tests share
CAPTIONS, INSTANCES, IMAGES = FIXTURE / "captions.json", FIXTURE / "instances.json", FIXTURE / "images"


def fixture_data(name: str) -> dict[str, Any]:
    return json.loads((FIXTURE / name).read_text())


def write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(json.dumps(data))
    return path


def nothing_written() -> bool:
    return not (Image.objects.exists() or Description.objects.exists() or Box.objects.exists()
                or ImageOrigin.objects.exists() or Concept.objects.exists())


def test_the_fixture_with_its_four_image_files():
    summary = import_coco(CAPTIONS, INSTANCES, folder_images(IMAGES))
    assert (summary.images_new, summary.images_by_reference, summary.images_reused) == (4, 8, 0)
    # 7 categories and 4 supercategories other than a category's own name (vehicle, animal, kitchen, food)
    assert (summary.captions, summary.boxes, summary.crowd_skipped, summary.concepts_created) == (60, 11, 1, 11)
    parents = dict(Concept.objects.values_list("name", "parent__name"))
    assert parents == {"person": None, "bus": "vehicle", "cat": "animal", "dog": "animal", "horse": "animal",
                       "cup": "kitchen", "pizza": "food", "vehicle": None, "animal": None, "kitchen": None,
                       "food": None}
    assert set(Concept.objects.filter(offered=False).values_list("name", flat=True)) == {
        "vehicle", "animal", "kitchen", "food"}
    assert summary.files_missing == 8
    assert any(note.startswith("8 image file(s) not in the folder") for note in summary.notes)

    cat = Image.objects.get(key="COCO_train2014_000000000009")
    assert cat.has_file and cat.sha256 and (cat.width, cat.height) == (160, 106)
    assert (cat.origin.dataset, cat.origin.external_id, cat.origin.subset) == ("coco", 9, "train2014")
    by_reference = Image.objects.get(key="COCO_val2014_000000000303")
    assert not by_reference.has_file and by_reference.sha256 is None
    assert (by_reference.width, by_reference.height, by_reference.file_size) == (500, 375, 0)
    assert by_reference.source_url == "http://images.cocodataset.org/val2014/COCO_val2014_000000000303.jpg"
    assert by_reference.display_url == by_reference.source_url
    assert by_reference.original_name == "COCO_val2014_000000000303.jpg"
    assert (by_reference.origin.external_id, by_reference.origin.subset) == (303, "val2014")

    caption = Description.objects.get(source="coco", external_id=121)  # image 301's first caption
    assert caption.image.key == "COCO_train2014_000000000301"
    assert caption.text == "A black cat sitting on a mat."
    assert caption.tokens == ["A", "black", "cat", "sitting", "on", "a", "mat", "."]

    # [10.4, 12.6, 120.2, 80.3] on 160x106: left 10, top 13, right round(130.6) = 131, bottom round(92.9) = 93
    box = Box.objects.get(source="coco", external_id=901)
    assert (box.image_id, box.number, box.concept.name) == (cat.pk, 0, "cat")
    assert (box.x, box.y, box.width, box.height) == (10, 13, 121, 80)
    # [20.7, 0, 139.3, 160] on 160x160: right edge 160 stays inside
    astronaut = Box.objects.get(source="coco", external_id=903)
    assert (astronaut.x, astronaut.y, astronaut.width, astronaut.height) == (21, 0, 139, 160)
    # image 302 has a cat and a dog, numbered in file order
    assert list(Box.objects.filter(image__origin__external_id=302).values_list("number", "concept__name")) == [
        (0, "cat"), (1, "dog")]
    assert not Box.objects.filter(external_id=912).exists()  # the crowd annotation
    assert set(Vocabulary.objects.get(name="coco").concepts.values_list("name", flat=True)) == {
        "person", "bus", "cat", "dog", "horse", "cup", "pizza", "vehicle", "animal", "kitchen", "food"}


def test_a_second_import_adds_nothing_and_says_so():
    import_coco(CAPTIONS, INSTANCES)
    again = import_coco(CAPTIONS, INSTANCES)
    assert (again.images_reused, again.images_by_reference, again.captions, again.captions_skipped) == (12, 0, 0, 60)
    assert (again.boxes, again.boxes_skipped, again.crowd_skipped, again.concepts_created) == (0, 11, 1, 0)
    assert "Nothing new: these files were already imported" in str(again)
    assert (Image.objects.count(), Description.objects.count(), Box.objects.count()) == (12, 60, 11)


def test_an_image_already_in_the_platform_is_reused_by_key_and_its_boxes_numbered_after_its_own():
    data = (IMAGES / "COCO_val2014_000000000139.jpg").read_bytes()
    existing, _ = import_image_bytes("cup.jpg", data, key="COCO_val2014_000000000139")
    cup = Concept.objects.create(vocabulary=label_vocabulary(), name="mug")
    add_boxes(existing, [BoxSpec(cup.pk, 0, 0, 10, 10)], source="gold")
    summary = import_coco(CAPTIONS, INSTANCES, subset="val2014")
    assert (summary.images_reused, summary.images_by_reference) == (1, 11)
    existing.refresh_from_db()
    assert (existing.origin.external_id, existing.origin.subset) == (139, "val2014")
    assert list(existing.boxes.values_list("number", "source", "concept__name")) == [
        (0, "gold", "mug"), (1, "coco", "cup")]
    assert existing.descriptions.count() == 5
    assert set(ImageOrigin.objects.values_list("subset", flat=True)) == {"val2014"}  # --subset wins


def test_an_image_key_of_another_dataset_is_refused():
    image, _ = import_image_bytes("x.jpg", (IMAGES / "COCO_train2014_000000000009.jpg").read_bytes(),
                                  key="COCO_train2014_000000000009")
    ImageOrigin.objects.create(image=image, dataset="flickr30k", external_id=5)
    with pytest.raises(CocoImportError) as refused:
        import_coco(CAPTIONS)
    assert refused.value.errors == [
        "images (id 9): the image key 'COCO_train2014_000000000009' is already image flickr30k:5"]
    assert Description.objects.count() == 0 and Image.objects.count() == 1


def test_bad_captions_are_named_by_file_and_record_and_nothing_is_written(tmp_path):
    data = fixture_data("captions.json")
    data["images"][1]["width"] = 0
    data["images"][2]["file_name"] = "../escape.jpg"
    data["annotations"][12]["image_id"] = 999
    data["annotations"][13]["caption"] = "   "
    data["annotations"][14]["id"] = data["annotations"][15]["id"]
    with pytest.raises(CocoImportError) as refused:
        import_coco(write(tmp_path / "captions_val2014.json", data), INSTANCES)
    assert refused.value.errors == [
        "captions_val2014.json: images[1] (id 139): width and height must be positive whole numbers, got 0 and 107",
        "captions_val2014.json: images[2] (id 257): file_name '../escape.jpg' is not a plain file name "
        "(no folders, no leading dot)",
        "captions_val2014.json: annotations[12] (id 113): image_id 999 is not among the images",
        "captions_val2014.json: annotations[13] (id 114): caption must be a non-empty text, got '   '",
        "captions_val2014.json: annotations[15] (id 116): the id is given twice",
    ]
    assert nothing_written()


def test_bad_instances_are_named_and_nothing_is_written(tmp_path):
    data = fixture_data("instances.json")
    data["annotations"][0]["bbox"] = [100.0, 12.6, 120.2, 80.3]  # image 9 is 160 px wide
    data["annotations"][1]["category_id"] = 3
    data["annotations"][2]["bbox"] = [1, 2, 3]
    data["annotations"][3]["iscrowd"] = 2
    data["categories"][1]["name"] = "person"
    data["images"][5]["height"] = 10
    with pytest.raises(CocoImportError) as refused:
        import_coco(CAPTIONS, write(tmp_path / "instances.json", data))
    assert refused.value.errors == [
        "instances.json: images[5] (id 302): differs from image 302 of the captions file "
        "(COCO_train2014_000000000302.jpg, 640x427)",
        "instances.json: categories[1] (id 6): the name 'person' is also category 1's",
        "instances.json: annotations[0] (id 901): bbox [100.0, 12.6, 120.2, 80.3] lies outside the image "
        "(160x106 px)",
        "instances.json: annotations[1] (id 902): category_id 3 is not among the categories",
        "instances.json: annotations[2] (id 903): bbox must be [x, y, width, height] in pixels, got [1, 2, 3]",
        "instances.json: annotations[3] (id 904): iscrowd must be 0 or 1, got 2",
        "instances.json: annotations[10] (id 911): category_id 6 is not among the categories",
    ]
    assert nothing_written()


def test_a_box_within_rounding_of_the_edge_is_clipped_inside(tmp_path):
    data = fixture_data("instances.json")
    data["annotations"][0]["bbox"] = [-0.6, 100.2, 160.9, 6.4]  # image 9 is 160x106
    import_coco(CAPTIONS, write(tmp_path / "instances.json", data))
    box = Box.objects.get(external_id=901)
    assert (box.x, box.y, box.width, box.height) == (0, 100, 160, 6)


def test_problems_past_fifty_are_counted(tmp_path):
    data = fixture_data("captions.json")
    for annotation in data["annotations"]:
        annotation["image_id"] = 1
    with pytest.raises(CocoImportError) as refused:
        import_coco(write(tmp_path / "captions.json", data))
    assert len(refused.value.errors) == 51
    assert refused.value.errors[-1] == "... and 10 more problem(s)"
    assert nothing_written()


def test_a_file_that_is_not_json_or_holds_no_images(tmp_path):
    broken = tmp_path / "captions.json"
    broken.write_text('{"images": [{"id": 1,')
    with pytest.raises(CocoImportError) as refused:
        import_coco(broken)
    assert refused.value.errors[0].startswith("captions.json: not valid JSON")
    with pytest.raises(CocoImportError) as refused:
        import_coco(write(tmp_path / "empty.json", {"images": [], "annotations": []}))
    assert refused.value.errors == ['empty.json: holds no images (a COCO file has an "images" list)',
                                    'empty.json: holds no captions (a COCO captions file has an "annotations" list)']


def test_an_image_file_of_another_size_than_the_annotations_say(tmp_path):
    data = fixture_data("captions.json")
    data["images"][0]["width"] = 161
    with pytest.raises(CocoImportError) as refused:
        import_coco(write(tmp_path / "captions.json", data), None, folder_images(IMAGES))
    assert refused.value.errors == ["images (id 9): the file COCO_train2014_000000000009.jpg is 160x106 px, not "
                                    "161x106 as the annotations say"]
    assert nothing_written()


def test_the_command_prints_the_summary_and_shows_progress():
    out, err = StringIO(), StringIO()
    call_command("import_coco", str(CAPTIONS), "--instances", str(INSTANCES), "--images", str(IMAGES),
                 stdout=out, stderr=err)
    assert out.getvalue().startswith("12 images (4 new with their file, 8 new known by reference, 0 already in "
                                     "the platform); 60 captions (0 already imported, skipped); 11 boxes")
    assert "Note: Segmentations are not imported" in out.getvalue()
    assert "206/206" in err.getvalue()  # 24 + 60 image and caption records, 7 categories, 12 boxes; checked, written


def test_the_command_refuses_bad_input_naming_it(tmp_path):
    with pytest.raises(CommandError, match="missing.json: no such file"):
        call_command("import_coco", str(tmp_path / "missing.json"))
    data = fixture_data("captions.json")
    data["annotations"][12]["image_id"] = 999
    with pytest.raises(CommandError) as refused:
        call_command("import_coco", str(write(tmp_path / "captions_val2014.json", data)), stderr=StringIO())
    assert str(refused.value) == ("nothing was imported:\ncaptions_val2014.json: annotations[12] (id 113): "
                                  "image_id 999 is not among the images")
    assert nothing_written()


def test_the_console_importer_reads_a_zip_of_both_files_and_the_images(tmp_path):
    upload = tmp_path / "coco.zip"
    with zipfile.ZipFile(upload, "w") as archive:
        archive.write(CAPTIONS, "captions_train2014.json")
        archive.write(INSTANCES, "instances_train2014.json")
        for image in IMAGES.iterdir():
            archive.write(image, f"images/{image.name}")
    steps = Steps()
    report = get_importer("coco").run(upload, {"subset": ""}, steps)
    assert report["counts"]["images new with file"] == 4
    assert report["counts"]["images by reference"] == 8
    assert (report["counts"]["captions"], report["counts"]["boxes"]) == (60, 11)
    assert steps[0] == (0, None) and steps[-1] == (206, 206)
    assert Image.objects.filter(sha256__isnull=False).count() == 4


def test_the_console_importer_names_the_problems(tmp_path):
    data = fixture_data("captions.json")
    data["annotations"][0]["caption"] = ""
    with pytest.raises(ImportProblems) as refused:
        get_importer("coco").run(write(tmp_path / "captions.json", data), {}, Steps())
    assert refused.value.problems == [("captions.json", "annotations[0] (id 101): caption must be a non-empty "
                                                        "text, got ''")]
    assert nothing_written()
