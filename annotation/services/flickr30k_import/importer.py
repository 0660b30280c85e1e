"""Flickr30k Entities import: both passes, all or nothing (import_flickr30k)."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction

from ...image_sets.services import SetSpec, file_images
from ..image_files import ImageRejected
from .checks import check_release
from .source import DATASET, DEFAULT_SET, LICENCE, VOCABULARY, Flickr30kImport, Flickr30kImportError, Source
from .writes import write_release

Progress = Callable[[int, int], None]  # (images done, twice the images: checked, then written)


def release_set(name: str | None = None, tags: tuple[str, ...] = ()) -> SetSpec:
    """The collection of an import: source flickr30k, the release's licence."""
    return SetSpec(name or DEFAULT_SET, tags, source=DATASET, licence=LICENCE)


def import_flickr30k(path: Path | str, images: Path | str | None = None, vocabulary: str | None = None,
                     image_set: SetSpec | None = None, progress: Progress | None = None) -> Flickr30kImport:
    """Import a Flickr30k Entities release (a folder or a zip); all or nothing. Raises Flickr30kImportError listing
    the problems, each naming its file and line. `images`: a folder of the image files (else the release's
    flickr30k-images/ when it has one; images without a file are known by reference)."""
    source = Source(Path(path), Path(images) if images is not None else None)
    summary = Flickr30kImport()
    done = 0
    total = 0

    def step(count: int = 1) -> None:
        nonlocal done
        done += count
        if progress is not None and total and (done % 500 == 0 or done == total):
            progress(done, total)

    try:
        plan = check_release(source, vocabulary or VOCABULARY, summary, step)
        total = 2 * len(plan.keys)
        done = len(plan.keys)
        if progress is not None:
            progress(done, total)
        spec = image_set or release_set()
        if not spec.licence:
            spec = SetSpec(spec.name, spec.tags, spec.source or DATASET, spec.is_demo, LICENCE)
        stored: list[str] = []
        try:
            with transaction.atomic():
                image_ids = write_release(source, plan, vocabulary or VOCABULARY, summary, stored, step)
                file_images(spec, image_ids)
        except BaseException as exc:
            for name in stored:  # the rows are rolled back; the stored files must go too
                default_storage.delete(name)
            if isinstance(exc, (ImageRejected, IntegrityError)):
                raise Flickr30kImportError([f"nothing was imported: {exc}"]) from exc
            raise
        return summary
    finally:
        source.close()
