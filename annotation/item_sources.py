"""What the campaign wizard takes from this app: images (all, or a selection shown as 320 px thumbnails) and
the descriptions waiting for their words to be linked, and a sample item per task kind for the preview."""
from __future__ import annotations

from typing import Any

from mturk.item_sources import Choice, ChoicePage, ItemSource, Sample, register_sample, register_source

from .models import Description, Image

IMAGE_KINDS = frozenset({"describe_image", "draw_boxes"})


def _waiting_descriptions():
    """Descriptions not linked yet whose image has boxes (what `create_campaign --all-descriptions` takes)."""
    return Description.objects.filter(correspondences=None, image__boxes__isnull=False).distinct()


@register_source
class AllImages(ItemSource):
    name = "all_images"
    label = "All images"
    kinds = IMAGE_KINDS

    def describe(self) -> str:
        return f"{Image.objects.count()} image(s), one HIT each"

    def items(self, kind: str, selected: list[int]) -> list[dict[str, Any]]:
        return [{"image": pk} for pk in Image.objects.order_by("pk").values_list("pk", flat=True)]


@register_source
class ImageSelection(ItemSource):
    name = "images"
    label = "A selection of images"
    kinds = IMAGE_KINDS
    selectable = True

    def choices(self, page: int = 1) -> ChoicePage:
        images = Image.objects.order_by("pk").only("pk", "original_name", "original", "thumb_small", "thumb_large",
                                                   "source_url")
        return self.page_of(images, page, lambda image: Choice(image.pk, image.original_name, image.small_url))

    def items(self, kind: str, selected: list[int]) -> list[dict[str, Any]]:
        if not selected:
            raise ValueError("tick at least one image")
        return [{"image": pk} for pk in sorted(set(selected))]


@register_source
class WaitingDescriptions(ItemSource):
    name = "descriptions"
    label = "Every description not linked yet (of an image with boxes)"
    kinds = frozenset({"link_words"})

    def describe(self) -> str:
        return f"{_waiting_descriptions().count()} description(s), one HIT each"

    def items(self, kind: str, selected: list[int]) -> list[dict[str, Any]]:
        return [{"description": pk} for pk in _waiting_descriptions().order_by("pk").values_list("pk", flat=True)]


def _first_image() -> Sample | None:
    pk = Image.objects.order_by("pk").values_list("pk", flat=True).first()
    return None if pk is None else Sample({"image": pk})


register_sample("describe_image", "there is no image yet: import images first")(_first_image)
register_sample("draw_boxes", "there is no image yet: import images first")(_first_image)


@register_sample("link_words", "link_words needs a description of an image with boxes: draw and approve boxes, "
                               "then describe the image (or import a gold dataset)")
def _description_with_boxes() -> Sample | None:
    pk = (Description.objects.filter(image__boxes__isnull=False).order_by("pk").values_list("pk", flat=True)
          .first())
    return None if pk is None else Sample({"description": pk})
