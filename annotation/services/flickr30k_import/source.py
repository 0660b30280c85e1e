"""Flickr30k Entities import: the release's files (a folder or a zip), the problems found and the summary."""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from common.safe_archives import ReadRefused, ReleaseFiles, open_file, read_capped
from common.text_input import column_length
from mturk.importers import ProblemList

from ...models import Image

DATASET = "flickr30k"  # ImageOrigin.dataset, ImageSet.source
SOURCE = "flickr30k"  # Box.source, Description.source and Correspondence.source of imported records
VOCABULARY = "flickr30k"
DEFAULT_SET = "Flickr30k Entities"
LICENCE = (
    "Flickr30k Entities (Plummer et al., IJCV 2017), annotations from github.com/BryanPlummer/flickr30k_entities, "
    "on the captions of Flickr30k (Young et al., TACL 2014). As the release states: the images were obtained from "
    "Flickr and their use must abide by the Flickr Terms of Use (http://www.flickr.com/help/terms/); the authors do "
    "not own their copyright; they are provided solely for researchers and educators who wish to use the dataset "
    "for non-commercial research and/or educational purposes. Cite both papers."
)
SENTENCES, ANNOTATIONS = "Sentences", "Annotations"
IMAGE_FOLDERS = ("flickr30k-images", "images")  # the release's, then the platform export's
SPLITS = ("train", "val", "test")
MAX_FILE_BYTES = 1024 * 1024  # one sentence or annotation file (the release's are a few kB)
MAX_SPLIT_BYTES = 16 * 1024 * 1024
MAX_LISTED = 50
KEY_LENGTH = column_length(Image, "key")
ORIGIN_ID = re.compile(r"\d{1,18}")  # a key that is a Flickr id gets an ImageOrigin


class Flickr30kImportError(ValueError):
    """The files cannot be imported; `errors` lists the problems (at most MAX_LISTED, then a count)."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


class Problems(ProblemList):
    def __init__(self) -> None:
        super().__init__(Flickr30kImportError, MAX_LISTED)


@dataclass
class Flickr30kImport:
    images_by_reference: int = 0  # new, without a file
    images_with_file: int = 0  # new, with their file
    images_reused: int = 0  # already stored (same key), annotated now
    images_skipped: int = 0  # already stored with boxes or descriptions: left as they are
    boxes: int = 0
    descriptions: int = 0
    correspondences: int = 0
    links: int = 0  # word links
    phrases_linked: int = 0
    phrases_nobox: int = 0  # their entity has only nobndbox objects: words kept, no link
    phrases_scene: int = 0  # their entity is a scene (no box): words kept, no link
    phrases_notvisual: int = 0  # entity 0: words kept, no link
    names_dropped: int = 0  # entity ids of boxes beyond the box's own number (a box has one id)
    boxes_clipped: int = 0  # sticking out of the image by a pixel: clipped inside it
    concepts_created: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def images(self) -> int:
        return self.images_by_reference + self.images_with_file + self.images_reused + self.images_skipped

    def __str__(self) -> str:
        text = (f"{self.images} images ({self.images_with_file} new with their file, {self.images_by_reference} new "
                f"by reference, {self.images_reused} already stored, {self.images_skipped} already annotated and "
                f"skipped); {self.boxes} boxes, {self.descriptions} descriptions, {self.correspondences} "
                f"correspondences with {self.links} word links; phrases: {self.phrases_linked} linked, "
                f"{self.phrases_nobox} nobox, {self.phrases_scene} scene, {self.phrases_notvisual} notvisual "
                f"(kept as words); {self.concepts_created} new concepts")
        if self.boxes_clipped:
            text += f"; {self.boxes_clipped} box(es) sticking out of the image by a pixel clipped inside it"
        if self.images and self.images == self.images_skipped:
            text += ". Nothing new: these files were already imported"
        return text

    def as_counts(self) -> dict[str, int]:
        return {"images new with file": self.images_with_file, "images by reference": self.images_by_reference,
                "images reused": self.images_reused, "images already annotated": self.images_skipped,
                "boxes": self.boxes, "descriptions": self.descriptions, "correspondences": self.correspondences,
                "word links": self.links, "phrases linked": self.phrases_linked, "phrases nobox": self.phrases_nobox,
                "phrases scene": self.phrases_scene, "phrases notvisual": self.phrases_notvisual,
                "entity ids dropped": self.names_dropped, "boxes clipped": self.boxes_clipped,
                "new concepts": self.concepts_created}


class Source(ReleaseFiles):
    """The release: a folder or a zip holding Annotations/ and Sentences/ (at its root or in one top folder), read
    through common/safe_archives.py."""

    def __init__(self, path: Path, images: Path | None = None) -> None:
        try:
            super().__init__(path)
        except ReadRefused as exc:
            raise Flickr30kImportError([str(exc)]) from None
        self.use_top_folder(f"{ANNOTATIONS}/")
        self.images = images
        if images is not None and not images.is_dir():
            raise Flickr30kImportError([f"{images}: no such folder"])

    def stems(self, folder: str, suffix: str) -> Iterator[str]:
        """The names without suffix of the files `folder/*<suffix>` (not sorted)."""
        if self.archive is not None:
            start = f"{self.prefix}{folder}/"
            for name in self.archive.members:
                rest = name[len(start):]
                if name.startswith(start) and "/" not in rest and rest.endswith(suffix):
                    yield rest[:-len(suffix)]
            return
        directory = self.path / folder
        if directory.is_dir():
            for entry in directory.iterdir():
                if entry.name.endswith(suffix) and entry.is_file():
                    yield entry.name[:-len(suffix)]

    def image(self, file_name: str, limit: int) -> bytes | None:
        """An image file: in --images, else in flickr30k-images/ or images/ of the release."""
        if PurePosixPath(file_name).name != file_name or file_name.startswith("."):
            return None
        if self.images is not None:
            file = self.images / file_name
            if not file.is_file():
                return None
            with open_file(file, file_name, limit) as stream:
                return read_capped(stream, file_name, limit)
        for folder in IMAGE_FOLDERS:
            data = self.read(f"{folder}/{file_name}", limit)
            if data is not None:
                return data
        return None
