"""The test pools as test sets of human evaluation: each pool image a caption item (named by its COCO/Flickr id,
else its key), its references the pool's captions of that image (pool order)."""
from __future__ import annotations

from evaluation.models import OutputKind
from evaluation.registry import TestItem, TestSetSource
from evaluation.sources import caption_item_name

from .models import PoolCaption, PoolImage, TestPool


def _choices() -> list[tuple[str, str]]:
    return [(str(pk), name) for pk, name in TestPool.objects.order_by("name").values_list("pk", "name")]


def _items(key: str) -> list[TestItem]:
    """Two queries: the pool's images, then its captions."""
    if not key.isdigit() or not TestPool.objects.filter(pk=int(key)).exists():
        raise LookupError(f"there is no test pool with id {key!r}")
    images = list(PoolImage.objects.filter(pool_id=int(key)).order_by("index")
                  .values_list("image_id", "image__key", "image__origin__external_id"))
    references: dict[int, list[str]] = {}
    for image_id, text in (PoolCaption.objects.filter(pool_id=int(key)).order_by("index")
                           .values_list("image_id", "description__text")):
        references.setdefault(image_id, []).append(text)
    return [TestItem(name=caption_item_name(image_key, external_id), images=[pk], references=references.get(pk, []))
            for pk, image_key, external_id in images]


TEST_POOL = TestSetSource(
    name="test_pool", label="Test pool", output_kind=OutputKind.CAPTION, choices=_choices, items=_items,
    description="The images of a ranking test pool (key: the pool's id); references: the pool's captions of each.")
