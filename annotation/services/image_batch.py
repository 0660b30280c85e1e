"""A batch of uploaded images and zips (the API): every file is checked first; one bad file refuses the batch."""
from __future__ import annotations

from collections.abc import Iterator, Sequence

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from config.text_input import unstorable

from .image_files import ImageRejected, inspect_image
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


def _problem(name: str, content: bytes | str) -> ImportProblem | None:
    if isinstance(content, str):
        return ImportProblem(name, content)
    unusable = unstorable(name)
    if unusable:
        return ImportProblem(name, f"the file name holds {unusable}")
    try:
        inspect_image(content)
    except ImageRejected as exc:
        return ImportProblem(name, str(exc))
    return None


def import_batch(files: Sequence[UploadedFile]) -> ImportReport:
    """Import every image of the batch, or none: raises BatchRefused listing each bad file (with zip entries)."""
    problems = [problem for name, content in _members(files) if (problem := _problem(name, content))]
    if problems:
        raise BatchRefused(problems)
    report = ImportReport()
    with transaction.atomic():
        for name, content in _members(files):
            try:
                image, created = import_image_bytes(name, content)  # type: ignore[arg-type]  # checked above
            except ImageRejected as exc:
                raise BatchRefused([ImportProblem(name, str(exc))]) from None
            (report.imported if created else report.duplicates).append(image)
    return report
