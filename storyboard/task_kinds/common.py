"""What the storyboard task kinds share: photo payloads (a constant number of queries) and the
rules every story or sequence text obeys."""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from rest_framework import serializers

from annotation.task_kinds.describe_image import words

from ..models import Album, Photo, Story, Storylet

_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)


def photo_payload(photo: Photo) -> dict[str, Any]:
    image = photo.image
    return {
        "id": photo.pk,
        "external_id": photo.external_id,
        "url": image.small_url,
        "large": image.display_url,
        "width": image.width,
        "height": image.height,
        "title": photo.title,
        "datetaken": photo.datetaken.strftime("%Y-%m-%d %H:%M"),
    }


def album_payload(album: Album) -> dict[str, Any]:
    return {"id": album.pk, "title": album.title or album.external_id}


def album_photos(album_ids: Iterable[int]) -> dict[int, list[dict[str, Any]]]:
    """Photo payloads of each album in time order, in one query."""
    photos: dict[int, list[dict[str, Any]]] = {pk: [] for pk in album_ids}
    for photo in Photo.objects.filter(album_id__in=list(photos)).select_related("image").order_by(
        "album_id", "datetaken", "id"
    ):
        photos[photo.album_id].append(photo_payload(photo))
    return photos


def story_sequences(story_ids: Iterable[int]) -> dict[int, list[tuple[dict[str, Any], Storylet]]]:
    """Each story's cards in order: (photo payload, storylet), in one query."""
    cards: dict[int, list[tuple[dict[str, Any], Storylet]]] = {pk: [] for pk in story_ids}
    for storylet in Storylet.objects.filter(story_id__in=list(cards)).select_related("photo__image").order_by(
        "story_id", "order"
    ):
        cards[storylet.story_id].append((photo_payload(storylet.photo), storylet))
    return cards


def stories_with_albums(story_ids: Iterable[int]) -> dict[int, Story]:
    return Story.objects.select_related("album").in_bulk(list(story_ids))


def _same_sentence_key(text: str) -> str:
    return " ".join(_PUNCT.sub(" ", text.casefold()).split())


def clean_text(value: Any, label: str) -> str:
    if not isinstance(value, str):
        raise serializers.ValidationError(f"{label}: expected text.")
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
        raise serializers.ValidationError(f"{label}: the text is not valid UTF-8.")
    return " ".join(value.split())


def check_texts(texts: list[str], *, min_words_total: int = 0, min_words_each: int = 0, noun: str = "card") -> None:
    """The quality rules of story cards and sequence descriptions; raises with every problem found."""
    problems = []
    for index, text in enumerate(texts, start=1):
        if not text:
            problems.append(f"{noun.capitalize()} {index} is empty: write a sentence or phrase on it.")
        elif min_words_each and len(words(text)) < min_words_each:
            problems.append(
                f"{noun.capitalize()} {index}: write at least {min_words_each} words (you wrote {len(words(text))})."
            )
    seen: dict[str, int] = {}
    for index, text in enumerate(texts, start=1):
        key = _same_sentence_key(text)
        if key and key in seen:
            problems.append(
                f"{noun.capitalize()}s {seen[key]} and {index} have the same text: write a different sentence on each."
            )
        seen.setdefault(key, index)
    total = sum(len(words(t)) for t in texts)
    if min_words_total and total < min_words_total:
        problems.append(
            f"Your story is too short: write at least {min_words_total} words in total (you wrote {total})."
        )
    if problems:
        raise serializers.ValidationError(problems)


def integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def validate_album_items(items: list[dict[str, Any]]) -> None:
    for index, item in enumerate(items):
        if set(item) != {"album"} or not integer(item["album"]):
            raise ValueError(f"item {index}: expected {{\"album\": <album id>}}, got {item!r}")
    wanted = {item["album"] for item in items}
    known = set(Album.objects.filter(pk__in=wanted).values_list("pk", flat=True))
    if wanted - known:
        raise ValueError(f"unknown album id(s): {', '.join(map(str, sorted(wanted - known)))}")
    empty = wanted - set(Photo.objects.filter(album_id__in=wanted).values_list("album_id", flat=True).distinct())
    if empty:
        raise ValueError(f"album(s) without photos: {', '.join(map(str, sorted(empty)))}")


def validate_story_items(items: list[dict[str, Any]], *, storytelling_only: bool) -> None:
    for index, item in enumerate(items):
        key = "sequence" if storytelling_only else "story"
        if set(item) != {key} or not integer(item[key]):
            raise ValueError(f"item {index}: expected {{\"{key}\": <story id>}}, got {item!r}")
    key = "sequence" if storytelling_only else "story"
    wanted = {item[key] for item in items}
    found = Story.objects.filter(pk__in=wanted)
    if storytelling_only:
        found = found.filter(sequence_of=None)
    missing = wanted - set(found.values_list("pk", flat=True))
    if missing:
        what = "storytelling story" if storytelling_only else "story"
        raise ValueError(f"unknown {what} id(s): {', '.join(map(str, sorted(missing)))}")
