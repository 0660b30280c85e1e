"""ImageCLEF import, first pass: every file read and checked, every problem collected (check_imageclef)."""
from __future__ import annotations

import hashlib
from collections import defaultdict

from django.conf import settings

from common.text_input import column_length, decode_text, unstorable
from metrics.text.markup import MarkupError, parse
from mturk.importers import ProblemList

from ...exports.common import key_problem
from ...exports.imageclef import BOXES_HEADER, DESCRIPTIONS_HEADER, IMAGES_HEADER
from ...models import Box, Concept, Description, Image, Vocabulary
from ..boxes import box_problem
from ..concepts import ConceptImportError, parse_concepts
from ..image_files import ImageRejected, inspect_image
from ..images import unsafe_member_reason
from .source import (
    BOXES,
    CONCEPTS,
    DESCRIPTIONS,
    IMAGES,
    KEY_LENGTH,
    MAX_INTEGER,
    SOURCE,
    BoxLine,
    DescriptionSpec,
    ImageCLEFImportError,
    ImageSpec,
    Plan,
    Source,
    integer,
    table_rows,
)


def _check_concepts(source: Source, plan: Plan, errors: ProblemList, owner: Vocabulary | None) -> set[str]:
    """concepts.tsv's concept names (after checking the file; a parent may be a label the vocabulary has)."""
    try:
        data = source.read(CONCEPTS, settings.IMPORT_MAX_DOCUMENT_BYTES)
    except OSError as exc:
        errors.add(f"{CONCEPTS}: cannot be read ({exc})")
        return set()
    if data is None:
        errors.add(f"{CONCEPTS}: file missing")
        return set()
    try:
        plan.concepts_text = decode_text(data)
    except ValueError as exc:
        errors.add(f"{CONCEPTS}: {exc}")
        return set()
    try:
        return {row.name for row in parse_concepts(plan.concepts_text, CONCEPTS, owner)}
    except ConceptImportError as exc:
        for message in exc.errors:
            errors.add(message)
        # the names the file defines all the same, so that boxes.tsv is not reported as using unknown concepts
        return {line.split("\t", 1)[0].strip() for line in plan.concepts_text.splitlines()[1:]}


def _check_images(source: Source, plan: Plan, errors: ProblemList) -> tuple[dict[str, ImageSpec], set[str] | None]:
    """Checks images.tsv and the image files; returns the images by key, and every key the file names (None when
    the file could not be read) so that other files do not report an image whose line is wrong as unknown."""
    by_key: dict[str, ImageSpec] = {}
    by_hash: dict[str, ImageSpec] = {}
    table = table_rows(source, IMAGES, IMAGES_HEADER, errors)
    for line, (key, file, width_text, height_text) in table.rows:
        where = f"{IMAGES} line {line}"
        problem = key_problem(key)
        if problem is None and len(key) > KEY_LENGTH:
            problem = f"the image key is {len(key)} characters long (at most {KEY_LENGTH})"
        if problem:
            errors.add(f"{where}: {problem}")
            continue
        if key in by_key:
            errors.add(f"{where}: image '{key}' is already listed on line {by_key[key].line}")
            continue
        width, height = integer(width_text), integer(height_text)
        if width is None or height is None or width < 1 or height < 1:
            errors.add(f"{where}: width and height must be whole numbers of pixels, got "
                          f"'{width_text}' and '{height_text}'")
            width = height = None
        spec = ImageSpec(line, key, file, width or 0, height or 0)
        by_key[key] = spec
        reason = unsafe_member_reason(file) if file else "the file name is empty"
        if reason:
            errors.add(f"{where}: image file '{file}': {reason}")
            continue
        try:
            data = source.read(file, settings.IMAGE_MAX_BYTES)
        except (OSError, ValueError) as exc:
            errors.add(f"{where}: image file '{file}' cannot be read ({exc})")
            continue
        if data is None:
            errors.add(f"{where}: image file '{file}' is missing")
            continue
        try:
            info = inspect_image(data)
        except ImageRejected as exc:
            errors.add(f"{where}: image file '{file}' cannot be used: {exc}")
            continue
        if width is not None and (width, height) != (info.width, info.height):
            errors.add(f"{where}: the size {width}x{height} does not match the image file '{file}' "
                          f"({info.width}x{info.height})")
        spec.width, spec.height = info.width, info.height  # boxes are checked against the actual image
        spec.sha256 = hashlib.sha256(data).hexdigest()
        if spec.sha256 in by_hash:
            errors.add(f"{where}: image file '{file}' has the same content as image "
                          f"'{by_hash[spec.sha256].key}' (line {by_hash[spec.sha256].line})")
            continue
        by_hash[spec.sha256] = spec
        plan.images.append(spec)
    _check_stored_images(plan.images, errors)
    return by_key, ({cells[0] for cells in table.lines} if table.readable else None)


def _check_stored_images(specs: list[ImageSpec], errors: ProblemList) -> None:
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
            errors.add(f"{where}: the image key '{spec.key}' is already used by a different image")
        elif existing is not None and existing.pk in annotated:
            errors.add(f"{where}: image '{spec.key}' already has boxes or descriptions (already imported)")
        elif existing is not None:
            spec.existing = existing
        elif spec.sha256 in stored_by_hash:
            errors.add(f"{where}: the image file '{spec.file}' is already stored under the key "
                          f"'{stored_by_hash[spec.sha256].key}'")


def _unknown_image(key: str, listed: set[str] | None) -> bool:
    """A key images.tsv does not name (a key on a wrong line of images.tsv, or an unreadable images.tsv, has
    already been reported there)."""
    return listed is not None and key not in listed


def _check_boxes(source: Source, plan: Plan, images: dict[str, ImageSpec], listed: set[str] | None,
                 concepts: set[str], errors: ProblemList, owner: Vocabulary | None) -> dict[str, set[int]] | None:
    """Checks boxes.tsv; returns the box numbers each image key has (None when the file could not be read)."""
    numbers: dict[str, dict[int, int]] = defaultdict(dict)  # key -> {number: line}
    table = table_rows(source, BOXES, BOXES_HEADER, errors)
    used = {cells[2] for _, cells in table.rows}
    known = concepts | set(Concept.objects.filter(vocabulary=owner, name__in=used).values_list("name", flat=True)
                           if owner is not None else ())
    for line, (key, number_text, concept, *coordinates) in table.rows:
        where = f"{BOXES} line {line}"
        image = images.get(key)
        if _unknown_image(key, listed):
            errors.add(f"{where}: unknown image '{key}' (not in {IMAGES})")
        number = integer(number_text)
        if number is None or number < 0:
            errors.add(f"{where}: the box id must be a whole number from 0 to {MAX_INTEGER}, "
                          f"got '{number_text[:40]}'")
            number = None
        elif number in numbers[key]:
            errors.add(f"{where}: box {number} of image '{key}' is already defined on line {numbers[key][number]}")
            number = None
        else:
            numbers[key][number] = line
        if concept not in known:
            errors.add(f"{where}: unknown concept '{concept}'")
        values: list = [integer(text) if integer(text) is not None else text for text in coordinates]
        if image is not None and image.width and image.height:
            problem = box_problem(image.width, image.height, *values)
        else:  # the image is reported elsewhere; still check the numbers are numbers
            problem = next((p for p in [box_problem(1, 1, *values)] if p and "whole number" in p), None)
        if problem:
            errors.add(f"{where}: {problem}")
        elif image is not None and number is not None:
            plan.boxes.append(BoxLine(line, key, number, concept, *values))
    if not table.readable:
        return None
    mentioned: dict[str, set[int]] = defaultdict(set)  # numbers on every line, right or wrong
    for cells in table.lines:
        if len(cells) > 1 and integer(cells[1]) is not None:
            mentioned[cells[0]].add(int(cells[1]))
    return mentioned


def _check_descriptions(source: Source, plan: Plan, listed: set[str] | None, boxes: dict[str, set[int]] | None,
                        errors: ProblemList) -> None:
    seen: dict[str, dict[int, int]] = defaultdict(dict)
    for line, (key, index_text, description_source, linked_text, markup) in table_rows(
        source, DESCRIPTIONS, DESCRIPTIONS_HEADER, errors
    ).rows:
        where = f"{DESCRIPTIONS} line {line}"
        problems = errors.count
        if _unknown_image(key, listed):
            errors.add(f"{where}: unknown image '{key}' (not in {IMAGES})")
        index = integer(index_text)
        if index is None or index < 1:
            errors.add(f"{where}: the description number must be a whole number from 1, got '{index_text}'")
        elif index in seen[key]:
            errors.add(f"{where}: description {index} of image '{key}' is already given on line {seen[key][index]}")
        else:
            seen[key][index] = line
        if not SOURCE.fullmatch(description_source):
            errors.add(f"{where}: the source must be a word of at most 20 letters, digits, '_', '-' or '.', "
                          f"got '{description_source}'")
        if linked_text not in ("0", "1"):
            errors.add(f"{where}: linked must be 0 or 1, got '{linked_text}'")
        try:
            marked = parse(markup)
        except MarkupError as exc:
            errors.add(f"{where}: malformed markup: {exc}")
            continue
        if linked_text == "0" and marked.links:
            errors.add(f"{where}: the markup has links but linked is 0")
        if boxes is not None and not _unknown_image(key, listed):
            unknown = sorted(set(marked.links.values()) - boxes.get(key, set()))
            if unknown:
                errors.add(f"{where}: image '{key}' has no box {', '.join(map(str, unknown))}")
        if errors.count == problems:
            plan.descriptions.append(DescriptionSpec(line, key, index or 0, description_source, linked_text == "1",
                                                      marked.tokens, marked.links))


def check_imageclef(source: Source, vocabulary: str) -> Plan:
    """Read and check every file; raises ImageCLEFImportError listing every problem."""
    errors = ProblemList(ImageCLEFImportError)
    plan = Plan()
    if not vocabulary or len(vocabulary) > column_length(Vocabulary, "name"):
        errors.add(f"the vocabulary name '{vocabulary}' must have 1 to 100 characters")
    elif unstorable(vocabulary):
        errors.add(f"the vocabulary name {vocabulary!r} holds {unstorable(vocabulary)}")
    owner = Vocabulary.objects.filter(name=vocabulary).first() if not errors.count else None
    concepts = _check_concepts(source, plan, errors, owner)
    images, listed = _check_images(source, plan, errors)
    boxes = _check_boxes(source, plan, images, listed, concepts, errors, owner)
    _check_descriptions(source, plan, listed, boxes, errors)
    errors.raise_any()
    return plan
