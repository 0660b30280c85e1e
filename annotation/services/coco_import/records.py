"""COCO import: the annotation files, the summary, the problems found, and the records read
streamed from a file."""
from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeGuard

from common.text_input import column_length
from mturk.importers import ProblemList, streamed_items

from ...models import Concept, Image

DATASET = "coco"
SOURCE = "coco"  # Description.source and Box.source of imported records
VOCABULARY = "coco"
MAX_LISTED = 50  # problems listed; the others are counted
BATCH = 2000
PROGRESS_EVERY = 1000
BBOX_TOLERANCE = 1.0  # px a box may stick out of its image (COCO's boxes are floats)
SUBSET = re.compile(r"(?:train|val|test|unlabeled)20\d\d")
FORMATS = {".jpg": "JPEG", ".jpeg": "JPEG", ".png": "PNG", ".webp": "WEBP", ".gif": "GIF"}
KEY_LENGTH = column_length(Image, "key")
URL_LENGTH = column_length(Image, "source_url")
NAME_LENGTH = column_length(Concept, "name")

Progress = Callable[[int, "int | None"], None]  # (records done, records in all: None while checking)
ImageFiles = Callable[[str], "bytes | None"]  # an image file's bytes by COCO file_name; None when missing


class CocoImportError(ValueError):
    """The files cannot be imported; `errors` lists the problems (at most MAX_LISTED, then a count)."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


@dataclass(frozen=True)
class CocoFile:
    """One annotation file: its name (in messages) and how to open it (again) for reading."""

    name: str
    open: Callable[[], IO[bytes]]

    @classmethod
    def from_path(cls, path: Path | str) -> CocoFile:
        path = Path(path)
        return cls(path.name, lambda: path.open("rb"))


def folder_images(directory: Path | str) -> ImageFiles:
    """Image files read from a folder: DIR/<file_name>."""
    root = Path(directory)

    def read(file_name: str) -> bytes | None:
        file = root / file_name
        return file.read_bytes() if file.is_file() else None

    return read


@dataclass
class CocoImport:
    images_new: int = 0  # imported with their file
    images_by_reference: int = 0  # created without a file
    images_reused: int = 0  # already in the platform (same key, or same COCO id)
    captions: int = 0
    captions_skipped: int = 0  # already imported (same caption id)
    boxes: int = 0
    boxes_skipped: int = 0  # already imported (same annotation id)
    crowd_skipped: int = 0  # iscrowd 1
    concepts_created: int = 0
    files_missing: int = 0  # --images given but the file is not there: known by reference
    notes: list[str] = field(default_factory=list)

    @property
    def images(self) -> int:
        return self.images_new + self.images_by_reference + self.images_reused

    def __str__(self) -> str:
        text = (f"{self.images} images ({self.images_new} new with their file, {self.images_by_reference} new known "
                f"by reference, {self.images_reused} already in the platform); {self.captions} captions"
                f" ({self.captions_skipped} already imported, skipped)")
        if self.boxes or self.boxes_skipped or self.crowd_skipped or self.concepts_created:
            text += (f"; {self.boxes} boxes ({self.boxes_skipped} already imported, {self.crowd_skipped} crowd "
                     f"annotations skipped), {self.concepts_created} new concepts in vocabulary '{VOCABULARY}'")
        if self.images and not (self.images_new + self.images_by_reference + self.captions + self.boxes):
            text += ". Nothing new: these files were already imported"
        return text

    def as_counts(self) -> dict[str, int]:
        return {"images new with file": self.images_new, "images by reference": self.images_by_reference,
                "images reused": self.images_reused, "captions": self.captions,
                "captions already imported": self.captions_skipped, "boxes": self.boxes,
                "boxes already imported": self.boxes_skipped, "crowd annotations skipped": self.crowd_skipped,
                "new concepts": self.concepts_created, "image files missing": self.files_missing}


@dataclass(frozen=True, slots=True)
class CocoImage:
    file_name: str
    width: int
    height: int
    url: str


@dataclass
class Plan:
    images: dict[int, CocoImage] = field(default_factory=dict)  # COCO id -> image
    reused: dict[int, tuple[int, bool]] = field(default_factory=dict)  # COCO id -> (platform image id, has origin)
    with_file: set[int] = field(default_factory=set)  # new images whose file is imported
    refused: set[int] = field(default_factory=set)  # ids of images with a problem (reported once)
    categories: dict[int, str] = field(default_factory=dict)  # COCO category id -> name
    supercategories: dict[str, str] = field(default_factory=dict)  # category name -> its supercategory (if other)
    records: int = 0  # records checked: the write pass goes over as many


class Problems(ProblemList):
    def __init__(self) -> None:
        super().__init__(CocoImportError, MAX_LISTED)


class Counter:
    """Calls progress every PROGRESS_EVERY records."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress = progress
        self.done = 0
        self.total: int | None = None

    def step(self) -> None:
        self.done += 1
        if self.progress is not None and self.done % PROGRESS_EVERY == 0:
            self.progress(self.done, self.total)

    def report(self) -> None:
        if self.progress is not None:
            self.progress(self.done, self.total)


def whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def read_records(source: CocoFile, section: str, problems: Problems) -> Iterator[tuple[int, Any]]:
    """The items of the top-level list `section`, streamed, with their index (numbers as floats)."""
    return streamed_items(source.name, source.open, section, problems, use_float=True)



def chunks(items: list[Any], size: int = 900) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]

