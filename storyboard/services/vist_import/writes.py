"""VIST import, second pass: albums, photos (images known by reference), stories, DII and DIS written in batches."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any

from django.db import reset_queries

from annotation.models import Description, Image, ImageOrigin
from metrics.text.markup import tokenize

from ...models import Album, IsolatedDescription, Photo, SequenceDescription, Setting, Story, Storylet
from .checks import Plan, retold_sequences
from .fields import Line, annotation_line, image_fields
from .records import BATCH, DATASET, SOURCE, Problems, VistFile, VistImport, read_section

FORMATS = {".jpg": "JPEG", ".jpeg": "JPEG", ".png": "PNG", ".gif": "GIF"}


def _batches(items: Iterator[Any]) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) == BATCH:
            yield batch
            reset_queries()  # with DEBUG on, Django keeps every query's SQL
            batch = []
    if batch:
        yield batch


def write_albums(plan: Plan, summary: VistImport) -> dict[str, int]:
    """Album id -> pk; new albums made, known ones updated (fields and split)."""
    ids: dict[str, int] = {}
    for album_id, album in plan.albums.items():
        fields = {**album.fields, "split": album.split}
        if album_id in plan.stored_albums:
            Album.objects.filter(external_id=album_id).update(**fields)
            summary.albums_updated += 1
        else:
            Album.objects.create(external_id=album_id, **fields)
            summary.albums_new += 1
    for chunk in _batches(iter(plan.albums)):
        ids.update(Album.objects.filter(external_id__in=chunk).values_list("external_id", "pk"))
    return ids


def _images(records: list[tuple[str, str, Any, dict[str, Any]]]) -> dict[str, int]:
    """Photo id -> image pk: the image with that key, else a new image known by reference (with its origin)."""
    keys = [photo_id for photo_id, *_ in records]
    found = dict(Image.objects.filter(key__in=keys).values_list("key", "pk"))
    new = []
    for photo_id, _, _, fields in records:
        if photo_id not in found:
            extension = PurePosixPath(fields["url"]).suffix.lower() or ".jpg"
            new.append(Image(key=photo_id, sha256=None, original="", source_url=fields["url"],
                             original_name=f"{photo_id}{extension}", format=FORMATS.get(extension, "JPEG"),
                             width=0, height=0, file_size=0))
    Image.objects.bulk_create(new)
    found.update((image.key, image.pk) for image in new)
    numeric = [int(image.key) for image in new if image.key.isdigit() and len(image.key) < 19]
    taken = set(ImageOrigin.objects.filter(dataset=DATASET, external_id__in=numeric).values_list("external_id",
                                                                                                  flat=True))
    ImageOrigin.objects.bulk_create([ImageOrigin(image_id=image.pk, dataset=DATASET, external_id=int(image.key))
                                     for image in new if image.key.isdigit() and len(image.key) < 19
                                     and int(image.key) not in taken])
    return found


def write_photos(files: list[VistFile], plan: Plan, albums: dict[str, int], summary: VistImport) -> list[int]:
    """Each file's images, once; returns the image pks (for the image sets)."""
    image_pks: list[int] = []
    done = set(plan.stored_photos)
    problems = Problems()
    for source in files:
        records = (image_fields(record, source.name, problems) for _, record in read_section(source, "images",
                                                                                             problems))
        for batch in _batches(r for r in records if r is not None):
            fresh = []
            for photo_id, album_id, datetaken, fields in batch:
                if (album_id, photo_id) in done:
                    continue
                done.add((album_id, photo_id))
                fresh.append((photo_id, album_id, datetaken, fields))
            images = _images(fresh)
            Photo.objects.bulk_create([Photo(album_id=albums[album_id], image_id=images[photo_id],
                                             external_id=photo_id, datetaken=datetaken, **fields)
                                       for photo_id, album_id, datetaken, fields in fresh])
            summary.photos_new += len(fresh)
            image_pks.extend(images[photo_id] for photo_id, *_ in fresh)
    problems.raise_any()  # the files changed between the passes
    summary.photos_kept = sum(1 for _, photo in plan.stored_photos if photo in plan.photos)
    return image_pks


def photo_pks(plan: Plan) -> dict[tuple[str, str], int]:
    pks: dict[tuple[str, str], int] = {}
    for chunk in _batches(iter(plan.albums)):
        for album, photo, pk in Photo.objects.filter(album__external_id__in=chunk).values_list(
                "album__external_id", "external_id", "pk"):
            pks[(album, photo)] = pk
    return pks


def write_stories(plan: Plan, albums: dict[str, int], summary: VistImport) -> dict[str, int]:
    """Story id -> pk of every story new in the files (storytelling first: re-tellings point at them)."""
    retold = retold_sequences(plan)
    created: dict[str, int] = {}
    for setting in (Setting.TELL, Setting.RETELL):
        wanted = [(story_id, story) for story_id, story in plan.stories.items()
                  if story.setting == setting and story_id not in plan.skipped and story_id not in plan.stored_stories]
        for batch in _batches(iter(wanted)):
            rows = [Story(album_id=albums[story.album], setting=setting, external_id=story_id,
                          worker_label=story.worker, sequence_of_id=created.get(retold.get(story_id, "")))
                    for story_id, story in batch]
            Story.objects.bulk_create(rows)
            created.update((row.external_id, row.pk) for row in rows)
            summary.incomplete_stories += sum(1 for _, story in batch if len(story.photos) < 5)
    summary.stories = len(created)
    summary.stories_kept = sum(1 for s in plan.stories if s in plan.stored_stories)
    summary.skipped_stories = len(plan.skipped)
    return created


def _lines(source: VistFile, problems: Problems) -> Iterator[Line]:
    for index, item in read_section(source, "annotations", problems):
        line = annotation_line(item, source.tier, f"{source.name}: annotations[{index}]", problems)
        if line is not None:
            yield line


def write_storylets(source: VistFile, stories: dict[str, int], photos: dict[tuple[str, str], int],
                    summary: VistImport) -> None:
    problems = Problems()
    for batch in _batches(line for line in _lines(source, problems) if line.story in stories):
        Storylet.objects.bulk_create([
            Storylet(story_id=stories[line.story], order=line.order, photo_id=photos[(line.album, line.photo)],
                     original_text=line.original, text=line.text, external_id=line.storylet) for line in batch])
        summary.storylets += len(batch)
    problems.raise_any()


def write_dii(source: VistFile, albums: dict[str, int], photos: dict[tuple[str, str], int],
              summary: VistImport) -> None:
    problems = Problems()
    for batch in _batches(_lines(source, problems)):
        known = [line for line in batch if (line.album, line.photo) in photos]
        summary.skipped_descriptions += len(batch) - len(known)
        photo_ids = {photos[(line.album, line.photo)] for line in known}
        seen = set(IsolatedDescription.objects.filter(photo_id__in=photo_ids).values_list(
            "photo_id", "order", "worker_label", "description__text"))
        fresh = []
        for line in known:
            key = (photos[(line.album, line.photo)], line.order, line.worker, line.original)
            if key in seen:
                summary.dii_kept += 1
                continue
            seen.add(key)
            fresh.append(line)
        image_of = dict(Photo.objects.filter(pk__in=photo_ids).values_list("pk", "image_id"))
        descriptions = [Description(image_id=image_of[photos[(line.album, line.photo)]], text=line.original,
                                    tokens=tokenize(line.original), normalized_text=line.text, source=SOURCE)
                        for line in fresh]
        Description.objects.bulk_create(descriptions)
        IsolatedDescription.objects.bulk_create([
            IsolatedDescription(description_id=description.pk, album_id=albums[line.album],
                                photo_id=photos[(line.album, line.photo)], order=line.order, worker_label=line.worker)
            for line, description in zip(fresh, descriptions, strict=True)])
        summary.dii += len(fresh)
    problems.raise_any()


def write_dis(source: VistFile, stories: dict[str, int], photos: dict[tuple[str, str], int],
              summary: VistImport) -> None:
    problems = Problems()
    for batch in _batches(_lines(source, problems)):
        sequences = dict(Story.objects.filter(external_id__in={line.story for line in batch}).values_list(
            "external_id", "pk"))
        known = [line for line in batch if (line.album, line.photo) in photos and line.story in sequences]
        summary.skipped_descriptions += len(batch) - len(known)
        seen = set(SequenceDescription.objects.filter(sequence_id__in=sequences.values(), assignment=None)
                   .values_list("sequence_id", "order", "worker_label", "original_text"))
        fresh = []
        for line in known:
            key = (sequences[line.story], line.order, line.worker, line.original)
            if key in seen:
                summary.dis_kept += 1
                continue
            seen.add(key)
            fresh.append(SequenceDescription(sequence_id=key[0], order=line.order,
                                             photo_id=photos[(line.album, line.photo)], original_text=line.original,
                                             text=line.text, worker_label=line.worker))
        SequenceDescription.objects.bulk_create(fresh)
        summary.dis += len(fresh)
    problems.raise_any()
