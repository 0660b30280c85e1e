"""Importing COCO annotation files (docs/formats/coco.md, "Importing COCO"): a captions file and, optionally, an
instances file, with or without the image files.

The files are read streamed (ijson), never loaded whole, so the full COCO 2014 files (414k captions; 332 MB of
instances, mostly segmentation polygons) import with bounded memory: what is kept is one small record per image,
the ids already seen and the categories. A first pass checks every record and collects the problems, each naming
the file and the record (`captions_val2014.json: annotations[12] (id 48): image_id 999 is not among the images`);
any problem and nothing is written. A second pass writes everything in one transaction, in batches.

- Images are matched by key, the file name without extension (COCO_val2014_000000391895): an image with that key
  (or already imported with this COCO id) is reused. Else, when a folder of image files is given and holds the
  file, it is imported like any image (checked, hashed, renditions made); otherwise the image is known by
  reference: no file, its size from COCO and its address (coco_url, else flickr_url). Every image gets an
  ImageOrigin("coco", id, subset).
- Captions become descriptions (source "coco", the caption id as external id).
- Categories become concepts (by name, existing ones reused) in the vocabulary "coco"; boxes are rounded to
  whole pixels, clipped inside the image and numbered after the image's existing boxes. Crowd annotations
  (iscrowd 1) are skipped and counted; segmentations are not imported.
- Re-importing a file adds nothing: captions and boxes whose ids are already imported are skipped and counted."""
from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any, TypeGuard, cast

import ijson
from django.core.files.storage import default_storage
from django.db import IntegrityError, reset_queries, transaction
from django.db.models import Max

from config.text_input import column_length, unstorable
from metrics.text.markup import tokenize

from ..models import Box, Concept, Description, Image, ImageOrigin, Vocabulary
from .image_files import ImageInfo, ImageRejected, inspect_image
from .images import import_image_bytes

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
class _Image:
    file_name: str
    width: int
    height: int
    url: str


@dataclass
class _Plan:
    images: dict[int, _Image] = field(default_factory=dict)  # COCO id -> image
    reused: dict[int, tuple[int, bool]] = field(default_factory=dict)  # COCO id -> (platform image id, has origin)
    with_file: set[int] = field(default_factory=set)  # new images whose file is imported
    refused: set[int] = field(default_factory=set)  # ids of images with a problem (reported once)
    categories: dict[int, str] = field(default_factory=dict)  # COCO category id -> name
    records: int = 0  # records checked: the write pass goes over as many


class _Problems:
    def __init__(self) -> None:
        self.listed: list[str] = []
        self.count = 0

    def add(self, message: str) -> None:
        self.count += 1
        if len(self.listed) < MAX_LISTED:
            self.listed.append(message)

    def raise_any(self) -> None:
        if self.count:
            more = self.count - len(self.listed)
            raise CocoImportError(self.listed + ([f"... and {more} more problem(s)"] if more else []))


class _Counter:
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


def _whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _records(source: CocoFile, section: str, problems: _Problems) -> Iterator[tuple[int, Any]]:
    """The items of the top-level list `section`, streamed, with their index."""
    try:
        with source.open() as handle:
            yield from enumerate(ijson.items(handle, f"{section}.item", use_float=True))
    except OSError as exc:
        problems.add(f"{source.name}: cannot be read ({exc})")
    except ijson.JSONError as exc:
        problems.add(f"{source.name}: not valid JSON ({exc})")


def _file_name_problem(file_name: object) -> str | None:
    if not isinstance(file_name, str) or not file_name.strip():
        return f"file_name must be a file name, got {_show(file_name)}"
    if "/" in file_name or "\\" in file_name or file_name.startswith(".") or unstorable(file_name):
        return f"file_name {_show(file_name)} is not a plain file name (no folders, no leading dot)"
    if len(file_name) > 255 or len(PurePosixPath(file_name).stem) > KEY_LENGTH:
        return f"file_name {_show(file_name)} is too long"
    return None


def _url(record: dict[str, Any]) -> str | None:
    """coco_url, else flickr_url ("" when neither); None when one is not a usable address."""
    for name in ("coco_url", "flickr_url"):
        value = record.get(name)
        if value in (None, ""):
            continue
        if not isinstance(value, str) or not value.startswith(("http://", "https://")) or len(value) > URL_LENGTH:
            return None
        return value
    return ""


def _check_images(source: CocoFile, plan: _Plan, keys: dict[str, int], problems: _Problems,
                  counter: _Counter) -> None:
    here = 0
    for where, record in _identified(source, "images", plan, problems, counter):
        here += 1
        image_id = record["id"]
        if image_id in plan.refused:  # the captions file's record of it is wrong: reported there
            continue
        file_name, width, height, url = record.get("file_name"), record.get("width"), record.get("height"), _url(record)
        problem = _file_name_problem(file_name)
        if problem is None and not (_whole(width) and _whole(height) and width > 0 and height > 0):
            problem = f"width and height must be positive whole numbers, got {_show(width)} and {_show(height)}"
        if problem is None and url is None:
            problem = "coco_url / flickr_url must be an http(s) address of at most 500 characters"
        if problem:
            problems.add(f"{where}: {problem}")
            plan.refused.add(image_id)
            plan.images.pop(image_id, None)
            continue
        image = _Image(cast(str, file_name), cast(int, width), cast(int, height), url or "")
        known = plan.images.get(image_id)
        if known is not None:  # given by the captions file too: must be the same image
            if (known.file_name, known.width, known.height) != (image.file_name, image.width, image.height):
                problems.add(f"{where}: differs from image {image_id} of the captions file "
                             f"({known.file_name}, {known.width}x{known.height})")
            continue
        key = PurePosixPath(image.file_name).stem
        if keys.get(key, image_id) != image_id:
            problems.add(f"{where}: file_name {file_name!r} gives the same image key as image {keys[key]}")
            continue
        keys[key] = image_id
        plan.images[image_id] = image
    if not here:
        problems.add(f"{source.name}: holds no images (a COCO file has an \"images\" list)")


def _identified(source: CocoFile, section: str, plan: _Plan, problems: _Problems,
                counter: _Counter) -> Iterator[tuple[str, dict[str, Any]]]:
    """The records of the file's `section` ("images", "annotations") that are objects with a whole id given once,
    with where they are; the others are problems."""
    ids: set[int] = set()
    for index, record in _records(source, section, problems):
        counter.step()
        plan.records += 1
        where = f"{source.name}: {section}[{index}]"
        if not isinstance(record, dict):
            problems.add(f"{where}: not an object")
            continue
        record_id = record.get("id")
        if not _whole(record_id):
            problems.add(f"{where}: id must be a whole number, got {_show(record_id)}")
            continue
        where += f" (id {record_id})"
        if record_id in ids:
            problems.add(f"{where}: the id is given twice")
            continue
        ids.add(record_id)
        yield where, record


def _check_captions(source: CocoFile, plan: _Plan, problems: _Problems, counter: _Counter) -> None:
    captions = 0
    for where, record in _identified(source, "annotations", plan, problems, counter):
        captions += 1
        image_id, caption = record.get("image_id"), record.get("caption")
        if not _whole(image_id) or image_id not in plan.images and image_id not in plan.refused:
            problems.add(f"{where}: image_id {_show(image_id)} is not among the images")
        if not isinstance(caption, str) or not caption.strip():
            problems.add(f"{where}: caption must be a non-empty text, got {_show(caption)}")
        elif unstorable(caption):
            problems.add(f"{where}: the caption holds {unstorable(caption)}")
    if not captions:
        problems.add(f"{source.name}: holds no captions (a COCO captions file has an \"annotations\" list)")


def _check_categories(source: CocoFile, plan: _Plan, problems: _Problems, counter: _Counter) -> None:
    names: dict[str, int] = {}
    for index, record in _records(source, "categories", problems):
        counter.step()
        plan.records += 1
        where = f"{source.name}: categories[{index}]"
        category_id = record.get("id") if isinstance(record, dict) else None
        if not _whole(category_id):
            problems.add(f"{where}: id must be a whole number, got {_show(category_id)}")
            continue
        where += f" (id {category_id})"
        name = record.get("name")
        name = name.strip() if isinstance(name, str) else name
        if category_id in plan.categories:
            problems.add(f"{where}: the id is given twice")
        elif not isinstance(name, str) or not name or len(name) > NAME_LENGTH or unstorable(name):
            problems.add(f"{where}: name must be a text of 1 to {NAME_LENGTH} characters, got {_show(name)}")
        elif name in names:
            problems.add(f"{where}: the name {name!r} is also category {names[name]}'s")
        else:
            names[name] = category_id
            plan.categories[category_id] = name
    if not plan.categories:
        problems.add(f"{source.name}: holds no categories (a COCO instances file has a \"categories\" list)")


def _bbox_problem(bbox: object, image: _Image) -> str | None:
    if not isinstance(bbox, list) or len(bbox) != 4 or not all(_number(v) for v in bbox):
        return f"bbox must be [x, y, width, height] in pixels, got {_show(bbox)}"
    x, y, width, height = bbox
    if width <= 0 or height <= 0:
        return f"bbox {_show(bbox)} has no area"
    if (x < -BBOX_TOLERANCE or y < -BBOX_TOLERANCE or x + width > image.width + BBOX_TOLERANCE
            or y + height > image.height + BBOX_TOLERANCE):
        return f"bbox {_show(bbox)} lies outside the image ({image.width}x{image.height} px)"
    return None


def _check_instances(source: CocoFile, plan: _Plan, problems: _Problems, counter: _Counter) -> None:
    for where, record in _identified(source, "annotations", plan, problems, counter):
        image_id, category_id = record.get("image_id"), record.get("category_id")
        image = plan.images.get(image_id) if _whole(image_id) else None
        if image is None and image_id not in plan.refused:
            problems.add(f"{where}: image_id {_show(image_id)} is not among the images")
        if not _whole(category_id) or category_id not in plan.categories:
            problems.add(f"{where}: category_id {_show(category_id)} is not among the categories")
        if record.get("iscrowd", 0) not in (0, 1):
            problems.add(f"{where}: iscrowd must be 0 or 1, got {_show(record.get('iscrowd'))}")
        if image is not None and (problem := _bbox_problem(record.get("bbox"), image)):
            problems.add(f"{where}: {problem}")


def _chunks(items: list[Any], size: int = 900) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _check_stored(plan: _Plan, image_files: ImageFiles | None, summary: CocoImport, problems: _Problems) -> None:
    """Which images the platform has already (by COCO id, else by key); which new ones come with their file."""
    ids = sorted(plan.images)
    for chunk in _chunks(ids):
        for coco_id, image_id in ImageOrigin.objects.filter(dataset=DATASET, external_id__in=chunk).values_list(
                "external_id", "image_id"):
            plan.reused[coco_id] = (image_id, True)
        wanted = {PurePosixPath(plan.images[i].file_name).stem: i for i in chunk if i not in plan.reused}
        for key, image_id, dataset, external_id in Image.objects.filter(key__in=list(wanted)).values_list(
                "key", "pk", "origin__dataset", "origin__external_id"):
            coco_id = wanted[key]
            if dataset is not None:
                problems.add(f"images (id {coco_id}): the image key '{key}' is already image {dataset}:{external_id}")
            else:
                plan.reused[coco_id] = (image_id, False)
    if image_files is None:
        return
    missing: list[str] = []
    digests: dict[str, int] = {}
    for coco_id in ids:
        image = plan.images[coco_id]
        if coco_id in plan.reused:
            continue
        try:
            data = image_files(image.file_name)
        except OSError as exc:
            problems.add(f"images (id {coco_id}): the file {image.file_name} cannot be read ({exc})")
            continue
        if data is None:
            missing.append(image.file_name)
            continue
        try:
            info = inspect_image(data)
        except ImageRejected as exc:
            problems.add(f"images (id {coco_id}): the file {image.file_name} cannot be used: {exc}")
            continue
        if (info.width, info.height) != (image.width, image.height):
            problems.add(f"images (id {coco_id}): the file {image.file_name} is {info.width}x{info.height} px, "
                         f"not {image.width}x{image.height} as the annotations say")
            continue
        digest = hashlib.sha256(data).hexdigest()
        if digest in digests:
            summary.notes.append(f"{image.file_name} has the same content as image {digests[digest]}: known by "
                                 "reference")
            continue
        digests[digest] = coco_id
        plan.with_file.add(coco_id)
    stored = {known for chunk in _chunks(list(digests)) for known in
              Image.objects.filter(sha256__in=chunk).values_list("sha256", flat=True) if known}
    for known in sorted(stored):
        coco_id = digests[known]
        plan.with_file.discard(coco_id)
        summary.notes.append(f"{plan.images[coco_id].file_name} is already stored under another key: known by "
                             "reference")
    summary.files_missing = len(missing)
    if missing:
        shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
        summary.notes.append(f"{len(missing)} image file(s) not in the folder, imported by reference: {shown}")


def _subset(file_name: str, fallback: str) -> str:
    match = SUBSET.search(file_name)
    return match.group(0) if match else fallback


def _write_images(plan: _Plan, image_files: ImageFiles | None, subset: str | None, fallback: str,
                  summary: CocoImport, stored: list[str], counter: _Counter) -> dict[int, int]:
    """Creates the new images and every missing origin; returns the platform image id of every COCO id."""
    image_ids: dict[int, int] = {}
    for chunk in _chunks(sorted(plan.images), BATCH):
        origins: list[ImageOrigin] = []
        by_reference: list[tuple[int, Image]] = []
        for coco_id in chunk:
            image = plan.images[coco_id]
            origin = ImageOrigin(dataset=DATASET, external_id=coco_id,
                                 subset=subset if subset is not None else _subset(image.file_name, fallback))
            key = PurePosixPath(image.file_name).stem
            if coco_id in plan.reused:
                image_ids[coco_id], has_origin = plan.reused[coco_id]
                summary.images_reused += 1
                if not has_origin:
                    origin.image_id = image_ids[coco_id]
                    origins.append(origin)
            elif coco_id in plan.with_file and image_files is not None:
                data = image_files(image.file_name) or b""
                info = inspect_image(data)
                created, new = import_image_bytes(image.file_name, data, key=key,
                                                  info=ImageInfo(info.format, info.extension, info.width, info.height))
                if not new or created.key != key:
                    raise CocoImportError([f"images (id {coco_id}): image '{key}' was stored concurrently"])
                stored.append(created.original.name)
                image_ids[coco_id] = created.pk
                origin.image_id = created.pk
                origins.append(origin)
                summary.images_new += 1
            else:
                extension = PurePosixPath(image.file_name).suffix.lower()
                by_reference.append((coco_id, Image(
                    key=key, sha256=None, original="", source_url=image.url, original_name=image.file_name,
                    format=FORMATS.get(extension, extension[1:].upper()[:10]), width=image.width,
                    height=image.height, file_size=0,
                )))
                origins.append(origin)
            counter.step()
        Image.objects.bulk_create([image for _, image in by_reference])
        summary.images_by_reference += len(by_reference)
        made = {coco_id: image.pk for coco_id, image in by_reference}
        image_ids.update(made)
        for origin in origins:
            if origin.image_id is None:
                origin.image_id = made[origin.external_id]
        ImageOrigin.objects.bulk_create(origins)
        reset_queries()
    return image_ids


def _batches(records: Iterator[tuple[int, Any]], counter: _Counter) -> Iterator[list[dict[str, Any]]]:
    """The records in batches of BATCH. With DEBUG on (as when a command is run by hand), Django keeps the SQL of
    the last 9000 queries, each bulk insert a few hundred kB long: that log is emptied after each batch."""
    batch: list[dict[str, Any]] = []
    for _, record in records:
        counter.step()
        batch.append(record)
        if len(batch) == BATCH:
            yield batch
            reset_queries()
            batch = []
    if batch:
        yield batch
        reset_queries()


def _write_captions(source: CocoFile, image_ids: dict[int, int], summary: CocoImport, counter: _Counter) -> None:
    problems = _Problems()
    for batch in _batches(_records(source, "annotations", problems), counter):
        known = set(Description.objects.filter(source=SOURCE, external_id__in=[r["id"] for r in batch])
                    .values_list("external_id", flat=True))
        new = []
        for record in batch:
            if record["id"] in known:
                summary.captions_skipped += 1
                continue
            text = record["caption"].strip()
            new.append(Description(image_id=image_ids[record["image_id"]], text=text, tokens=tokenize(text),
                                   source=SOURCE, external_id=record["id"]))
        Description.objects.bulk_create(new)
        summary.captions += len(new)
    problems.raise_any()  # the file changed between the passes


def _concepts(plan: _Plan, summary: CocoImport) -> dict[int, int]:
    """The concept of every category (created when missing), all in the vocabulary "coco"."""
    names = set(plan.categories.values())
    existing = dict(Concept.objects.filter(name__in=names).values_list("name", "pk"))
    missing = sorted(names - set(existing))
    Concept.objects.bulk_create([Concept(name=name, synonyms=[name]) for name in missing])
    summary.concepts_created = len(missing)
    existing = dict(Concept.objects.filter(name__in=names).values_list("name", "pk"))
    vocabulary, _ = Vocabulary.objects.get_or_create(name=VOCABULARY)
    vocabulary.concepts.add(*existing.values())
    return {category_id: existing[name] for category_id, name in plan.categories.items()}


def _box(bbox: list[float], width: int, height: int) -> tuple[int, int, int, int]:
    """The box rounded to whole pixels and clipped inside the image, at least 1 px wide and high."""
    x, y, w, h = bbox
    left = min(max(math.floor(x + 0.5), 0), width - 1)
    top = min(max(math.floor(y + 0.5), 0), height - 1)
    right = min(max(math.floor(x + w + 0.5), left + 1), width)
    bottom = min(max(math.floor(y + h + 0.5), top + 1), height)
    return left, top, right - left, bottom - top


def _write_boxes(source: CocoFile, plan: _Plan, image_ids: dict[int, int], summary: CocoImport,
                 counter: _Counter) -> None:
    concept_ids = _concepts(plan, summary)
    numbers: dict[int, int] = {}  # platform image id -> next free box number
    reused = [image_id for image_id, _ in plan.reused.values()]
    for chunk in _chunks(reused):
        for image_id, last in (Box.objects.filter(image_id__in=chunk).values("image_id")
                               .annotate(last=Max("number")).values_list("image_id", "last")):
            numbers[image_id] = last + 1
    problems = _Problems()
    for batch in _batches(_records(source, "annotations", problems), counter):
        known = set(Box.objects.filter(source=SOURCE, external_id__in=[r["id"] for r in batch])
                    .values_list("external_id", flat=True))
        new = []
        for record in batch:
            if record.get("iscrowd", 0) == 1:
                summary.crowd_skipped += 1
                continue
            if record["id"] in known:
                summary.boxes_skipped += 1
                continue
            image = plan.images[record["image_id"]]
            image_id = image_ids[record["image_id"]]
            x, y, width, height = _box(record["bbox"], image.width, image.height)
            number = numbers.get(image_id, 0)
            numbers[image_id] = number + 1
            new.append(Box(image_id=image_id, number=number, concept_id=concept_ids[record["category_id"]], x=x, y=y,
                           width=width, height=height, source=SOURCE, external_id=record["id"]))
        Box.objects.bulk_create(new)
        summary.boxes += len(new)
    problems.raise_any()


def import_coco(captions: CocoFile | Path | str, instances: CocoFile | Path | str | None = None,
                image_files: ImageFiles | None = None, subset: str | None = None,
                progress: Progress | None = None) -> CocoImport:
    """Import a COCO captions file (and instances file); all or nothing. Raises CocoImportError listing the
    problems. `progress(done, total)` counts records: total is None while the files are checked, then twice the
    records (checked, then written)."""
    captions = captions if isinstance(captions, CocoFile) else CocoFile.from_path(captions)
    if instances is not None and not isinstance(instances, CocoFile):
        instances = CocoFile.from_path(instances)
    if subset is not None and (len(subset) > column_length(ImageOrigin, "subset") or unstorable(subset)):
        raise CocoImportError([f"the subset {subset!r} must have at most 40 characters"])
    problems, plan, counter, summary = _Problems(), _Plan(), _Counter(progress), CocoImport()
    keys: dict[str, int] = {}
    _check_images(captions, plan, keys, problems, counter)
    if instances is not None:
        _check_images(instances, plan, keys, problems, counter)
    _check_captions(captions, plan, problems, counter)
    if instances is not None:
        _check_categories(instances, plan, problems, counter)
        _check_instances(instances, plan, problems, counter)
    if not problems.count:
        _check_stored(plan, image_files, summary, problems)
    problems.raise_any()
    counter.total = 2 * plan.records
    counter.report()
    stored: list[str] = []
    try:
        with transaction.atomic():
            image_ids = _write_images(plan, image_files, subset, _subset(captions.name, ""), summary, stored,
                                      counter)
            _write_captions(captions, image_ids, summary, counter)
            if instances is not None:
                _write_boxes(instances, plan, image_ids, summary, counter)
    except BaseException as exc:
        for name in stored:  # the rows are rolled back; the stored files must go too
            default_storage.delete(name)
        if isinstance(exc, (ImageRejected, IntegrityError, KeyError, TypeError)):
            raise CocoImportError([f"nothing was imported: {type(exc).__name__}: {exc}"]) from exc
        raise
    counter.done = counter.total
    counter.report()
    if instances is not None:
        summary.notes.append("Segmentations are not imported (boxes only); crowd annotations (iscrowd 1) are "
                             "skipped.")
    return summary
