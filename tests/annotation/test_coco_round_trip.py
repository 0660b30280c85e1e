"""COCO round trip: the platform's COCO export, imported with import_coco into an empty platform, exported again,
gives the same captions and boxes (the same files, but for what docs/formats/coco.md says cannot survive)."""
from __future__ import annotations

import json
import zipfile
from typing import Any

import pytest

from annotation.exports.coco import write_coco
from annotation.models import Box, Concept, Description, Image
from annotation.services.coco_import.importer import import_coco
from annotation.services.coco_import.records import CocoFile
from tests.annotation.test_export_imageclef import build_dataset, export

pytestmark = pytest.mark.django_db


def coco_files(archive: zipfile.ZipFile) -> tuple[dict[str, Any], dict[str, Any]]:
    return (json.loads(archive.read("annotations/captions.json")),
            json.loads(archive.read("annotations/instances.json")))


def test_export_import_export_gives_the_same_captions_and_boxes(tmp_path):
    build_dataset()
    _, _, first = export(write_coco)
    captions, instances = coco_files(first)
    for name in ("captions.json", "instances.json"):
        (tmp_path / name).write_bytes(first.read(f"annotations/{name}"))
    files = {name.removeprefix("images/"): first.read(name) for name in first.namelist() if name.startswith("images/")}

    # An empty platform: the import makes every image, label, caption and box again.
    Box.objects.all().delete()
    Description.objects.all().delete()
    Image.objects.all().delete()
    Concept.objects.all().delete()
    summary = import_coco(CocoFile.from_path(tmp_path / "captions.json"),
                          CocoFile.from_path(tmp_path / "instances.json"), image_files=files.get)
    assert (Image.objects.count(), Description.objects.count(), Box.objects.count()) == (2, 5, 6)
    assert summary is not None

    _, _, second = export(write_coco)
    again_captions, again_instances = coco_files(second)
    assert again_captions["images"] == captions["images"]
    assert again_captions["annotations"] == captions["annotations"]
    assert again_instances["images"] == instances["images"]
    assert again_instances["annotations"] == instances["annotations"]
    assert [c["name"] for c in again_instances["categories"]] == [c["name"] for c in instances["categories"]]
    assert again_instances["categories"] == instances["categories"]
    assert json.loads(second.read("annotations/image_keys.json")) == json.loads(
        first.read("annotations/image_keys.json"))
    assert {n: second.read(n) for n in second.namelist() if n.startswith("images/")} == {
        f"images/{name}": data for name, data in files.items()}
