"""Many images quickly (bulk_create, no files): for the selection and page tests at 1k and 100k images."""
from __future__ import annotations

from annotation.image_sets.models import ImageSet, ImageSetMember
from annotation.models import Image

BATCH = 5000


def bulk_images(image_set: ImageSet, count: int, prefix: str = "bulk") -> list[int]:
    """`count` images known by reference (no file), all in `image_set`; their ids."""
    start = Image.objects.count()
    ids: list[int] = []
    for offset in range(0, count, BATCH):
        size = min(BATCH, count - offset)
        made = Image.objects.bulk_create([
            Image(key=f"{prefix}-{start + offset + n}", original_name=f"{prefix}-{start + offset + n}.jpg",
                  format="JPEG", width=640, height=480, file_size=1, source_url="https://example.org/i.jpg")
            for n in range(size)])
        batch_ids = [image.pk for image in made]
        if None in batch_ids:  # a backend that does not return ids
            batch_ids = list(Image.objects.filter(key__startswith=f"{prefix}-").order_by("-pk")
                             .values_list("pk", flat=True)[:size])
        ImageSetMember.objects.bulk_create([ImageSetMember(image_set=image_set, image_id=pk) for pk in batch_ids])
        ids += batch_ids
    return ids
