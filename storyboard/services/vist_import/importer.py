"""VIST import: both passes, all or nothing (import_vist)."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from django.db import IntegrityError, transaction

from annotation.image_sets.services import SetSpec, file_images

from .checks import Plan, check_albums_and_images, check_annotations, check_stored, check_stored_stories
from .records import LICENCE, SOURCE, Problems, VistFile, VistImport, VistImportError, find_files
from .writes import (
    photo_pks,
    write_albums,
    write_dii,
    write_dis,
    write_photos,
    write_stories,
    write_storylets,
)


def set_of(split: str) -> SetSpec:
    """The image set of a split's photos."""
    return SetSpec(f"VIST {split}", ("vist", split), SOURCE, licence=LICENCE)


def import_vist(paths: Sequence[Path | str | VistFile], splits: tuple[str, ...] = ()) -> VistImport:
    """Import released VIST files (or folders holding them); all or nothing. Raises VistImportError listing the
    problems, each naming the file and the record."""
    if all(isinstance(p, VistFile) for p in paths):
        files = [p for p in paths if isinstance(p, VistFile)]
    else:
        files = find_files([Path(p) for p in paths if not isinstance(p, VistFile)], splits)
    problems, plan = Problems(), Plan()
    for source in files:
        check_albums_and_images(source, plan, problems)
    check_stored(plan, problems)
    for source in files:
        check_annotations(source, plan, problems)
    check_stored_stories(plan, problems)
    problems.raise_any()
    summary = VistImport(files=[f.name for f in files])
    try:
        with transaction.atomic():
            albums = write_albums(plan, summary)
            for split in sorted({f.split for f in files}):
                split_files = [f for f in files if f.split == split]
                file_images(set_of(split), write_photos(split_files, plan, albums, summary))
            photos = photo_pks(plan)
            stories = write_stories(plan, albums, summary)
            for source in files:
                if source.tier == "sis":
                    write_storylets(source, stories, photos, summary)
                elif source.tier == "dii":
                    write_dii(source, albums, photos, summary)
                else:
                    write_dis(source, stories, photos, summary)
    except (IntegrityError, KeyError) as exc:
        raise VistImportError([f"nothing was imported: {type(exc).__name__}: {exc}"]) from exc
    if plan.missing_photos:
        summary.notes.append(
            f"{len(plan.missing_photos)} photo(s) named by annotations are not among the files' images (the release "
            f"left them out): {summary.skipped_stories} story(ies) using them were skipped whole, and "
            f"{summary.skipped_descriptions} description(s) of them.")
    return summary
