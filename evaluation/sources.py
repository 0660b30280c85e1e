"""The test-set source this capability owns: the images of a collection (annotation/image_sets), each a caption
item named by its COCO/Flickr id when it has an ImageOrigin (else by its key), with its descriptions as the human
references. Registered at app start (registrations.py)."""
from __future__ import annotations

from annotation.image_sets.models import ImageSet, ImageSetMember
from annotation.models import Description

from .models import OutputKind
from .registry import TestItem, TestSetSource


def caption_item_name(key: str, external_id: int | None) -> str:
    """How uploads name a caption item: the image's id in its dataset when it has one, else its key."""
    return key if external_id is None else str(external_id)


def caption_items(image_ids: list[int]) -> list[TestItem]:
    """Caption items of these images (in this order), each with its descriptions (id order) as references. Two
    queries."""
    from annotation.models import Image

    names = {pk: caption_item_name(key, external_id) for pk, key, external_id in
             Image.objects.filter(pk__in=image_ids).values_list("pk", "key", "origin__external_id")}
    references: dict[int, list[str]] = {}
    for image_id, text in (Description.objects.filter(image_id__in=image_ids).order_by("image_id", "id")
                           .values_list("image_id", "text").iterator(chunk_size=5000)):
        references.setdefault(image_id, []).append(text)
    return [TestItem(name=names[pk], images=[pk], references=references.get(pk, [])) for pk in image_ids if pk in names]


def _image_set_choices() -> list[tuple[str, str]]:
    return [(str(pk), name) for pk, name in ImageSet.objects.order_by("name").values_list("pk", "name")]


def _image_set_items(key: str) -> list[TestItem]:
    if not key.isdigit() or not ImageSet.objects.filter(pk=int(key)).exists():
        raise LookupError(f"there is no collection with id {key!r}")
    image_ids = list(ImageSetMember.objects.filter(image_set_id=int(key)).order_by("image_id")
                     .values_list("image_id", flat=True))
    return caption_items(image_ids)


IMAGE_SET = TestSetSource(
    name="image_set", label="Collection", output_kind=OutputKind.CAPTION,
    choices=_image_set_choices, items=_image_set_items,
    description="The images of a collection (key: the collection's id); references: their descriptions.")
