"""Importing images: one file, a folder, a zip, or uploads. Bad files are reported, good ones kept."""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction

from common.safe_archives import ReadRefused, SafeZip, is_zip, open_file, read_capped
from mturk.jobs import send_after_commit

from ..models import Image
from .image_files import ImageInfo, ImageRejected, inspect_image


@dataclass(frozen=True)
class ImportProblem:
    name: str
    reason: str


@dataclass
class ImportReport:
    imported: list[Image] = field(default_factory=list)
    duplicates: list[Image] = field(default_factory=list)
    problems: list[ImportProblem] = field(default_factory=list)

    @property
    def images(self) -> list[Image]:
        """Every good image of the batch, new or already known, in batch order."""
        return self.imported + self.duplicates

    def merge(self, other: ImportReport) -> None:
        self.imported += other.imported
        self.duplicates += other.duplicates
        self.problems += other.problems

    def as_dict(self) -> dict:
        return {
            "imported": [{"id": i.pk, "name": i.original_name} for i in self.imported],
            "duplicates": [{"id": i.pk, "name": i.original_name} for i in self.duplicates],
            "problems": [{"name": p.name, "reason": p.reason} for p in self.problems],
        }


class ImportFailed(ValueError):
    """The batch as a whole cannot be read (missing path, not a zip...)."""


def key_for(name: str) -> str:
    """The default dataset key of an image: its file name without folders and extension."""
    return PurePosixPath(name.replace("\\", "/")).stem[:190] or "image"


def _free_key(wanted: str) -> str:
    taken = set(Image.objects.filter(key__startswith=wanted).values_list("key", flat=True))
    key, n = wanted, 2
    while key in taken:
        key, n = f"{wanted}-{n}", n + 1
    return key


def import_image_bytes(name: str, data: bytes, key: str | None = None,
                       info: ImageInfo | None = None) -> tuple[Image, bool]:
    """Store one image (deduplicated by content hash). Returns (image, created).

    The image's dataset key is `key` when given (it must be free), else the file name's stem made
    unique with a -2, -3... suffix. Raises ImageRejected with the reason when the bytes are not an
    acceptable image. `info`: what `inspect_image` already found for these bytes (it is not decoded again)."""
    digest = hashlib.sha256(data).hexdigest()
    existing = Image.objects.filter(sha256=digest).first()
    if existing is not None:
        return existing, False
    info = info or inspect_image(data)
    image = Image(
        key=key or _free_key(key_for(name)), sha256=digest, original_name=name[:255], format=info.format,
        width=info.width, height=info.height, file_size=len(data),
    )
    image.original.save(f"{digest[:2]}/{digest}.{info.extension}", ContentFile(data), save=False)
    try:
        with transaction.atomic():
            image.save()
    except IntegrityError:  # the same content imported concurrently, or the key was just taken
        existing = Image.objects.filter(sha256=digest).first()
        if existing is None or existing.original.name != image.original.name:
            image.original.delete(save=False)  # on S3 the same name is the same object: the other import's file
        if existing is not None:
            return existing, False
        if key:
            raise ImageRejected(f"the image key '{key}' is already used by another image") from None
        return import_image_bytes(name, data, info=info)
    from ..tasks import make_thumbnails

    send_after_commit(make_thumbnails, image.pk)
    return image, True


def import_named_files(files: Iterable[tuple[str, bytes]]) -> ImportReport:
    report = ImportReport()
    for name, data in files:
        try:
            image, created = import_image_bytes(name, data)
        except ImageRejected as exc:
            report.problems.append(ImportProblem(name, str(exc)))
            continue
        (report.imported if created else report.duplicates).append(image)
    return report


def _hidden(parts: Iterable[str]) -> bool:
    return any(part.startswith(".") or part == "__MACOSX" for part in parts)


def import_folder(path: Path) -> ImportReport:
    if not path.is_dir():
        raise ImportFailed(f"{path} is not a folder")
    report = ImportReport()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        name = str(file.relative_to(path))
        if _hidden(file.relative_to(path).parts):
            continue
        if file.stat().st_size > settings.IMAGE_MAX_BYTES:
            report.problems.append(ImportProblem(name, f"file is over the limit of {settings.IMAGE_MAX_BYTES} bytes"))
            continue
        report.merge(import_named_files([(name, read_file(file, name))]))
    return report


def read_file(path: Path, name: str | None = None) -> bytes:
    """A loose image file, at most IMAGE_MAX_BYTES (ReadRefused naming it otherwise)."""
    with open_file(path, name, settings.IMAGE_MAX_BYTES) as stream:
        return read_capped(stream, name or path.name, settings.IMAGE_MAX_BYTES)


def unsafe_member_reason(member_name: str) -> str | None:
    """Why a zip entry name is refused, or None when it stays inside the target folder."""
    if "\\" in member_name or member_name.startswith("/") or (len(member_name) > 1 and member_name[1] == ":"):
        return "entry has an absolute or Windows path; it would escape the target folder"
    if ".." in PurePosixPath(member_name).parts:
        return "entry escapes the target folder ('..' in its path); refused"
    return None


def _open_zip(source: Path | IO[bytes], label: str) -> SafeZip:
    try:
        return SafeZip(source, label)
    except ReadRefused as exc:
        raise ImportFailed(str(exc)) from None


def _file_entries(archive: SafeZip) -> list[str]:
    """The entries `zip_members` yields, in name order: files, hidden ones skipped (unsafe ones kept, to refuse)."""
    return [name for name in sorted(archive.names())
            if unsafe_member_reason(name) is not None or not _hidden(PurePosixPath(name).parts)]


def zip_member_count(source: Path | IO[bytes], label: str = "upload.zip") -> int:
    """How many entries `zip_members` yields for this zip."""
    with _open_zip(source, label) as archive:
        return len(_file_entries(archive))


def zip_members(source: Path | IO[bytes], label: str = "upload.zip") -> Iterator[tuple[str, bytes | str]]:
    """Each file entry of a zip, in name order: (name, its bytes) or (name, why it is refused). Hidden entries
    are skipped; raises ImportFailed when the zip cannot be read at all. Each entry is read through the safe
    reader (common/safe_archives.py): at most IMAGE_MAX_BYTES, the archive at most IMPORT_MAX_TOTAL_BYTES, its
    bytes counted as they come; a lying or corrupt entry is refused by name."""
    with _open_zip(source, label) as archive:
        for name in _file_entries(archive):
            reason = unsafe_member_reason(name)
            if reason is None and archive.size(name) > settings.IMAGE_MAX_BYTES:
                reason = f"file is over the limit of {settings.IMAGE_MAX_BYTES} bytes"
            if reason is not None:
                yield name, reason
                continue
            try:
                content: bytes | str = archive.read(name, settings.IMAGE_MAX_BYTES)
            except ReadRefused as exc:
                content = str(exc).removeprefix(f"{name}: ")
            yield name, content


def import_zip(source: Path | IO[bytes], label: str = "upload.zip",
               progress: Callable[[int, int], None] | None = None) -> ImportReport:
    """Every image of the zip; `progress(done, total)` is called after each entry when given."""
    report = ImportReport()
    total = zip_member_count(source, label) if progress is not None else 0
    for done, (name, content) in enumerate(zip_members(source, label), start=1):
        if isinstance(content, str):
            report.problems.append(ImportProblem(name, content))
        else:
            report.merge(import_named_files([(name, content)]))
        if progress is not None:
            progress(done, total)
    return report


def import_path(path: Path) -> ImportReport:
    """A folder, a zip file, or a single image file."""
    if path.is_dir():
        return import_folder(path)
    if not path.exists():
        raise ImportFailed(f"{path} does not exist")
    if is_zip(path):
        return import_zip(path, label=path.name)
    try:
        return import_named_files([(path.name, read_file(path))])
    except ReadRefused as exc:
        raise ImportFailed(str(exc)) from None


def upload_parts(upload: UploadedFile) -> tuple[str, IO[bytes]]:
    """An upload's name and open file (what a request's files always have)."""
    if upload.name is None or upload.file is None:
        raise ImportFailed(f"an uploaded file without {'a name' if upload.name is None else 'content'}")
    return upload.name, upload.file
