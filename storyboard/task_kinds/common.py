"""What the storyboard task kinds share: the rules every story or sequence text obeys and the
checks of HIT items. (Payload reads are in storyboard.selectors.)"""
from __future__ import annotations

import re
from typing import Any

from rest_framework import serializers

from annotation.task_kinds.describe_image import words

from ..models import Album, Photo, Story

_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)


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


def check_whole_numbers(options: dict[str, Any], minimums: dict[str, int]) -> None:
    """Campaign options that are counts: each a whole number of at least its minimum."""
    for key, least in minimums.items():
        if not integer(options[key]) or options[key] < least:
            raise ValueError(f"option {key} must be a whole number of at least {least}")


def validate_story_items(items: list[dict[str, Any]], *, storytelling_only: bool) -> None:
    key = "sequence" if storytelling_only else "story"
    for index, item in enumerate(items):
        if set(item) != {key} or not integer(item[key]):
            raise ValueError(f"item {index}: expected {{\"{key}\": <story id>}}, got {item!r}")
    wanted = {item[key] for item in items}
    found = Story.objects.filter(pk__in=wanted)
    if storytelling_only:
        found = found.filter(sequence_of=None)
    missing = wanted - set(found.values_list("pk", flat=True))
    if missing:
        what = "storytelling story" if storytelling_only else "story"
        raise ValueError(f"unknown {what} id(s): {', '.join(map(str, sorted(missing)))}")
