"""Album import, second pass: checked albums written in one transaction (write_albums, import_albums)."""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

from django.core.files.storage import default_storage
from django.db import transaction

from annotation.image_sets.services import SetSpec, file_images
from annotation.services.image_files import ImageRejected
from annotation.services.images import import_image_bytes

from ...models import Album, Photo
from .fields import AlbumImportError, AlbumImportReport, AlbumSpec, PhotoSpec
from .reading import check_albums

DEFAULT_SET = "Albums"  # the collection of the albums' photos when none is named
SOURCE = "albums"


def _save_album(spec: AlbumSpec, report: AlbumImportReport) -> Album:
    album = Album.objects.filter(external_id=spec.external_id).first()
    if album is None:
        report.albums_created += 1
        return Album.objects.create(external_id=spec.external_id, **spec.fields)
    for name, value in spec.fields.items():
        setattr(album, name, value)
    album.save()
    report.albums_updated += 1
    return album


def _taken(photo: PhotoSpec) -> datetime:
    """The photo's datetaken, which checking the photo fills in; writing an unchecked photo is a programming error."""
    if photo.datetaken is None:
        raise ValueError(f"{photo.where}: no datetaken (the photo was not checked before writing)")
    return photo.datetaken


def _add_photo(album: Album, spec: PhotoSpec, report: AlbumImportReport, stored: list[str]) -> None:
    image, created = import_image_bytes(spec.name, spec.path.read_bytes())
    if created:
        stored.append(image.original.name)
        report.images_stored += 1
    Photo.objects.create(album=album, image=image, external_id=spec.external_id, datetaken=_taken(spec),
                         **spec.fields)
    report.photos_added += 1


def _write_album(spec: AlbumSpec, report: AlbumImportReport, stored: list[str]) -> None:
    album = _save_album(spec, report)
    known = set(album.photos.values_list("external_id", flat=True))
    new = sorted((p for p in spec.photos if p.external_id not in known), key=lambda p: (_taken(p), p.external_id))
    report.photos_kept += len(spec.photos) - len(new)
    for photo in new:
        _add_photo(album, photo, report, stored)


def write_albums(albums: list[AlbumSpec], image_set: SetSpec | None = None) -> AlbumImportReport:
    """Write checked albums in one transaction, their photos' images filed in `image_set` (default: the collection
    "Albums"); on any failure nothing stays (rows nor stored files)."""
    report = AlbumImportReport()
    stored: list[str] = []
    try:
        with transaction.atomic():
            for album in albums:
                _write_album(album, report, stored)
            images = Photo.objects.filter(album__external_id__in=[album.external_id for album in albums])
            report.image_set = file_images(image_set or SetSpec(DEFAULT_SET, source=SOURCE),
                                           list(images.values_list("image_id", flat=True))).name
    except BaseException as exc:
        for name in stored:  # the rows are rolled back; the files stored for them must go too
            default_storage.delete(name)
        if isinstance(exc, ImageRejected | OSError):
            raise AlbumImportError([f"nothing was imported: a file changed during the import ({exc})"]) from exc
        raise
    return report


def import_albums(path: Path | str, image_set: SetSpec | None = None) -> AlbumImportReport:
    """Import a folder of album folders or a JSON manifest; all or nothing (raises AlbumImportError)."""
    return write_albums(check_albums(path), image_set)
