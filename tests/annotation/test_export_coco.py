"""COCO export: golden files and the conventions the COCO API (pycocotools) relies on."""
from __future__ import annotations

import json

import pytest

from annotation.exports.coco import write_coco
from tests.annotation.test_export_imageclef import assert_golden, build_dataset, export

pytestmark = pytest.mark.django_db

TEXT_FILES = ["annotations/captions.json", "annotations/instances.json", "annotations/image_keys.json"]


def test_coco_export_matches_golden_files():
    build_dataset()
    records, bundle, archive = export(write_coco)
    assert records == 5 + 6  # every annotation written: the captions and the boxes
    assert sorted(archive.namelist()) == sorted(TEXT_FILES + ["images/img-a.png", "images/img-b.jpg"])
    assert_golden(archive, "coco", TEXT_FILES)
    assert bundle.counts == {"images": 2, "categories": 6, "boxes": 6, "captions": 5}
    assert bundle.simulated and "coco.md" in bundle.notes[0]


def test_coco_files_follow_the_coco_conventions():
    build_dataset()
    _, _, archive = export(write_coco)
    captions = json.loads(archive.read("annotations/captions.json"))
    instances = json.loads(archive.read("annotations/instances.json"))
    keys = json.loads(archive.read("annotations/image_keys.json"))
    assert keys == {"1": "img-a", "2": "img-b"}
    for data in (captions, instances):
        assert set(data) >= {"info", "licenses", "images", "annotations"}
        assert data["images"] == [
            {"id": 1, "file_name": "img-a.png", "width": 200, "height": 150},
            {"id": 2, "file_name": "img-b.jpg", "width": 120, "height": 90},
        ]
        ids = [a["id"] for a in data["annotations"]]
        assert ids == list(range(1, len(ids) + 1))
    assert [(a["image_id"], a["caption"]) for a in captions["annotations"]] == [
        (1, "A young woman in a white dress leans on a car."),
        (1, "Someone parked a car near a woman."),
        (1, "woman dress boot"),
        (2, 'She said "hi" to the café & its car.'),
        (2, "A woman beside a car."),
    ]
    categories = {c["id"]: c for c in instances["categories"]}
    assert [c["name"] for c in instances["categories"]] == ["boot", "car", "dress", "motor vehicle", "person",
                                                            "woman"]
    assert list(categories) == [1, 2, 3, 4, 5, 6]
    assert categories[2]["supercategory"] == "motor vehicle" and categories[6]["supercategory"] == "person"
    assert categories[5]["supercategory"] == "person"  # a root is its own supercategory, as COCO's "person"
    woman = instances["annotations"][1]
    assert woman == {
        "id": 2, "image_id": 1, "category_id": 6, "segmentation": [[50, 20, 100, 20, 100, 140, 50, 140]],
        "area": 6000, "bbox": [50, 20, 50, 120], "iscrowd": 0,
    }
    for annotation in instances["annotations"]:
        x, y, w, h = annotation["bbox"]
        assert annotation["area"] == w * h and annotation["category_id"] in categories


def test_coco_files_load_in_pycocotools(tmp_path):
    coco_module = pytest.importorskip("pycocotools.coco")
    build_dataset()
    _, _, archive = export(write_coco)
    archive.extractall(tmp_path)
    instances = coco_module.COCO(str(tmp_path / "annotations/instances.json"))
    assert instances.getImgIds() == [1, 2]
    assert instances.getCatIds(catNms=["car"]) == [2]
    assert sorted(instances.getAnnIds(imgIds=[2])) == [5, 6]
    assert instances.loadAnns([5])[0]["bbox"] == [0, 0, 120, 90]
    assert int(instances.annToMask(instances.loadAnns([6])[0]).sum()) > 0
    captions = coco_module.COCO(str(tmp_path / "annotations/captions.json"))
    assert len(captions.getAnnIds(imgIds=[1])) == 3


def test_empty_dataset_gives_valid_json():
    from annotation.selectors import GroundedDataset

    records, bundle, archive = export(write_coco, GroundedDataset([], [], {}, {}))
    assert records == 0 and bundle.counts == {"images": 0, "categories": 0, "boxes": 0, "captions": 0}
    assert json.loads(archive.read("annotations/image_keys.json")) == {}
    assert json.loads(archive.read("annotations/captions.json"))["annotations"] == []
    instances = json.loads(archive.read("annotations/instances.json"))
    assert (instances["images"], instances["annotations"], instances["categories"]) == ([], [], [])
