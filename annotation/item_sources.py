"""What the campaign wizard takes from this app: images (all but the demo's, or a selection by collection, tag,
name and state shown as 320 px thumbnails) and the descriptions waiting for their words to be linked, and a sample
item per task kind for the preview. The selection goes through the one image selector
(annotation/image_sets/selectors.py), which the API and the CLI use too."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mturk.item_sources import (
    Choice,
    ChoicePage,
    ItemSource,
    Sample,
    SourceFilter,
    register_sample,
    register_source,
)

from .image_sets.selectors import (
    THUMB_FIELDS,
    ImageCriteria,
    criteria_from,
    matching_page,
    select_images,
    set_choices,
    tag_choices,
)
from .models import Description, Image

IMAGE_KINDS = frozenset({"describe_image", "draw_boxes"})


def _waiting_descriptions():
    """Descriptions not linked yet whose image has boxes (what `create_campaign --all-descriptions` takes)."""
    return Description.objects.filter(correspondences=None, image__boxes__isnull=False).distinct()


@register_source
class AllImages(ItemSource):
    name = "all_images"
    label = "All images (but the demo's)"
    kinds = IMAGE_KINDS

    def describe(self) -> str:
        return f"{select_images(ImageCriteria()).count()} image(s), one HIT each"

    def items(self, kind: str, selected: list[int]) -> list[dict[str, Any]]:
        return _selected_images(ImageCriteria())


def _selected_images(criteria: ImageCriteria) -> list[dict[str, Any]]:
    """One item per image the criteria match; a selection that matches nothing is refused (never an empty
    campaign), with the same message wherever it comes from (the wizard, the API, the CLI)."""
    items = [{"image": pk} for pk in select_images(criteria).values_list("pk", flat=True)]
    if not items:
        raise ValueError(f"no image matches ({criteria.describe()})")
    return items


def _sets() -> list[tuple[str, str]]:
    return [(s.name, f"{s.name} (demo)" if s.is_demo else s.name) for s in set_choices()]


def _tags() -> list[tuple[str, str]]:
    return [(tag, tag) for tag in tag_choices()]


def _choice(image: Image) -> Choice:
    return Choice(image.pk, image.original_name, image.small_url)


@register_source
class ImageSelection(ItemSource):
    name = "images"
    label = "Images by collection, tag, name or state"
    kinds = IMAGE_KINDS
    selectable = True
    filters = (
        SourceFilter("set", "Collection", "choice", "Any collection but the demo, unless chosen.", _sets,
                     multiple=True),
        SourceFilter("tag", "Tag", "choice", "Images of collections with this tag.", _tags, multiple=True),
        SourceFilter("search", "Name contains", help="Part of the image's key or file name."),
        SourceFilter("state", "State", "choice", "", lambda: [("", "any"), ("no-boxes", "no boxes yet"),
                                                              ("fewer-captions", "fewer than N captions")]),
        SourceFilter("captions", "N (captions)", "number", "With the state 'fewer than N captions' (default 1)."),
        SourceFilter("not_in_campaign", "Not in campaign", help="A campaign's name or id: leave out its images."),
        SourceFilter("include_demo", "Include the demo images", "check"),
    )

    def choices(self, page: int = 1) -> ChoicePage:
        """Page `page` of every image but the demo's (the wizard pages a selector with `matching`, by id)."""
        return self.page_of(select_images(ImageCriteria()).only(*THUMB_FIELDS), page, _choice)

    def matching(self, params: Mapping[str, Any], after: int = 0) -> ChoicePage:
        found = matching_page(criteria_from(params), after, self.page_size)
        return ChoicePage([_choice(image) for image in found.images], found.total, None, found.next_after)

    def select(self, kind: str, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        return _selected_images(criteria_from(params))

    def items(self, kind: str, selected: list[int]) -> list[dict[str, Any]]:
        if not selected:
            raise ValueError("tick at least one image, or select all matching")
        return [{"image": pk} for pk in sorted(set(selected))]


@register_source
class WaitingDescriptions(ItemSource):
    name = "descriptions"
    label = "Every description not linked yet (of an image with boxes)"
    kinds = frozenset({"link_words"})

    def describe(self) -> str:
        return f"{_waiting_descriptions().count()} description(s), one HIT each"

    def items(self, kind: str, selected: list[int]) -> list[dict[str, Any]]:
        items = [{"description": pk} for pk in _waiting_descriptions().order_by("pk").values_list("pk", flat=True)]
        if not items:
            raise ValueError("no description matches (not linked yet, of an image with boxes)")
        return items


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
