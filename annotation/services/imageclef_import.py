"""Importing a dataset in the ImageCLEF-style layout (docs/formats/imageclef.md): a directory or a zip with
concepts.tsv, images.tsv, the image files, boxes.tsv and descriptions.tsv.

Everything is checked before anything is written, and every problem is collected, each naming its file
and line (`boxes.tsv line 7: unknown concept 'wolf'`). A dataset with any problem changes nothing; a good
one is written in one transaction: concepts (and the vocabulary), images, gold boxes with their numbers,
descriptions and, for the linked ones, a gold correspondence."""
from __future__ import annotations

import hashlib
import re
import zipfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction

from config.text_input import column_length, unstorable
from metrics.text.markup import MarkupError, parse

from ..exports.imageclef import BOXES_HEADER, DESCRIPTIONS_HEADER, IMAGES_HEADER, key_problem
from ..models import Box, Concept, Description, Image, Vocabulary
from .boxes import BoxSpec, add_boxes, add_correspondence, box_problem
from .concepts import ConceptImportError, import_concepts, parse_concepts
from .image_files import ImageRejected, inspect_image
from .images import import_image_bytes, unsafe_member_reason

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
class _ImageSpec:
    line: int
    key: str
    file: str
    width: int
    height: int
    sha256: str = ""
    existing: Image | None = None


@dataclass
class _BoxSpec:
    line: int
    key: str
    number: int
    concept: str
    x: int
    y: int
    width: int
    height: int


@dataclass
class _DescriptionSpec:
    line: int
    key: str
    index: int
    source: str
    linked: bool
    tokens: list[str]
    links: dict[int, int]


@dataclass
class _Plan:
    concepts_text: str = ""
    images: list[_ImageSpec] = field(default_factory=list)
    boxes: list[_BoxSpec] = field(default_factory=list)
    descriptions: list[_DescriptionSpec] = field(default_factory=list)


class _Source:
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


def _read_text(source: _Source, name: str, errors: list[str]) -> list[tuple[int, list[str]]] | None:
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
class _Table:
    rows: list[tuple[int, list[str]]]  # (line number, stripped cells) of the lines with the right column count
    lines: list[list[str]]  # the stripped cells of every data line, to tell a bad line from a missing one
    readable: bool  # False when the file is missing, unreadable or has a wrong header (it was reported)


def _rows(source: _Source, name: str, header: tuple[str, ...], errors: list[str]) -> _Table:
    lines = _read_text(source, name, errors)
    if lines is None:
        return _Table([], [], False)
    if not lines or lines[0][0] != 1 or [cell.strip().lower() for cell in lines[0][1]] != list(header):
        errors.append(f"{name} line 1: expected the header {' / '.join(header)} (tab-separated)")
        return _Table([], [], False)
    table = _Table([], [], True)
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


def _integer(text: str) -> int | None:
    """The whole number in `text` (at most MAX_INTEGER in size), or None."""
    value = int(text) if INTEGER.fullmatch(text) else None
    return value if value is not None and abs(value) <= MAX_INTEGER else None


def _check_concepts(source: _Source, plan: _Plan, errors: list[str]) -> set[str]:
    """concepts.tsv's concept names (after checking the file)."""
    try:
        data = source.read(CONCEPTS, settings.IMPORT_MAX_TOTAL_BYTES)
    except (OSError, ValueError) as exc:
        errors.append(f"{CONCEPTS}: cannot be read ({exc})")
        return set()
    if data is None:
        errors.append(f"{CONCEPTS}: file missing")
        return set()
    try:
        plan.concepts_text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        errors.append(f"{CONCEPTS}: not UTF-8 text ({exc})")
        return set()
    try:
        return {row.name for row in parse_concepts(plan.concepts_text, CONCEPTS)}
    except ConceptImportError as exc:
        errors.extend(exc.errors)
        # the names the file defines all the same, so that boxes.tsv is not reported as using unknown concepts
        return {line.split("\t", 1)[0].strip() for line in plan.concepts_text.splitlines()[1:]}


def _check_images(source: _Source, plan: _Plan, errors: list[str]) -> tuple[dict[str, _ImageSpec], set[str] | None]:
    """Checks images.tsv and the image files; returns the images by key, and every key the file names (None when
    the file could not be read) so that other files do not report an image whose line is wrong as unknown."""
    by_key: dict[str, _ImageSpec] = {}
    by_hash: dict[str, _ImageSpec] = {}
    table = _rows(source, IMAGES, IMAGES_HEADER, errors)
    for line, (key, file, width_text, height_text) in table.rows:
        where = f"{IMAGES} line {line}"
        problem = key_problem(key)
        if problem is None and len(key) > KEY_LENGTH:
            problem = f"the image key is {len(key)} characters long (at most {KEY_LENGTH})"
        if problem:
            errors.append(f"{where}: {problem}")
            continue
        if key in by_key:
            errors.append(f"{where}: image '{key}' is already listed on line {by_key[key].line}")
            continue
        width, height = _integer(width_text), _integer(height_text)
        if width is None or height is None or width < 1 or height < 1:
            errors.append(f"{where}: width and height must be whole numbers of pixels, got "
                          f"'{width_text}' and '{height_text}'")
            width = height = None
        spec = _ImageSpec(line, key, file, width or 0, height or 0)
        by_key[key] = spec
        reason = unsafe_member_reason(file) if file else "the file name is empty"
        if reason:
            errors.append(f"{where}: image file '{file}': {reason}")
            continue
        try:
            data = source.read(file, settings.IMAGE_MAX_BYTES)
        except (OSError, ValueError) as exc:
            errors.append(f"{where}: image file '{file}' cannot be read ({exc})")
            continue
        if data is None:
            errors.append(f"{where}: image file '{file}' is missing")
            continue
        try:
            info = inspect_image(data)
        except ImageRejected as exc:
            errors.append(f"{where}: image file '{file}' cannot be used: {exc}")
            continue
        if width is not None and (width, height) != (info.width, info.height):
            errors.append(f"{where}: the size {width}x{height} does not match the image file '{file}' "
                          f"({info.width}x{info.height})")
        spec.width, spec.height = info.width, info.height  # boxes are checked against the actual image
        spec.sha256 = hashlib.sha256(data).hexdigest()
        if spec.sha256 in by_hash:
            errors.append(f"{where}: image file '{file}' has the same content as image "
                          f"'{by_hash[spec.sha256].key}' (line {by_hash[spec.sha256].line})")
            continue
        by_hash[spec.sha256] = spec
        plan.images.append(spec)
    _check_stored_images(plan.images, errors)
    return by_key, ({cells[0] for cells in table.lines} if table.readable else None)


def _check_stored_images(specs: list[_ImageSpec], errors: list[str]) -> None:
    """Images already in the database: the same key and content is reused (if it has no boxes nor descriptions)."""
    stored = {image.key: image for image in Image.objects.filter(key__in=[spec.key for spec in specs])}
    stored_by_hash = {image.sha256: image for image in Image.objects.filter(sha256__in=[s.sha256 for s in specs])}
    stored_ids = [image.pk for image in stored.values()]
    annotated = set(Box.objects.filter(image_id__in=stored_ids).values_list("image_id", flat=True))
    annotated |= set(Description.objects.filter(image_id__in=stored_ids).values_list("image_id", flat=True))
    for spec in specs:
        where = f"{IMAGES} line {spec.line}"
        existing = stored.get(spec.key)
        if existing is not None and existing.sha256 != spec.sha256:
            errors.append(f"{where}: the image key '{spec.key}' is already used by a different image")
        elif existing is not None and existing.pk in annotated:
            errors.append(f"{where}: image '{spec.key}' already has boxes or descriptions (already imported)")
        elif existing is not None:
            spec.existing = existing
        elif spec.sha256 in stored_by_hash:
            errors.append(f"{where}: the image file '{spec.file}' is already stored under the key "
                          f"'{stored_by_hash[spec.sha256].key}'")


def _unknown_image(key: str, listed: set[str] | None) -> bool:
    """A key images.tsv does not name (a key on a wrong line of images.tsv, or an unreadable images.tsv, has
    already been reported there)."""
    return listed is not None and key not in listed


def _check_boxes(source: _Source, plan: _Plan, images: dict[str, _ImageSpec], listed: set[str] | None,
                 concepts: set[str], errors: list[str]) -> dict[str, set[int]] | None:
    """Checks boxes.tsv; returns the box numbers each image key has (None when the file could not be read)."""
    numbers: dict[str, dict[int, int]] = defaultdict(dict)  # key -> {number: line}
    table = _rows(source, BOXES, BOXES_HEADER, errors)
    used = {cells[2] for _, cells in table.rows}
    known = concepts | set(Concept.objects.filter(name__in=used).values_list("name", flat=True))
    for line, (key, number_text, concept, *coordinates) in table.rows:
        where = f"{BOXES} line {line}"
        image = images.get(key)
        if _unknown_image(key, listed):
            errors.append(f"{where}: unknown image '{key}' (not in {IMAGES})")
        number = _integer(number_text)
        if number is None or number < 0:
            errors.append(f"{where}: the box id must be a whole number from 0 to {MAX_INTEGER}, "
                          f"got '{number_text[:40]}'")
            number = None
        elif number in numbers[key]:
            errors.append(f"{where}: box {number} of image '{key}' is already defined on line {numbers[key][number]}")
            number = None
        else:
            numbers[key][number] = line
        if concept not in known:
            errors.append(f"{where}: unknown concept '{concept}'")
        values: list = [_integer(text) if _integer(text) is not None else text for text in coordinates]
        if image is not None and image.width and image.height:
            problem = box_problem(image.width, image.height, *values)
        else:  # the image is reported elsewhere; still check the numbers are numbers
            problem = next((p for p in [box_problem(1, 1, *values)] if p and "whole number" in p), None)
        if problem:
            errors.append(f"{where}: {problem}")
        elif image is not None and number is not None:
            plan.boxes.append(_BoxSpec(line, key, number, concept, *values))
    if not table.readable:
        return None
    mentioned: dict[str, set[int]] = defaultdict(set)  # numbers on every line, right or wrong
    for cells in table.lines:
        if len(cells) > 1 and _integer(cells[1]) is not None:
            mentioned[cells[0]].add(int(cells[1]))
    return mentioned


def _check_descriptions(source: _Source, plan: _Plan, listed: set[str] | None, boxes: dict[str, set[int]] | None,
                        errors: list[str]) -> None:
    seen: dict[str, dict[int, int]] = defaultdict(dict)
    for line, (key, index_text, description_source, linked_text, markup) in _rows(
        source, DESCRIPTIONS, DESCRIPTIONS_HEADER, errors
    ).rows:
        where = f"{DESCRIPTIONS} line {line}"
        problems = len(errors)
        if _unknown_image(key, listed):
            errors.append(f"{where}: unknown image '{key}' (not in {IMAGES})")
        index = _integer(index_text)
        if index is None or index < 1:
            errors.append(f"{where}: the description number must be a whole number from 1, got '{index_text}'")
        elif index in seen[key]:
            errors.append(f"{where}: description {index} of image '{key}' is already given on line {seen[key][index]}")
        else:
            seen[key][index] = line
        if not SOURCE.fullmatch(description_source):
            errors.append(f"{where}: the source must be a word of at most 20 letters, digits, '_', '-' or '.', "
                          f"got '{description_source}'")
        if linked_text not in ("0", "1"):
            errors.append(f"{where}: linked must be 0 or 1, got '{linked_text}'")
        try:
            marked = parse(markup)
        except MarkupError as exc:
            errors.append(f"{where}: malformed markup: {exc}")
            continue
        if linked_text == "0" and marked.links:
            errors.append(f"{where}: the markup has links but linked is 0")
        if boxes is not None and not _unknown_image(key, listed):
            unknown = sorted(set(marked.links.values()) - boxes.get(key, set()))
            if unknown:
                errors.append(f"{where}: image '{key}' has no box {', '.join(map(str, unknown))}")
        if len(errors) == problems:
            plan.descriptions.append(_DescriptionSpec(line, key, index or 0, description_source, linked_text == "1",
                                                      marked.tokens, marked.links))


def check_imageclef(source: _Source, vocabulary: str) -> _Plan:
    """Read and check every file; raises ImageCLEFImportError listing every problem."""
    errors: list[str] = []
    plan = _Plan()
    if not vocabulary or len(vocabulary) > column_length(Vocabulary, "name"):
        errors.append(f"the vocabulary name '{vocabulary}' must have 1 to 100 characters")
    elif unstorable(vocabulary):
        errors.append(f"the vocabulary name {vocabulary!r} holds {unstorable(vocabulary)}")
    concepts = _check_concepts(source, plan, errors)
    images, listed = _check_images(source, plan, errors)
    boxes = _check_boxes(source, plan, images, listed, concepts, errors)
    _check_descriptions(source, plan, listed, boxes, errors)
    if errors:
        raise ImageCLEFImportError(errors)
    return plan


def _write(source: _Source, plan: _Plan, vocabulary: str, summary: ImageCLEFImport, stored: list[str]) -> None:
    concepts = import_concepts(plan.concepts_text, vocabulary, source=CONCEPTS)
    summary.concepts_created = concepts.created
    concept_ids = dict(Concept.objects.filter(name__in={box.concept for box in plan.boxes}).values_list("name", "pk"))
    images: dict[str, Image] = {}
    for spec in plan.images:
        if spec.existing is not None:
            images[spec.key] = spec.existing
            summary.images_reused += 1
            continue
        data = source.read(spec.file, settings.IMAGE_MAX_BYTES) or b""
        image, created = import_image_bytes(PurePosixPath(spec.file).name, data, key=spec.key)
        if not created or image.key != spec.key:
            raise ImageCLEFImportError([f"{IMAGES} line {spec.line}: image '{spec.key}' was stored concurrently"])
        stored.append(image.original.name)
        images[spec.key] = image
        summary.images += 1
    boxes_by_image: dict[str, list[_BoxSpec]] = defaultdict(list)
    for box in plan.boxes:
        boxes_by_image[box.key].append(box)
    for key, specs in boxes_by_image.items():
        specs.sort(key=lambda box: box.number)
        add_boxes(images[key], [BoxSpec(concept_ids[b.concept], b.x, b.y, b.width, b.height) for b in specs],
                  source="gold", numbers=[b.number for b in specs])
        summary.boxes += len(specs)
    for described in sorted(plan.descriptions, key=lambda d: (d.key, d.index)):
        description = images[described.key].descriptions.create(
            text=" ".join(described.tokens), tokens=described.tokens, source=described.source
        )
        summary.descriptions += 1
        if described.linked:
            add_correspondence(description, described.links, source="gold")
            summary.correspondences += 1
            summary.links += len(described.links)


def import_imageclef(path: Path | str, vocabulary: str | None = None,
                     progress: Callable[[int, int], None] | None = None) -> ImageCLEFImport:
    """Import a directory (or zip) in the ImageCLEF-style layout; all or nothing.

    `progress(done, 2)`, when given, is called once everything is checked (1) and once it is written (2)."""
    source = _Source(Path(path))
    try:
        vocabulary = vocabulary or source.name
        plan = check_imageclef(source, vocabulary)
        if progress is not None:
            progress(1, 2)
        summary = ImageCLEFImport(vocabulary)
        stored: list[str] = []
        try:
            with transaction.atomic():
                _write(source, plan, vocabulary, summary, stored)
        except BaseException as exc:
            for name in stored:  # the rows are rolled back; the stored files must go too
                default_storage.delete(name)
            if isinstance(exc, (ImageRejected, IntegrityError, ValueError)) and not isinstance(
                exc, ImageCLEFImportError
            ):
                raise ImageCLEFImportError([f"nothing was imported: {exc}"]) from exc
            raise
        if progress is not None:
            progress(2, 2)
        return summary
    finally:
        source.close()
