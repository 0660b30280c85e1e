"""A batch of uploaded images and zips (the API): every file is checked first; one bad file refuses the batch."""
from __future__ import annotations

from collections.abc import Iterator, Sequence

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from common.text_input import unstorable

from ..image_sets.services import SetSpec, file_images
from .image_files import ImageInfo, ImageRejected, inspect_image
from .images import ImportFailed, ImportProblem, ImportReport, import_image_bytes, upload_parts, zip_members


class BatchRefused(ValueError):
    """At least one file of the batch is bad; nothing was imported. `problems` names each bad file."""

    def __init__(self, problems: list[ImportProblem]):
        super().__init__(f"{len(problems)} file(s) of the batch refused; nothing was imported")
        self.problems = problems


def _members(files: Sequence[UploadedFile]) -> Iterator[tuple[str, bytes | str]]:
    """Every image of the batch, zips opened: (name, bytes) or (name, why it is refused)."""
    for upload in files:
        upload.seek(0)
        name, file = upload_parts(upload)
        if name.lower().endswith(".zip"):
            try:
                yield from zip_members(file, label=name)
            except ImportFailed as exc:
                yield name, str(exc)
        elif upload.size is not None and upload.size > settings.IMAGE_MAX_BYTES:
            yield name, f"file is over the limit of {settings.IMAGE_MAX_BYTES} bytes"
        else:
            yield name, upload.read()


def _inspect(name: str, content: bytes | str) -> ImageInfo | ImportProblem:
    if isinstance(content, str):
        return ImportProblem(name, content)
    unusable = unstorable(name)
    if unusable:
        return ImportProblem(name, f"the file name holds {unusable}")
    try:
        return inspect_image(content)
    except ImageRejected as exc:
        return ImportProblem(name, str(exc))


def import_batch(files: Sequence[UploadedFile], image_set: SetSpec | None = None) -> ImportReport:
    """Import every image of the batch, or none: raises BatchRefused listing each bad file (with zip entries).
    Every image of the batch (new or already known) lands in `image_set` when given.

    The files are read twice (checked, then stored) rather than held in memory, but each image is decoded once."""
    checked = [_inspect(name, content) for name, content in _members(files)]
    problems = [found for found in checked if isinstance(found, ImportProblem)]
    if problems:
        raise BatchRefused(problems)
    infos = [found for found in checked if isinstance(found, ImageInfo)]
    report = ImportReport()
    with transaction.atomic():
        for (name, content), info in zip(_members(files), infos, strict=True):
            if isinstance(content, str):  # the files changed between the two reads
                raise BatchRefused([ImportProblem(name, content)])
            image, created = import_image_bytes(name, content, info=info)
            (report.imported if created else report.duplicates).append(image)
        if image_set is not None and report.images:  # no collection made for an empty batch
            file_images(image_set, [image.pk for image in report.images])
    return report
