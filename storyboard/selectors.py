"""Reads of the storyboard app."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mturk.models import Assignment, Campaign, submitted_answer
from mturk.states import AssignmentStatus

from .models import Album, Photo, Setting, Story, Storylet


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


def storytelling_sequences(tell_campaign_id: int | None, album_ids: Iterable[int]) -> dict[int, list[dict[str, Any]]]:
    """Per album, the distinct photo sequences of its storytelling stories (from one campaign when
    given), each named by the first story that made it: [{"id": story id, "photos": [...]}].
    Two storytellers who picked the same photos in the same order make one sequence. Two queries."""
    stories = Story.objects.filter(album_id__in=list(album_ids), setting=Setting.TELL).order_by("album_id", "id")
    if tell_campaign_id is not None:
        stories = stories.filter(assignment__hit__campaign_id=tell_campaign_id)
    story_list = list(stories.only("id", "album_id"))
    cards = story_sequences(s.pk for s in story_list)
    result: dict[int, list[dict[str, Any]]] = {pk: [] for pk in album_ids}
    seen: set[tuple[int, tuple[int, ...]]] = set()
    for story in story_list:
        photos = [payload for payload, _ in cards[story.pk]]
        key = (story.album_id, tuple(p["id"] for p in photos))
        if key in seen:
            continue
        seen.add(key)
        result[story.album_id].append({"id": story.pk, "photos": photos})
    return result


def storytelling_outcomes(campaign: Campaign) -> dict[str, int]:
    """Albums of a tell_story campaign: told (a storytelling story approved, stage complete), discarded
    (not storyable by `discard_after_skips` workers) and waiting; gold and onboarding HITs are no albums of the
    campaign. Two queries."""
    threshold = int(campaign.options.get("discard_after_skips", 2))
    hits = list(campaign.hits.filter(gold_item=None).values_list("pk", "max_assignments"))
    answers: dict[int, list[dict[str, Any]]] = {pk: [] for pk, _ in hits}
    approved = Assignment.objects.filter(hit__campaign=campaign, hit__gold_item=None, status=AssignmentStatus.APPROVED)
    for pk, hit, answer in approved.values_list("pk", "hit_id", "answer"):
        answers[hit].append(submitted_answer(pk, answer))
    outcome = {"told": 0, "discarded": 0, "waiting": 0}
    for pk, needed in hits:
        skips = sum(1 for a in answers[pk] if a.get("skip"))
        if skips >= threshold:
            outcome["discarded"] += 1
        elif len(answers[pk]) >= needed:
            outcome["told"] += 1
        else:
            outcome["waiting"] += 1
    return outcome


def story_references(campaigns: list[Campaign], split: str | None = None, split_seed: str = "sind",
                     released: bool = False) -> list:
    """Every story (normalized text of its storylets joined by spaces, in photo order) with its album
    and photo sequence, in export order, for scoring generated stories; optionally one split only (an imported
    album's released split, else the export's hashed split), optionally only the stories imported from a release
    (VIST's, with their story_id). Two queries."""
    from metrics.story_report import StoryText

    from .exports.records import split_of
    from .exports.scope import StoryScope
    from .models import Storylet

    stories = StoryScope.of(campaigns).story_rows().order_by("album_id", "setting", "pk")
    if released:
        stories = stories.exclude(external_id="")
    rows = Storylet.objects.filter(story__in=stories).order_by(
        "story__album_id", "story__setting", "story_id", "order").values_list(
        "story_id", "story__album__external_id", "story__album__split", "photo__external_id", "text")
    texts: dict[int, tuple[str, str, list[str], list[str]]] = {}
    for story, album, album_split, photo, text in rows.iterator(chunk_size=5000):
        entry = texts.setdefault(story, (album, album_split, [], []))
        entry[2].append(photo)
        entry[3].append(text)
    return [
        StoryText(story_id=str(pk), sequence=tuple(photos), album_id=album, text=" ".join(parts))
        for pk, (album, album_split, photos, parts) in texts.items()
        if split is None or (album_split or split_of(album, split_seed)) == split
    ]
