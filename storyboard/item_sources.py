"""What the campaign wizard takes from this app: albums (all, or a selection: an album set), and a sample
item per story task kind for the preview."""
from __future__ import annotations

from typing import Any

from django.db.models import Count

from mturk.item_sources import Choice, ChoicePage, ItemSource, Sample, register_sample, register_source

from .models import Album, Setting, Story

ALBUM_KINDS = frozenset({"tell_story"})


@register_source
class AllAlbums(ItemSource):
    name = "all_albums"
    label = "All albums"
    kinds = ALBUM_KINDS

    def describe(self) -> str:
        return f"{Album.objects.count()} album(s), one HIT each"

    def items(self, kind: str, selected: list[int]) -> list[dict[str, Any]]:
        items = [{"album": pk} for pk in Album.objects.order_by("pk").values_list("pk", flat=True)]
        if not items:
            raise ValueError("no album matches (there is no album yet: import albums first)")
        return items


@register_source
class AlbumSelection(ItemSource):
    name = "albums"
    label = "An album set"
    kinds = ALBUM_KINDS
    selectable = True

    def choices(self, page: int = 1) -> ChoicePage:
        albums = Album.objects.annotate(photo_count=Count("photos")).order_by("pk")
        return self.page_of(albums, page, lambda album: Choice(album.pk, album.title or album.external_id,
                                                               note=f"{album.photo_count} photos"))

    def items(self, kind: str, selected: list[int]) -> list[dict[str, Any]]:
        if not selected:
            raise ValueError("tick at least one album")
        return [{"album": pk} for pk in sorted(set(selected))]


@register_sample("tell_story", "there is no album yet: import albums first")
def _album() -> Sample | None:
    pk = Album.objects.filter(photos__isnull=False).order_by("pk").values_list("pk", flat=True).first()
    return None if pk is None else Sample({"album": pk})


@register_sample("retell_story", "retell_story needs an album with a told story (a tell_story stage's results)")
def _told_album() -> Sample | None:
    story = Story.objects.filter(setting=Setting.TELL).order_by("pk").values("album_id").first()
    return None if story is None else Sample({"album": story["album_id"]})


@register_sample("describe_sequence", "describe_sequence needs a told story (a tell_story stage's results)")
def _sequence() -> Sample | None:
    pk = Story.objects.filter(sequence_of=None).order_by("pk").values_list("pk", flat=True).first()
    return None if pk is None else Sample({"sequence": pk})


@register_sample("rate_story", "rate_story needs a story (a tell_story or retell_story stage's results)")
def _story() -> Sample | None:
    pk = Story.objects.order_by("pk").values_list("pk", flat=True).first()
    return None if pk is None else Sample({"story": pk})
