"""ImageCLEF import: the dataset's files (a directory or a zip), their TSV rows, the plan of what to write and the
summary."""
from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from config.text_input import column_length, unstorable

from ...models import Image

CONCEPTS, IMAGES, BOXES, DESCRIPTIONS = "concepts.tsv", "images.tsv", "boxes.tsv", "descriptions.tsv"
INTEGER = re.compile(r"[+-]?\d{1,10}")
MAX_INTEGER = 2**31 - 1  # the largest box number, size or coordinate a column holds
SOURCE = re.compile(r"[A-Za-z0-9_.-]{1,20}")
KEY_LENGTH = column_length(Image, "key")


class ImageCLEFImportError(ValueError):
    """The dataset cannot be imported; `errors` lists every problem, each naming its file and line."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


@dataclass
class ImageCLEFImport:
    vocabulary: str
    concepts_created: int = 0
    images: int = 0  # created
    images_reused: int = 0  # already stored with the same key and content, without boxes or descriptions
    boxes: int = 0
    descriptions: int = 0
    correspondences: int = 0
    links: int = 0

    def __str__(self) -> str:
        return (
            f"Vocabulary '{self.vocabulary}' ({self.concepts_created} new concepts); {self.images} images imported"
            f" ({self.images_reused} already stored), {self.boxes} boxes, {self.descriptions} descriptions,"
            f" {self.correspondences} correspondences with {self.links} word links"
        )


@dataclass
class ImageSpec:
    line: int
    key: str
    file: str
    width: int
    height: int
    sha256: str = ""
    existing: Image | None = None


@dataclass
class BoxLine:
    line: int
    key: str
    number: int
    concept: str
    x: int
    y: int
    width: int
    height: int


@dataclass
class DescriptionSpec:
    line: int
    key: str
    index: int
    source: str
    linked: bool
    tokens: list[str]
    links: dict[int, int]


@dataclass
class Plan:
    concepts_text: str = ""
    images: list[ImageSpec] = field(default_factory=list)
    boxes: list[BoxLine] = field(default_factory=list)
    descriptions: list[DescriptionSpec] = field(default_factory=list)


class Source:
    """The files of the dataset: a directory, or a zip (files at its root or in one top-level folder)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.archive: zipfile.ZipFile | None = None
        self.prefix = ""
        if path.is_dir():
            self.name = path.resolve().name
        elif path.is_file() and zipfile.is_zipfile(path):
            self.name = path.stem
            try:
                self.archive = zipfile.ZipFile(path)
            except (zipfile.BadZipFile, OSError) as exc:
                raise ImageCLEFImportError([f"{path}: not a readable zip file ({exc})"]) from None
            names = set(self.archive.namelist())
            if IMAGES not in names:
                tops = {name.split("/", 1)[0] for name in names if "/" in name}
                nested = [top for top in tops if f"{top}/{IMAGES}" in names]
                if len(nested) == 1:
                    self.prefix = nested[0] + "/"
        elif path.exists():
            raise ImageCLEFImportError([f"{path}: not a directory or a zip file"])
        else:
            raise ImageCLEFImportError([f"{path} does not exist"])

    def read(self, name: str, limit: int) -> bytes | None:
        """The file's bytes, None when it is missing; OSError when it cannot be read, ValueError over the limit."""
        if self.archive is not None:
            try:
                info = self.archive.getinfo(self.prefix + name)
            except KeyError:
                return None
            if info.file_size > limit:
                raise ValueError(f"it is over the limit of {limit} bytes")
            try:
                with self.archive.open(info) as member:
                    return member.read(limit + 1)
            except (zipfile.BadZipFile, RuntimeError) as exc:
                raise OSError(str(exc)) from None
        file = self.path / name
        if not file.is_file():
            return None
        if file.stat().st_size > limit:
            raise ValueError(f"it is over the limit of {limit} bytes")
        return file.read_bytes()

    def close(self) -> None:
        if self.archive is not None:
            self.archive.close()


def read_text(source: Source, name: str, errors: list[str]) -> list[tuple[int, list[str]]] | None:
    """The data lines of a TSV file as (line number, cells), after checking its header; None on a problem."""
    try:
        data = source.read(name, settings.IMPORT_MAX_TOTAL_BYTES)
    except (OSError, ValueError) as exc:
        errors.append(f"{name}: cannot be read ({exc})")
        return None
    if data is None:
        errors.append(f"{name}: file missing")
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        errors.append(f"{name}: not UTF-8 text ({exc})")
        return None
    lines = [line.rstrip("\r") for line in text.split("\n")]
    return [(number, line.split("\t")) for number, line in enumerate(lines, start=1)
            if line.strip() and not line.startswith("#")]


@dataclass
class Table:
    rows: list[tuple[int, list[str]]]  # (line number, stripped cells) of the lines with the right column count
    lines: list[list[str]]  # the stripped cells of every data line, to tell a bad line from a missing one
    readable: bool  # False when the file is missing, unreadable or has a wrong header (it was reported)


def table_rows(source: Source, name: str, header: tuple[str, ...], errors: list[str]) -> Table:
    lines = read_text(source, name, errors)
    if lines is None:
        return Table([], [], False)
    if not lines or lines[0][0] != 1 or [cell.strip().lower() for cell in lines[0][1]] != list(header):
        errors.append(f"{name} line 1: expected the header {' / '.join(header)} (tab-separated)")
        return Table([], [], False)
    table = Table([], [], True)
    for number, cells in lines[1:]:
        cells = [cell.strip() for cell in cells]
        table.lines.append(cells)
        if len(cells) != len(header):
            errors.append(f"{name} line {number}: expected {len(header)} tab-separated columns, found {len(cells)}")
            continue
        unusable = next(((column, why) for column, cell in enumerate(cells, start=1) if (why := unstorable(cell))),
                        None)
        if unusable:
            errors.append(f"{name} line {number}: column {unusable[0]} holds {unusable[1]}")
            continue
        table.rows.append((number, cells))
    return table


def integer(text: str) -> int | None:
    """The whole number in `text` (at most MAX_INTEGER in size), or None."""
    value = int(text) if INTEGER.fullmatch(text) else None
    return value if value is not None and abs(value) <= MAX_INTEGER else None
