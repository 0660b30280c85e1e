"""COCO import: both passes, all or nothing (import_coco)."""
from __future__ import annotations

from pathlib import Path, PurePosixPath

from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction

from common.text_input import column_length, unstorable

from ...image_sets.services import SetSpec, file_images
from ...models import ImageOrigin
from ..image_files import ImageRejected
from .checks import check_captions, check_categories, check_images, check_instances, check_stored
from .records import CocoFile, CocoImport, CocoImportError, Counter, ImageFiles, Plan, Problems, Progress
from .writes import subset_of, write_boxes, write_captions, write_images


def import_coco(captions: CocoFile | Path | str, instances: CocoFile | Path | str | None = None,
                image_files: ImageFiles | None = None, subset: str | None = None,
                progress: Progress | None = None, image_set: SetSpec | None = None) -> CocoImport:
    """Import a COCO captions file (and instances file); all or nothing. Raises CocoImportError listing the
    problems. `progress(done, total)` counts records: total is None while the files are checked, then twice the
    records (checked, then written). `image_set`: the collection every image of the files lands in (made when
    new; the default is one named after the captions file)."""
    captions = captions if isinstance(captions, CocoFile) else CocoFile.from_path(captions)
    if instances is not None and not isinstance(instances, CocoFile):
        instances = CocoFile.from_path(instances)
    if subset is not None and (len(subset) > column_length(ImageOrigin, "subset") or unstorable(subset)):
        raise CocoImportError([f"the subset {subset!r} must have at most 40 characters"])
    problems, plan, counter, summary = Problems(), Plan(), Counter(progress), CocoImport()
    keys: dict[str, int] = {}
    check_images(captions, plan, keys, problems, counter)
    if instances is not None:
        check_images(instances, plan, keys, problems, counter)
    check_captions(captions, plan, problems, counter)
    if instances is not None:
        check_categories(instances, plan, problems, counter)
        check_instances(instances, plan, problems, counter)
    if not problems.count:
        check_stored(plan, image_files, summary, problems)
    problems.raise_any()
    counter.total = 2 * plan.records
    counter.report()
    stored: list[str] = []
    try:
        with transaction.atomic():
            image_ids = write_images(plan, image_files, subset, subset_of(captions.name, ""), summary, stored,
                                      counter)
            file_images(image_set or SetSpec(PurePosixPath(captions.name).stem[:100] or "COCO", source="coco"),
                        list(image_ids.values()))
            write_captions(captions, image_ids, summary, counter)
            if instances is not None:
                write_boxes(instances, plan, image_ids, summary, counter)
    except BaseException as exc:
        for name in stored:  # the rows are rolled back; the stored files must go too
            default_storage.delete(name)
        if isinstance(exc, (ImageRejected, IntegrityError, KeyError, TypeError)):
            raise CocoImportError([f"nothing was imported: {type(exc).__name__}: {exc}"]) from exc
        raise
    counter.done = counter.total
    counter.report()
    if instances is not None:
        summary.notes.append("Segmentations are not imported (boxes only); crowd annotations (iscrowd 1) are "
                             "skipped.")
    return summary
