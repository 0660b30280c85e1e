"""The files of a Flickr8k release, from a folder or a zip: found by their released names anywhere inside it
(e.g. under `Flickr8k_text/`), read line by line; the image files under `Flicker8k_Dataset/` (sic) when present."""
from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO

from common.safe_archives import ReadRefused, SafeZip, is_zip, open_file, read_capped, text_lines

TOKEN_FILE = "Flickr8k.token.txt"
SPLIT_FILES = {"train": "Flickr_8k.trainImages.txt", "dev": "Flickr_8k.devImages.txt",
               "test": "Flickr_8k.testImages.txt"}
EXPERT_FILE = "ExpertAnnotations.txt"
CROWD_FILE = "CrowdFlowerAnnotations.txt"
IMAGES_FOLDER = "Flicker8k_Dataset"  # sic: the folder name of the released image archive
MAX_LINE = 10_000  # bytes: a longer line is not a line of this release
MAX_IMAGE_BYTES = 50 * 1024 * 1024


class Flickr8kImportError(ValueError):
    """Problems found before anything was written; each names the file and line."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors[:5]) + (f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""))
        self.errors = errors


@dataclass
class Release:
    """Where each released file is: a path in the folder, or a member of the zip."""

    root: Path | None = None
    archive: SafeZip | None = None
    files: dict[str, str] = field(default_factory=dict)  # released name -> path or member name
    images: dict[str, str] = field(default_factory=dict)  # image file name -> path or member name

    def has(self, name: str) -> bool:
        return name in self.files

    def lines(self, name: str) -> Iterator[tuple[int, str]]:
        """(line number, line without its line break) of a released file, streamed through the safe reader
        (common/safe_archives.py); UTF-8, a BOM tolerated, each line at most MAX_LINE bytes."""
        try:
            with self._open(self.files[name]) as raw:
                yield from text_lines(raw, name, MAX_LINE)
        except ReadRefused as exc:
            raise Flickr8kImportError([str(exc).replace(" line ", ": line ", 1)]) from None

    def image_bytes(self, file_name: str) -> bytes | None:
        where = self.images.get(file_name)
        if where is None:
            return None
        try:
            if self.archive is not None:
                return self.archive.read(where, MAX_IMAGE_BYTES)
            with open_file(Path(where), file_name, MAX_IMAGE_BYTES) as raw:
                return read_capped(raw, file_name, MAX_IMAGE_BYTES)
        except ReadRefused as exc:
            raise Flickr8kImportError([str(exc)]) from None

    def _open(self, where: str) -> IO[bytes]:
        return self.archive.open(where) if self.archive is not None else open_file(Path(where))


def _wanted(names: dict[str, str], images: dict[str, str], path: str, released_folder: bool) -> None:
    base = PurePosixPath(path.replace("\\", "/"))
    if "__MACOSX" in base.parts or base.name.startswith("._"):
        return
    if base.name in (TOKEN_FILE, EXPERT_FILE, CROWD_FILE, *SPLIT_FILES.values()):
        names.setdefault(base.name, path)
    elif released_folder or IMAGES_FOLDER in base.parts[:-1]:
        images.setdefault(base.name, path)


def open_release(path: Path, images: Path | None = None) -> Release:
    """The release in a folder or a zip (its text files found by name), with images from `images` (a folder of
    image files) or from a `Flicker8k_Dataset/` folder inside it. Flickr8kImportError when the token file is
    missing."""
    release = Release()
    if path.is_dir():
        release.root = path
        for folder, _, files in os.walk(path):
            for name in files:
                _wanted(release.files, release.images, os.path.join(folder, name), False)
    elif is_zip(path):
        try:
            release.archive = SafeZip(path)
        except ReadRefused as exc:
            raise Flickr8kImportError([str(exc)]) from None
        for name in release.archive.names():
            if ".." not in PurePosixPath(name).parts:
                _wanted(release.files, release.images, name, False)
    else:
        raise Flickr8kImportError([f"{path.name}: neither a folder nor a zip"])
    if images is not None:
        if not images.is_dir():
            raise Flickr8kImportError([f"{images}: not a folder of image files"])
        release.images = {entry.name: str(entry) for entry in images.iterdir() if entry.is_file()}
    if not release.has(TOKEN_FILE):
        raise Flickr8kImportError([f"{path.name}: no {TOKEN_FILE} (the release's captions) in it"])
    return release
