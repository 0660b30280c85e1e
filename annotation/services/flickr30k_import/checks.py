"""Flickr30k Entities import, first pass: every file read and checked, the problems collected (check_release);
which images the platform has already."""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.db.models import Exists, OuterRef

from common.text_input import decode_text

from ...exports.common import key_problem
from ...models import Box, Description, Image, ImageOrigin
from ..concepts import ConceptImportError, check_vocabulary_name
from ..image_files import ImageRejected, inspect_image
from .parse import parse_annotation, parse_sentences
from .plan import ImagePlan, plan_image
from .source import (
    ANNOTATIONS,
    DATASET,
    KEY_LENGTH,
    MAX_FILE_BYTES,
    MAX_SPLIT_BYTES,
    ORIGIN_ID,
    SENTENCES,
    SPLITS,
    Flickr30kImport,
    Problems,
    Source,
)

CHUNK = 900  # keys per lookup query
TYPE_LENGTH = 100  # a type becomes a concept name


@dataclass(frozen=True, slots=True)
class Stored:
    pk: int
    has_origin: bool
    annotated: bool  # has boxes or descriptions: left as it is


@dataclass
class Plan:
    keys: list[str] = field(default_factory=list)  # sorted
    subsets: dict[str, str] = field(default_factory=dict)  # key -> train / val / test
    with_file: set[str] = field(default_factory=set)  # new images imported with their file
    stored: dict[str, Stored] = field(default_factory=dict)
    types: set[str] = field(default_factory=set)


def _text(source: Source, name: str, problems: list[str]) -> str | None:
    try:
        data = source.read(name, MAX_FILE_BYTES)
    except (OSError, ValueError) as exc:
        problems.append(f"{name}: cannot be read ({exc})")
        return None
    if data is None:
        problems.append(f"{name}: file missing")
        return None
    try:
        return decode_text(data)
    except ValueError as exc:
        problems.append(f"{name}: {exc}")
        return None


def load_image(source: Source, key: str, problems: list[str]) -> ImagePlan | None:
    """One image's two files read and planned (None when they have a problem: appended)."""
    before = len(problems)
    sentences_name, annotations_name = f"{SENTENCES}/{key}.txt", f"{ANNOTATIONS}/{key}.xml"
    text = _text(source, sentences_name, problems)
    sentences = parse_sentences(text, sentences_name, problems) if text is not None else []
    try:
        data = source.read(annotations_name, MAX_FILE_BYTES)
    except (OSError, ValueError) as exc:
        problems.append(f"{annotations_name}: cannot be read ({exc})")
        return None
    if data is None:
        problems.append(f"{annotations_name}: file missing")
        return None
    annotation = parse_annotation(data, annotations_name, problems)
    if annotation is None or len(problems) > before:
        return None
    plan = plan_image(annotation, sentences, sentences_name, problems)
    return plan if len(problems) == before else None


def _keys(source: Source, problems: Problems) -> list[str]:
    annotations = set(source.stems(ANNOTATIONS, ".xml"))
    sentences = set(source.stems(SENTENCES, ".txt"))
    if not annotations and not sentences:
        problems.add(f"{source.name}: no {ANNOTATIONS}/<id>.xml nor {SENTENCES}/<id>.txt files (the release's "
                     "layout)")
    for key in sorted(annotations - sentences):
        problems.add(f"{ANNOTATIONS}/{key}.xml: no {SENTENCES}/{key}.txt")
    for key in sorted(sentences - annotations):
        problems.add(f"{SENTENCES}/{key}.txt: no {ANNOTATIONS}/{key}.xml")
    keys = []
    for key in sorted(annotations & sentences):
        problem = key_problem(key)
        if problem is None and len(key) > KEY_LENGTH:
            problem = f"the image id is {len(key)} characters long (at most {KEY_LENGTH})"
        if problem:
            problems.add(f"{ANNOTATIONS}/{key}.xml: {problem}")
        else:
            keys.append(key)
    return keys


def _splits(source: Source, plan: Plan, summary: Flickr30kImport, problems: Problems) -> None:
    known = set(plan.keys)
    lines: dict[str, str] = {}
    outside = 0
    for split in SPLITS:
        name = f"{split}.txt"
        try:
            data = source.read(name, MAX_SPLIT_BYTES)
            text = data.decode("utf-8-sig") if data is not None else None
        except (OSError, ValueError) as exc:
            problems.add(f"{name}: cannot be read ({exc})")
            continue
        if text is None:
            continue
        for number, line in enumerate(text.split("\n"), start=1):
            key = line.strip()
            if not key:
                continue
            if key in lines:
                problems.add(f"{name} line {number}: image {key} is already in {lines[key]}")
                continue
            lines[key] = f"{name} line {number}"
            if key in known:
                plan.subsets[key] = split
            else:
                outside += 1
    if outside:
        summary.notes.append(f"{outside} image id(s) of the split files have no annotation files here: ignored")


def _file(source: Source, key: str, image: ImagePlan, digests: dict[str, str], problems: Problems) -> bool:
    """Whether the image comes with its file (checked: an acceptable image of the XML's size)."""
    name = image.file_name or f"{key}.jpg"
    where = f"{ANNOTATIONS}/{key}.xml"
    try:
        data = source.image(name, settings.IMAGE_MAX_BYTES)
    except (OSError, ValueError) as exc:
        problems.add(f"{where}: the image file {name} cannot be read ({exc})")
        return False
    if data is None:
        return False
    try:
        info = inspect_image(data)
    except ImageRejected as exc:
        problems.add(f"{where}: the image file {name} cannot be used: {exc}")
        return False
    if (info.width, info.height) != (image.width, image.height):
        problems.add(f"{where}: the image file {name} is {info.width}x{info.height} px, not "
                     f"{image.width}x{image.height} as <size> says")
        return False
    digest = hashlib.sha256(data).hexdigest()
    if digest in digests:
        problems.add(f"{where}: the image file {name} has the same content as image {digests[digest]}'s")
        return False
    digests[digest] = key
    return True


def _stored(plan: Plan, digests: dict[str, str], summary: Flickr30kImport, problems: Problems) -> None:
    annotated = Exists(Box.objects.filter(image=OuterRef("pk"))) | Exists(
        Description.objects.filter(image=OuterRef("pk")))
    for start in range(0, len(plan.keys), CHUNK):
        chunk = plan.keys[start:start + CHUNK]
        for pk, key, dataset, external_id, has in Image.objects.filter(key__in=chunk).annotate(
                has=annotated).values_list("pk", "key", "origin__dataset", "origin__external_id", "has"):
            if dataset is not None and (dataset, str(external_id)) != (DATASET, key):
                problems.add(f"{ANNOTATIONS}/{key}.xml: the image key '{key}' is already image {dataset}:"
                             f"{external_id}")
                continue
            plan.stored[key] = Stored(pk, dataset is not None, bool(has))
            plan.with_file.discard(key)
        ids = [int(key) for key in chunk if ORIGIN_ID.fullmatch(key)]
        for external_id, key in ImageOrigin.objects.filter(dataset=DATASET, external_id__in=ids).values_list(
                "external_id", "image__key"):
            if key != str(external_id):
                problems.add(f"{ANNOTATIONS}/{external_id}.xml: image {DATASET}:{external_id} is already stored "
                             f"under the key '{key}'")
    for start in range(0, len(digests), CHUNK):
        for digest, key in Image.objects.filter(sha256__in=list(digests)[start:start + CHUNK]).values_list(
                "sha256", "key"):
            mine = digests[str(digest)]
            if mine in plan.with_file:
                plan.with_file.discard(mine)
                summary.notes.append(f"the image file of {mine} is already stored as image '{key}': {mine} is "
                                     "known by reference")


def check_release(source: Source, vocabulary: str, summary: Flickr30kImport,
                  step: Callable[[], None]) -> Plan:
    """Read and check every file; raises Flickr30kImportError listing the problems."""
    problems = Problems()
    try:
        check_vocabulary_name(vocabulary, "--vocabulary")
    except ConceptImportError as exc:
        for error in exc.errors:
            problems.add(error)
    plan = Plan(keys=_keys(source, problems))
    _splits(source, plan, summary, problems)
    digests: dict[str, str] = {}
    for key in plan.keys:
        found: list[str] = []
        image = load_image(source, key, found)
        for problem in found:
            problems.add(problem)
        step()
        if image is None:
            continue
        for box in image.boxes:
            if len(box.type) > TYPE_LENGTH:
                problems.add(f"{SENTENCES}/{key}.txt: the type '{box.type[:40]}...' is longer than {TYPE_LENGTH}")
            plan.types.add(box.type)
        if _file(source, key, image, digests, problems):
            plan.with_file.add(key)
    _stored(plan, digests, summary, problems)
    problems.raise_any()
    return plan
