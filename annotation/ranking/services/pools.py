"""Test pools: freeze a named set of images and their captions (approved describe_image results, or every
description), each caption tied to its original image, with fixed score-matrix indices."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction

from mturk.models import Campaign
from mturk.states import AssignmentStatus

from ...models import Description
from ..models import PoolCaption, PoolImage, TestPool
from .board_queue import queue_refresh


class PoolError(ValueError):
    """A pool that cannot be made; the message is shown to the user, next to `field` when a form shows it."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def pool_descriptions(*, campaigns: Sequence[Campaign] = (), all_descriptions: bool = False):
    """The descriptions a pool draws from: the campaigns' approved describe_image results, or every one."""
    if all_descriptions:
        return Description.objects.all()
    wrong = [c.name for c in campaigns if c.task_kind != "describe_image"]
    if wrong:
        raise PoolError(f"not describe_image campaign(s): {', '.join(wrong)}", "campaigns")
    return Description.objects.filter(assignment__hit__campaign__in=list(campaigns),
                                      assignment__status=AssignmentStatus.APPROVED)


@transaction.atomic
def create_test_pool(name: str, *, campaigns: Sequence[Campaign] = (), all_descriptions: bool = False,
                     images: int | None = None, captions_per_image: int | None = None,
                     created_by: Any = None) -> TestPool:
    """Freeze a pool. Images are ordered by id (the first `images` of them with a caption), their captions by
    image then id (the first `captions_per_image` of each); rows and columns are numbered in that order."""
    name = name.strip()
    if not name:
        raise PoolError("the pool needs a name", "name")
    if not campaigns and not all_descriptions:
        raise PoolError("choose campaigns, or all descriptions", "campaigns")
    if images is not None and images < 1:
        raise PoolError("--images must be at least 1", "images")
    if captions_per_image is not None and captions_per_image < 1:
        raise PoolError("--captions-per-image must be at least 1", "captions_per_image")
    if TestPool.objects.filter(name=name).exists():
        raise PoolError(f"a test pool named '{name}' already exists", "name")
    rows = pool_descriptions(campaigns=campaigns, all_descriptions=all_descriptions) \
        .order_by("image_id", "id").values_list("id", "image_id")
    by_image: dict[int, list[int]] = {}
    for description_id, image_id in rows:
        captions = by_image.setdefault(image_id, [])
        if captions_per_image is None or len(captions) < captions_per_image:
            captions.append(description_id)
    image_ids = sorted(by_image)[:images]
    if not image_ids:
        raise PoolError("no captions to pool", "campaigns")
    return freeze_pool(name, image_ids, by_image, created_by=created_by)


@transaction.atomic
def freeze_pool(name: str, image_ids: Sequence[int], by_image: dict[int, list[int]],
                created_by: Any = None) -> TestPool:
    """A pool of these images (rows in this order) and their captions (columns: image by image, in the lists'
    order); e.g. a released test split (annotation/ranking/services/flickr8k_import)."""
    if TestPool.objects.filter(name=name).exists():
        raise PoolError(f"a test pool named '{name}' already exists", "name")
    pool = TestPool.objects.create(name=name, created_by=created_by)
    PoolImage.objects.bulk_create(PoolImage(pool=pool, image_id=i, index=n) for n, i in enumerate(image_ids))
    pairs = [(d, i) for i in image_ids for d in by_image.get(i, [])]
    PoolCaption.objects.bulk_create(PoolCaption(pool=pool, description_id=d, image_id=i, index=n)
                                    for n, (d, i) in enumerate(pairs))
    queue_refresh([pool.pk])  # the pool's own figures (judgements its pairs may have already)
    return pool
