"""VIST import, first pass: every record checked, the problems collected, and the plan the writes follow."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...models import Album, Photo, Setting, Story
from .fields import Line, album_fields, annotation_line, image_fields
from .records import BATCH, Problems, VistFile, read_section


@dataclass
class AlbumPlan:
    split: str
    fields: dict[str, Any]
    where: str


@dataclass
class StoryPlan:
    album: str
    setting: str
    worker: str
    where: str
    photos: dict[int, str] = field(default_factory=dict)  # position -> photo id
    storylets: set[str] = field(default_factory=set)


@dataclass
class Plan:
    albums: dict[str, AlbumPlan] = field(default_factory=dict)  # album id -> its plan (first file that gives it)
    photos: dict[str, str] = field(default_factory=dict)  # photo id -> album id, from the files' images
    stored_albums: dict[str, str] = field(default_factory=dict)  # album id -> stored split
    stored_photos: set[tuple[str, str]] = field(default_factory=set)  # (album id, photo id) already stored
    stored_stories: dict[str, str] = field(default_factory=dict)  # story id -> album id, already stored
    stories: dict[str, StoryPlan] = field(default_factory=dict)  # story id -> plan, in file order
    skipped: set[str] = field(default_factory=set)  # stories with a photo the release does not give
    missing_photos: set[tuple[str, str]] = field(default_factory=set)


def _chunks(items: list[str]) -> list[list[str]]:
    return [items[start:start + BATCH] for start in range(0, len(items), BATCH)]


def check_albums_and_images(source: VistFile, plan: Plan, problems: Problems) -> None:
    in_file: set[str] = set()
    for index, record in read_section(source, "albums", problems):
        where = f"{source.name}: albums[{index}]"
        checked = album_fields(record, where, problems)
        if checked is None:
            continue
        album_id, fields = checked
        if album_id in in_file:
            problems.add(f"{where}: album {album_id} is listed twice")
        in_file.add(album_id)
        known = plan.albums.get(album_id)
        if known is None:
            plan.albums[album_id] = AlbumPlan(source.split, fields, where)
        elif known.split != source.split:
            problems.add(f"{where}: album {album_id} is in the {source.split} split here and in the {known.split} "
                         f"split in {known.where} (an album is in one split)")
    photos_here: set[str] = set()
    for index, record in read_section(source, "images", problems):
        where = f"{source.name}: images[{index}]"
        image = image_fields(record, where, problems)
        if image is None:
            continue
        photo_id, album_id = image[0], image[1]
        if photo_id in photos_here:
            problems.add(f"{where}: photo {photo_id} is listed twice")
        photos_here.add(photo_id)
        if album_id not in in_file:
            problems.add(f"{where} (photo {photo_id}): album_id {album_id} is not among the file's albums")
        elif plan.photos.setdefault(photo_id, album_id) != album_id:
            problems.add(f"{where}: photo {photo_id} is in album {album_id} here and in album "
                         f"{plan.photos[photo_id]} in another file")


def check_stored(plan: Plan, problems: Problems) -> None:
    """What the platform has already: the albums' splits, their photos."""
    for chunk in _chunks(list(plan.albums)):
        for album_id, split in Album.objects.filter(external_id__in=chunk).values_list("external_id", "split"):
            plan.stored_albums[album_id] = split
            if split and split != plan.albums[album_id].split:
                problems.add(f"{plan.albums[album_id].where}: album {album_id} was imported in the {split} split")
        plan.stored_photos.update(Photo.objects.filter(album__external_id__in=chunk).values_list(
            "album__external_id", "external_id"))


def _photo_known(plan: Plan, line: Line, where: str, problems: Problems) -> bool | None:
    """True when the release gives the photo, False when it does not (a photo left out), None after a problem."""
    if line.album not in plan.albums and line.album not in plan.stored_albums:
        problems.add(f"{where}: album_id {line.album} is not among the albums")
        return None
    album = plan.photos.get(line.photo)
    if album is not None and album != line.album:
        problems.add(f"{where}: photo {line.photo} is in album {album}, not {line.album}")
        return None
    return album is not None or (line.album, line.photo) in plan.stored_photos


def _story_line(plan: Plan, line: Line, where: str, problems: Problems) -> None:
    story = plan.stories.get(line.story)
    if story is None:
        story = plan.stories[line.story] = StoryPlan(line.album, line.setting, line.worker, where)
    elif (story.album, story.setting, story.worker) != (line.album, line.setting, line.worker):
        problems.add(f"{where}: story {line.story} has album {story.album}, setting {story.setting} and worker "
                     f"{story.worker!r} in {story.where}, here {line.album}, {line.setting}, {line.worker!r}")
        return
    if line.order in story.photos:
        problems.add(f"{where}: story {line.story} has two storylets at position {line.order}")
    if line.storylet in story.storylets:
        problems.add(f"{where}: storylet {line.storylet} is given twice")
    story.photos[line.order] = line.photo
    story.storylets.add(line.storylet)


def check_annotations(source: VistFile, plan: Plan, problems: Problems) -> None:
    for index, item in read_section(source, "annotations", problems):
        where = f"{source.name}: annotations[{index}]"
        line = annotation_line(item, source.tier, where, problems)
        if line is None:
            continue
        where = f"{where}[0] ({'story ' + line.story if line.story else 'photo ' + line.photo})"
        known = _photo_known(plan, line, where, problems)
        if known is None:
            continue
        if not known:
            plan.missing_photos.add((line.album, line.photo))
        if source.tier == "sis":
            _story_line(plan, line, where, problems)
            if not known:
                plan.skipped.add(line.story)
        elif source.tier == "dis" and line.story not in plan.stories and line.story not in plan.stored_stories:
            stored = Story.objects.filter(external_id=line.story).values_list("album__external_id", flat=True).first()
            if stored is None:
                problems.add(f"{where}: story {line.story} is neither in the SIS files nor imported before")
                continue
            plan.stored_stories[line.story] = stored
        if source.tier == "dis":
            album = plan.stories[line.story].album if line.story in plan.stories else plan.stored_stories[line.story]
            if album != line.album:
                problems.add(f"{where}: story {line.story} is of album {album}, not {line.album}")


def check_stored_stories(plan: Plan, problems: Problems) -> None:
    """Stories imported before must be of the same album (a story_id names one story)."""
    for chunk in _chunks(list(plan.stories)):
        for story_id, album in Story.objects.filter(external_id__in=chunk).values_list(
                "external_id", "album__external_id"):
            plan.stored_stories[story_id] = album
            if album != plan.stories[story_id].album:
                problems.add(f"{plan.stories[story_id].where}: story {story_id} was imported in album {album}")


def retold_sequences(plan: Plan) -> dict[str, str]:
    """Re-telling story id -> the album's first storytelling story with the same photo sequence."""
    first: dict[tuple[str, tuple[str, ...]], str] = {}
    for story_id, story in plan.stories.items():
        if story.setting == Setting.TELL:
            first.setdefault((story.album, tuple(story.photos[o] for o in sorted(story.photos))), story_id)
    return {story_id: first[key] for story_id, story in plan.stories.items() if story.setting == Setting.RETELL
            and (key := (story.album, tuple(story.photos[o] for o in sorted(story.photos)))) in first}
