"""COCO import, first pass: every record checked, the problems collected; which images the platform has already."""
from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any, cast

from common.text_input import unstorable

from ...models import Image, ImageOrigin
from ..image_files import ImageRejected, inspect_image
from .records import (
    BBOX_TOLERANCE,
    DATASET,
    KEY_LENGTH,
    NAME_LENGTH,
    URL_LENGTH,
    CocoFile,
    CocoImage,
    CocoImport,
    Counter,
    ImageFiles,
    Plan,
    Problems,
    chunks,
    number,
    read_records,
    show,
    whole,
)


def _file_name_problem(file_name: object) -> str | None:
    if not isinstance(file_name, str) or not file_name.strip():
        return f"file_name must be a file name, got {show(file_name)}"
    if "/" in file_name or "\\" in file_name or file_name.startswith(".") or unstorable(file_name):
        return f"file_name {show(file_name)} is not a plain file name (no folders, no leading dot)"
    if len(file_name) > 255 or len(PurePosixPath(file_name).stem) > KEY_LENGTH:
        return f"file_name {show(file_name)} is too long"
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


def check_images(source: CocoFile, plan: Plan, keys: dict[str, int], problems: Problems,
                  counter: Counter) -> None:
    here = 0
    for where, record in _identified(source, "images", plan, problems, counter):
        here += 1
        image_id = record["id"]
        if image_id in plan.refused:  # the captions file's record of it is wrong: reported there
            continue
        file_name, width, height, url = record.get("file_name"), record.get("width"), record.get("height"), _url(record)
        problem = _file_name_problem(file_name)
        if problem is None and not (whole(width) and whole(height) and width > 0 and height > 0):
            problem = f"width and height must be positive whole numbers, got {show(width)} and {show(height)}"
        if problem is None and url is None:
            problem = "coco_url / flickr_url must be an http(s) address of at most 500 characters"
        if problem:
            problems.add(f"{where}: {problem}")
            plan.refused.add(image_id)
            plan.images.pop(image_id, None)
            continue
        image = CocoImage(cast(str, file_name), cast(int, width), cast(int, height), url or "")
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


def _identified(source: CocoFile, section: str, plan: Plan, problems: Problems,
                counter: Counter) -> Iterator[tuple[str, dict[str, Any]]]:
    """The records of the file's `section` ("images", "annotations") that are objects with a whole id given once,
    with where they are; the others are problems."""
    ids: set[int] = set()
    for index, record in read_records(source, section, problems):
        counter.step()
        plan.records += 1
        where = f"{source.name}: {section}[{index}]"
        if not isinstance(record, dict):
            problems.add(f"{where}: not an object")
            continue
        record_id = record.get("id")
        if not whole(record_id):
            problems.add(f"{where}: id must be a whole number, got {show(record_id)}")
            continue
        where += f" (id {record_id})"
        if record_id in ids:
            problems.add(f"{where}: the id is given twice")
            continue
        ids.add(record_id)
        yield where, record


def check_captions(source: CocoFile, plan: Plan, problems: Problems, counter: Counter) -> None:
    captions = 0
    for where, record in _identified(source, "annotations", plan, problems, counter):
        captions += 1
        image_id, caption = record.get("image_id"), record.get("caption")
        if not whole(image_id) or image_id not in plan.images and image_id not in plan.refused:
            problems.add(f"{where}: image_id {show(image_id)} is not among the images")
        if not isinstance(caption, str) or not caption.strip():
            problems.add(f"{where}: caption must be a non-empty text, got {show(caption)}")
        elif unstorable(caption):
            problems.add(f"{where}: the caption holds {unstorable(caption)}")
    if not captions:
        problems.add(f"{source.name}: holds no captions (a COCO captions file has an \"annotations\" list)")


def check_categories(source: CocoFile, plan: Plan, problems: Problems, counter: Counter) -> None:
    names: dict[str, int] = {}
    for index, record in read_records(source, "categories", problems):
        counter.step()
        plan.records += 1
        where = f"{source.name}: categories[{index}]"
        category_id = record.get("id") if isinstance(record, dict) else None
        if not whole(category_id):
            problems.add(f"{where}: id must be a whole number, got {show(category_id)}")
            continue
        where += f" (id {category_id})"
        name = record.get("name")
        name = name.strip() if isinstance(name, str) else name
        if category_id in plan.categories:
            problems.add(f"{where}: the id is given twice")
        elif not isinstance(name, str) or not name or len(name) > NAME_LENGTH or unstorable(name):
            problems.add(f"{where}: name must be a text of 1 to {NAME_LENGTH} characters, got {show(name)}")
        elif name in names:
            problems.add(f"{where}: the name {name!r} is also category {names[name]}'s")
        else:
            names[name] = category_id
            plan.categories[category_id] = name
            parent = record.get("supercategory")
            parent = parent.strip() if isinstance(parent, str) else ""
            if parent and parent != name:  # a supercategory that cannot be a label's name is left out
                if len(parent) <= NAME_LENGTH and not unstorable(parent):
                    plan.supercategories[name] = parent
    if not plan.categories:
        problems.add(f"{source.name}: holds no categories (a COCO instances file has a \"categories\" list)")


def _bbox_problem(bbox: object, image: CocoImage) -> str | None:
    if not isinstance(bbox, list) or len(bbox) != 4 or not all(number(v) for v in bbox):
        return f"bbox must be [x, y, width, height] in pixels, got {show(bbox)}"
    x, y, width, height = bbox
    if width <= 0 or height <= 0:
        return f"bbox {show(bbox)} has no area"
    if (x < -BBOX_TOLERANCE or y < -BBOX_TOLERANCE or x + width > image.width + BBOX_TOLERANCE
            or y + height > image.height + BBOX_TOLERANCE):
        return f"bbox {show(bbox)} lies outside the image ({image.width}x{image.height} px)"
    return None


def check_instances(source: CocoFile, plan: Plan, problems: Problems, counter: Counter) -> None:
    for where, record in _identified(source, "annotations", plan, problems, counter):
        image_id, category_id = record.get("image_id"), record.get("category_id")
        image = plan.images.get(image_id) if whole(image_id) else None
        if image is None and image_id not in plan.refused:
            problems.add(f"{where}: image_id {show(image_id)} is not among the images")
        if not whole(category_id) or category_id not in plan.categories:
            problems.add(f"{where}: category_id {show(category_id)} is not among the categories")
        if record.get("iscrowd", 0) not in (0, 1):
            problems.add(f"{where}: iscrowd must be 0 or 1, got {show(record.get('iscrowd'))}")
        if image is not None and (problem := _bbox_problem(record.get("bbox"), image)):
            problems.add(f"{where}: {problem}")



def check_stored(plan: Plan, image_files: ImageFiles | None, summary: CocoImport, problems: Problems) -> None:
    """Which images the platform has already (by COCO id, else by key); which new ones come with their file."""
    ids = sorted(plan.images)
    for chunk in chunks(ids):
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
    stored = {known for chunk in chunks(list(digests)) for known in
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

