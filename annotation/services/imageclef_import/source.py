"""ImageCLEF import: the dataset's files (a directory or a zip), their TSV rows, the plan of what to write and the
summary."""
from __future__ import annotations

import re
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from common.safe_archives import ReadRefused, ReleaseFiles, text_lines
from common.text_input import column_length, unstorable
from mturk.importers import ProblemList

from ...models import Image

CONCEPTS, IMAGES, BOXES, DESCRIPTIONS = "concepts.tsv", "images.tsv", "boxes.tsv", "descriptions.tsv"
INTEGER = re.compile(r"[+-]?\d{1,10}")
MAX_INTEGER = 2**31 - 1  # the largest box number, size or coordinate a column holds
SOURCE = re.compile(r"[A-Za-z0-9_.-]{1,20}")
KEY_LENGTH = column_length(Image, "key")


class ImageCLEFImportError(ValueError):
    """The dataset cannot be imported; `errors` lists the problems (the first 50, then how many more), each
    naming its file and line."""

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


class Source(ReleaseFiles):
    """The files of the dataset: a directory, or a zip (files at its root or in one top-level folder), read through
    common/safe_archives.py."""

    def __init__(self, path: Path) -> None:
        try:
            super().__init__(path)
        except ReadRefused as exc:
            raise ImageCLEFImportError([str(exc)]) from None
        self.use_top_folder(IMAGES)


class Table:
    """A TSV file's data lines, kept as their text (one string per line, its cells split when read) so that a table
    takes about twice its size in memory, not the six or seven times of a list of cells per line."""

    def __init__(self) -> None:
        self.readable = False  # False when the file is missing, unreadable or has a wrong header (it was reported)
        self._texts: list[str] = []  # every data line
        self._numbers = array("L")  # its line number
        self._good = bytearray()  # 1: the right column count and storable cells

    def add(self, number: int, text: str, good: bool) -> None:
        self._texts.append(text)
        self._numbers.append(number)
        self._good.append(good)

    @property
    def rows(self) -> Iterator[tuple[int, list[str]]]:
        """(line number, stripped cells) of the lines with the right column count."""
        for text, number, good in zip(self._texts, self._numbers, self._good, strict=True):
            if good:
                yield number, _cells(text)

    @property
    def lines(self) -> Iterator[list[str]]:
        """The stripped cells of every data line, to tell a bad line from a missing one."""
        return (_cells(text) for text in self._texts)


def _cells(text: str) -> list[str]:
    return [cell.strip() for cell in text.split("\t")]


def table_rows(source: Source, name: str, header: tuple[str, ...], errors: ProblemList) -> Table:
    """The TSV file's data lines after its header, streamed line by line (each line at most IMPORT_MAX_LINE_BYTES,
    the file at most IMPORT_MAX_DOCUMENT_BYTES); comment and blank lines skipped; problems added to `errors`."""
    try:
        stream = source.open(name, settings.IMPORT_MAX_DOCUMENT_BYTES)
        if stream is None:
            errors.add(f"{name}: file missing")
            return Table()
        with stream:
            return _read_table(text_lines(stream, name), name, header, errors)
    except OSError as exc:
        errors.add(str(exc) if isinstance(exc, ReadRefused) else f"{name}: cannot be read ({exc})")
        return Table()


def _read_table(lines: Iterator[tuple[int, str]], name: str, header: tuple[str, ...],
                errors: ProblemList) -> Table:
    table = Table()
    for number, line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        cells = _cells(line)
        if not table.readable:
            if number != 1 or [cell.lower() for cell in cells] != list(header):
                break
            table.readable = True
            continue
        unusable = None if len(cells) != len(header) else next(
            ((column, why) for column, cell in enumerate(cells, start=1) if (why := unstorable(cell))), None)
        table.add(number, line, len(cells) == len(header) and unusable is None)
        if len(cells) != len(header) or unusable is not None:
            errors.add(f"{name} line {number}: expected {len(header)} tab-separated columns, found {len(cells)}"
                       if unusable is None else f"{name} line {number}: column {unusable[0]} holds {unusable[1]}")
    if not table.readable:
        errors.add(f"{name} line 1: expected the header {' / '.join(header)} (tab-separated)")
    return table


def integer(text: str) -> int | None:
    """The whole number in `text` (at most MAX_INTEGER in size), or None."""
    value = int(text) if INTEGER.fullmatch(text) else None
    return value if value is not None and abs(value) <= MAX_INTEGER else None
