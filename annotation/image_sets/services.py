"""Writes of image sets: a named set made or reused with its tags, and images filed into it (idempotent)."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from django.db import transaction

from common.text_input import column_length, unstorable

from .models import ImageSet, ImageSetMember, ImageSetTag

DEMO_SET = "Demo"
EXISTING_SET = "Imported images"
BATCH = 5000


class ImageSetError(ValueError):
    """A set name or tag that cannot be stored; the message says why."""


@dataclass(frozen=True)
class SetSpec:
    """Where an import's images go: the set's name (made when new), its tags (added), how they were imported."""

    name: str
    tags: tuple[str, ...] = field(default_factory=tuple)
    source: str = ""
    is_demo: bool = False
    licence: str = ""


def set_name_for(file_name: str) -> str:
    """The default set of an upload: the file name without folders and extension ("kitchens.zip" -> "kitchens")."""
    stem = PurePosixPath(file_name.replace("\\", "/")).stem.strip()
    return stem[:column_length(ImageSet, "name")] or "Imported images"


def clean_tags(tags: Iterable[str]) -> tuple[str, ...]:
    """Tags stripped, lower-cased, deduplicated in order; commas split a tag ("a, b" is two tags)."""
    found: list[str] = []
    longest = column_length(ImageSetTag, "name")
    for raw in tags:
        for part in str(raw).split(","):
            tag = part.strip().lower()
            if not tag:
                continue
            if len(tag) > longest or unstorable(tag):
                raise ImageSetError(f"the tag {tag[:60]!r} must have 1 to {longest} printable characters")
            if tag not in found:
                found.append(tag)
    return tuple(found)


def set_spec(name: str | None, tags: Iterable[str] = (), source: str = "", default_name: str = "") -> SetSpec:
    """A checked SetSpec: `name` (else `default_name`) of 1 to 100 printable characters, clean tags."""
    chosen = (name or "").strip() or default_name.strip()
    longest = column_length(ImageSet, "name")
    if not chosen or len(chosen) > longest or unstorable(chosen):
        raise ImageSetError(f"the collection name must have 1 to {longest} printable characters")
    return SetSpec(chosen, clean_tags(tags), source)


@transaction.atomic
def ensure_set(spec: SetSpec) -> ImageSet:
    """The set named `spec.name`, made when new (with its source and demo marker), with `spec.tags` added and
    `spec.licence` recorded (a re-import of a public dataset states its terms again)."""
    image_set, _ = ImageSet.objects.get_or_create(
        name=spec.name, defaults={"source": spec.source, "is_demo": spec.is_demo, "licence": spec.licence})
    if spec.licence and image_set.licence != spec.licence:
        image_set.licence = spec.licence
        image_set.save(update_fields=["licence"])
    if spec.tags:
        have = set(image_set.tags.values_list("name", flat=True))
        ImageSetTag.objects.bulk_create([ImageSetTag(image_set=image_set, name=tag)
                                         for tag in spec.tags if tag not in have])
    return image_set


@transaction.atomic
def file_images(spec: SetSpec, image_ids: Sequence[int]) -> ImageSet:
    """Put the images into the set (made or reused); images already in it stay once. Queries per 5,000 images."""
    image_set = ensure_set(spec)
    wanted = list(dict.fromkeys(image_ids))
    for start in range(0, len(wanted), BATCH):
        chunk = wanted[start:start + BATCH]
        ImageSetMember.objects.bulk_create([ImageSetMember(image_set=image_set, image_id=pk) for pk in chunk],
                                           ignore_conflicts=True)
    return image_set


def demo_set_spec() -> SetSpec:
    return SetSpec(DEMO_SET, ("demo",), "demo", is_demo=True)
