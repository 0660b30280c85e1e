"""The Flickr30k Entities fixture, copies of it to spoil, and the release's two readers restated for the tests."""
from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Any

from tests.annotation.flickr30k_reader import read_sentences

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "flickr30k_entities"
KEYS = ["1000000001", "1000000002", "1000000003", "1000000004"]


def release_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "release"
    shutil.copytree(FIXTURE, folder)
    return folder


def zipped(folder: Path, target: Path, top: str = "") -> Path:
    with zipfile.ZipFile(target, "w") as archive:
        for file in sorted(folder.rglob("*")):
            if file.is_file():
                archive.write(file, top + file.relative_to(folder).as_posix())
    return target


def read_boxes(text: str | bytes) -> dict[str, Any]:
    """As the release's `get_annotations` reads an annotation file: boxes by entity id ([xmin, ymin, xmax, ymax],
    0-based), the scene and nobox entity ids, the size."""
    root = ET.fromstring(text)
    found: dict[str, Any] = {"boxes": {}, "scene": [], "nobox": [],
                             "size": (int(root.findtext("size/width") or 0), int(root.findtext("size/height") or 0))}
    for item in root.findall("object"):
        for name in item.findall("name"):
            box = item.find("bndbox")
            if box is not None:
                found["boxes"].setdefault(name.text, []).append(
                    [int(box.findtext(tag) or 0) - 1 for tag in ("xmin", "ymin", "xmax", "ymax")])
            else:
                if int(item.findtext("nobndbox") or 0):
                    found["nobox"].append(name.text)
                if int(item.findtext("scene") or 0):
                    found["scene"].append(name.text)
    return found


def phrases(text: str) -> list[list[tuple[str, str, tuple[str, ...]]]]:
    """Per sentence: (phrase words, entity id, types)."""
    return [[(p["phrase"], p["phrase_id"], tuple(p["phrase_type"])) for p in sentence["phrases"]]
            for sentence in read_sentences(text)]


def sentences(text: str) -> list[str]:
    return [sentence["sentence"] for sentence in read_sentences(text)]
