"""Reads of image sets: THE image selector (by set, tag, name and state) that the wizard, the API and the CLI use,
a page of matching images by keyset (id order, never all ids), the sets list and a set's page; each in a constant
number of queries whatever the number of images."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import BigIntegerField, Count, Exists, IntegerField, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, Coalesce

from mturk.models import HIT, Campaign

from ..models import Box, Description, Image
from .models import ImageSet, ImageSetMember, ImageSetTag

STATES = {
    "": "any state",
    "no-boxes": "no boxes yet",
    "fewer-captions": "fewer than N captions",
}
PAGE_SIZE = 40
THUMB_FIELDS = ("pk", "key", "original_name", "original", "thumb_small", "thumb_large", "source_url")


@dataclass(frozen=True)
class ImageCriteria:
    """Which images: in any of `sets` (names), in sets carrying every one of `tags`, whose key or file name holds
    `search`, in a state, not yet in campaign `not_in_campaign`. Without `sets`, the demo set's images are left out
    unless `include_demo`."""

    sets: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    search: str = ""
    state: str = ""
    captions_below: int = 1
    not_in_campaign: int | None = None
    include_demo: bool = False

    def describe(self) -> str:
        parts = []
        if self.sets:
            parts.append("in " + ", ".join(self.sets))
        if self.tags:
            parts.append("tagged " + ", ".join(self.tags))
        if self.search:
            parts.append(f"named like '{self.search}'")
        if self.state == "no-boxes":
            parts.append("without boxes")
        elif self.state == "fewer-captions":
            parts.append(f"with fewer than {self.captions_below} caption(s)")
        if self.not_in_campaign is not None:
            parts.append(f"not in campaign #{self.not_in_campaign}")
        if not self.sets:
            parts.append("the demo collection included" if self.include_demo else
                         "the demo collection left out unless asked for")
        return "; ".join(parts)


def _values(raw: Any) -> tuple[str, ...]:
    """A parameter given once, several times, or as a list: its non-blank values."""
    if raw is None:
        return ()
    values = raw if isinstance(raw, list | tuple) else [raw]
    return tuple(str(v).strip() for v in values if str(v).strip())


def _flag(raw: Any) -> bool:
    return raw is True or str(raw).strip().lower() in {"1", "true", "on", "yes"}


def criteria_from(params: Mapping[str, Any]) -> ImageCriteria:
    """ImageCriteria from the selector's parameters (the wizard's filters, the API's `select`, the CLI's flags):
    set, tag (one or a list), search, state ("", "no-boxes", "fewer-captions"), captions (N), not_in_campaign (id
    or name), include_demo. Raises ValueError naming the bad parameter. Two queries at most."""
    known = {"set", "tag", "search", "state", "captions", "not_in_campaign", "include_demo"}
    unknown = sorted(set(params) - known)
    if unknown:
        raise ValueError(f"unknown selector parameter(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    sets = _values(params.get("set"))
    if sets:
        found = set(ImageSet.objects.filter(name__in=sets).values_list("name", flat=True))
        missing = [name for name in sets if name not in found]
        if missing:
            raise ValueError(f"no collection named {', '.join(repr(m) for m in missing)}")
    state = str(params.get("state") or "").strip()
    if state not in STATES:
        raise ValueError(f"state: one of {', '.join(repr(s) for s in STATES if s)} (or none)")
    captions_raw = str(params.get("captions") or "").strip()
    if captions_raw and (not captions_raw.isdigit() or int(captions_raw) < 1):
        raise ValueError("captions: a whole number of at least 1")
    campaign_id = None
    campaign_raw = str(params.get("not_in_campaign") or "").strip()
    if campaign_raw:
        query = Q(name=campaign_raw) | (Q(pk=int(campaign_raw)) if campaign_raw.isdigit() else Q())
        campaign_id = Campaign.objects.filter(query).values_list("pk", flat=True).first()
        if campaign_id is None:
            raise ValueError(f"not_in_campaign: no campaign {campaign_raw!r}")
    return ImageCriteria(
        sets=sets, tags=tuple(t.lower() for t in _values(params.get("tag"))),
        search=str(params.get("search") or "").strip(), state=state,
        captions_below=int(captions_raw) if captions_raw else 1, not_in_campaign=campaign_id,
        include_demo=_flag(params.get("include_demo")),
    )


def _in_sets(condition: Q) -> Q:
    """Images in a set matching `condition`: `id IN (member ids)`, which the databases run as one semi-join on the
    members' (image_set, image) index rather than one probe per image."""
    return Q(pk__in=ImageSetMember.objects.filter(condition).values("image_id"))


def campaign_image_ids(campaign_filter: Q) -> QuerySet[Any, Any]:
    """The image ids of the HITs of the campaigns matching `campaign_filter` (items {"image": id}), as a subquery."""
    return (HIT.objects.filter(campaign_filter)
            .annotate(image_id=Cast(KeyTextTransform("image", "items"), BigIntegerField()))
            .filter(image_id__isnull=False).values("image_id"))


def select_images(criteria: ImageCriteria) -> QuerySet[Image]:
    """THE image selector: the matching images as one lazy queryset (ordered by id). The wizard pages it, counts
    it, or takes its ids; the API and the CLI take its ids."""
    images = Image.objects.all()
    if criteria.sets:
        images = images.filter(_in_sets(Q(image_set__name__in=criteria.sets)))
    elif not criteria.include_demo:
        images = images.exclude(_in_sets(Q(image_set__is_demo=True)))
    for tag in criteria.tags:
        images = images.filter(_in_sets(Q(image_set__tags__name=tag)))
    if criteria.search:
        images = images.filter(Q(key__icontains=criteria.search) | Q(original_name__icontains=criteria.search))
    if criteria.state == "no-boxes":
        images = images.exclude(Exists(Box.objects.filter(image=OuterRef("pk"))))
    elif criteria.state == "fewer-captions":
        if criteria.captions_below <= 1:
            images = images.exclude(Exists(Description.objects.filter(image=OuterRef("pk"))))
        else:
            counted = (Description.objects.filter(image=OuterRef("pk")).order_by().values("image")
                       .annotate(n=Count("pk")).values("n"))
            images = images.alias(captions=Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))) \
                .filter(captions__lt=criteria.captions_below)
    if criteria.not_in_campaign is not None:
        images = images.exclude(pk__in=campaign_image_ids(Q(campaign_id=criteria.not_in_campaign)))
    return images.order_by("pk")


@dataclass(frozen=True)
class ImagePage:
    images: list[Image]
    total: int
    next_after: int | None  # the id to go on after; None on the last page


def image_page(images: QuerySet[Image], after: int = 0, size: int = PAGE_SIZE) -> ImagePage:
    """A page of `images` after id `after` (keyset: fast at any depth) and how many match: two queries."""
    rows = list(images.filter(pk__gt=after).order_by("pk").only(*THUMB_FIELDS)[:size + 1])
    more = len(rows) > size
    rows = rows[:size]
    return ImagePage(rows, images.count(), rows[-1].pk if more and rows else None)


def matching_page(criteria: ImageCriteria, after: int = 0, size: int = PAGE_SIZE) -> ImagePage:
    return image_page(select_images(criteria), after, size)


def matching_ids(criteria: ImageCriteria) -> list[int]:
    """Every matching image id, in id order (what a campaign's HITs are made of)."""
    return list(select_images(criteria).values_list("pk", flat=True))


def set_choices(include_demo: bool = True) -> list[ImageSet]:
    """The sets to choose from, demo last (one query)."""
    sets = ImageSet.objects.order_by("is_demo", "name")
    return list(sets if include_demo else sets.filter(is_demo=False))


def tag_choices() -> list[str]:
    return list(ImageSetTag.objects.order_by("name").values_list("name", flat=True).distinct())


def set_list() -> list[ImageSet]:
    """Every set with `image_count` and its tags: two queries."""
    return list(ImageSet.objects.annotate(image_count=Count("members")).prefetch_related("tags")
                .order_by("is_demo", "name"))


@dataclass(frozen=True)
class SetPage:
    image_set: ImageSet
    tags: list[str]
    images: int
    boxes: int
    descriptions: int
    campaigns: list[Campaign]
    page: ImagePage


def set_page(image_set: ImageSet, after: int = 0, size: int = PAGE_SIZE) -> SetPage:
    """A set's page: its tags, counts (images, boxes, descriptions), the campaigns whose HITs show its images and a
    page of thumbnails; seven queries whatever its size."""
    in_set = ImageSetMember.objects.filter(image_set=image_set).values("image_id")
    members = Image.objects.filter(pk__in=in_set)
    page = image_page(members, after, size)
    campaigns = list(Campaign.objects.filter(pk__in=_campaigns_using(in_set)).order_by("-pk")
                     .only("pk", "name", "task_kind", "status", "is_simulated"))
    return SetPage(
        image_set=image_set,
        tags=list(image_set.tags.values_list("name", flat=True)),
        images=page.total,
        boxes=Box.objects.filter(image_id__in=in_set).count(),
        descriptions=Description.objects.filter(image_id__in=in_set).count(),
        campaigns=campaigns,
        page=page,
    )


def _campaigns_using(in_set: QuerySet[Any, Any]) -> QuerySet[Any, Any]:
    return (HIT.objects.annotate(image_id=Cast(KeyTextTransform("image", "items"), BigIntegerField()))
            .filter(image_id__in=in_set).values("campaign_id"))
