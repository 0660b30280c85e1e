"""Import jobs: a researcher's upload is stored first, then read by a background job through its importer.

`request_import` checks the upload (importer, file type, size, options) before storing anything (several files for
an importer that keeps the good ones: refused only when every file is bad, else the importer names each bad one),
stores the file (default storage: local disk or S3), creates the job and hands it to a Celery task once committed.
`run_import` copies the stored file to a local temporary file, runs the importer with a progress callback
(written to the job at most a few times a second) and stores the report; a re-run (a killed worker's job
redelivered) starts over from the stored file."""
from __future__ import annotations

import shutil
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterable
from contextlib import closing
from pathlib import Path, PurePosixPath
from typing import Any

from django.conf import settings
from django.core.files import File
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import get_random_string

from common.text_input import unstorable

from ...importers import Importer, ImportProblems, ImportRefused, get_importer
from ...jobs import Run, dispatch, running
from ...models.imports import ImportJob
from ..stored_files import open_stream

# Least time between two progress writes of a running job.
PROGRESS_INTERVAL_SECONDS = 0.25


def clean_options(importer: Importer, raw: dict[str, str], file_name: str) -> dict[str, Any]:
    """The importer's options from the form: unknown ones refused, required ones present, choices valid."""
    unknown = sorted(set(raw) - {option.name for option in importer.options})
    if unknown:
        raise ImportRefused(f"the {importer.label} import has no option {', '.join(unknown)}")
    cleaned: dict[str, str] = {}
    for option in importer.options:
        value = (raw.get(option.name) or "").strip()
        if not value:
            if option.required:
                raise ImportRefused(f"{option.label}: this field is required")
            continue
        problem = unstorable(value)
        if problem:
            raise ImportRefused(f"{option.label}: the value holds {problem}")
        if len(value) > option.max_length:
            raise ImportRefused(f"{option.label}: at most {option.max_length} characters")
        if option.choices is not None and value not in {choice for choice, _label in option.choices()}:
            raise ImportRefused(f"{option.label}: '{value}' is not one of the choices")
        cleaned[option.name] = value
    if importer.check_options is not None:
        return importer.check_options(cleaned, file_name)
    return dict(cleaned)


def _upload_name(upload: UploadedFile) -> str:
    name = PurePosixPath((upload.name or "").replace("\\", "/")).name
    if not name:
        raise ImportRefused("an uploaded file has no name")
    problem = unstorable(name)
    if problem:
        raise ImportRefused(f"the file name {name!r} holds {problem}")
    return name[:255]


def _upload_problem(importer: Importer, name: str, upload: UploadedFile, several: bool) -> str | None:
    """Why one upload cannot be imported as it is, or None."""
    if not importer.accepts(name):
        return f"not an accepted file type (accepted: {', '.join(importer.extensions)})"
    if several and name.lower().endswith(".zip"):
        return "a zip is imported on its own, not together with other files"
    limit = importer.max_bytes(name)
    if upload.size is None or upload.size > limit:
        return f"the file is {upload.size} bytes, over the limit of {limit} bytes"
    if upload.size == 0:
        return "the file is empty"
    return None


def check_uploads(importer: Importer, uploads: list[UploadedFile]) -> list[tuple[str, UploadedFile]]:
    """Each upload's name, once every one has an accepted type and size; else ImportRefused naming each bad file.

    Several files for an importer that keeps the good ones (`Importer.keeps_good`): every file is kept, the bad ones
    too, and the importer refuses each bad one by name with its reason as it does a zip's entries; the upload is
    refused (naming every file) only when none of its files can be imported."""
    if not uploads:
        raise ImportRefused("choose a file to import")
    several = len(uploads) > 1
    if several and not importer.multiple:
        raise ImportRefused(f"the {importer.label} import takes one file")
    named, problems = [], []
    for upload in uploads:
        name = _upload_name(upload)
        problem = _upload_problem(importer, name, upload, several)
        if problem is not None:
            problems.append(f"{name}: {problem}")
        named.append((name, upload))
    if problems and (not (several and importer.keeps_good) or len(problems) == len(named)):
        raise ImportRefused(problems[0] if len(problems) == 1 else
                            f"nothing was imported, no file can be: {'; '.join(problems)}")
    if several:
        total = sum(upload.size or 0 for _name, upload in named)
        if total > settings.IMPORT_MAX_TOTAL_BYTES:
            raise ImportRefused(f"the {len(named)} files are {total} bytes together, over the limit of "
                                f"{settings.IMPORT_MAX_TOTAL_BYTES} bytes")
    return named


def _pack(named: Iterable[tuple[str, UploadedFile]], target: Any) -> None:
    """Several uploaded files as one zip (stored, not compressed: images are compressed already)."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        used: set[str] = set()
        for name, upload in named:
            entry, n = name, 2
            while entry in used:  # two uploads with one name: keep both
                entry, n = f"{PurePosixPath(name).stem}-{n}{PurePosixPath(name).suffix}", n + 1
            used.add(entry)
            upload.seek(0)
            with archive.open(entry, "w", force_zip64=True) as member:
                shutil.copyfileobj(upload, member, 1024 * 1024)


def request_import(importer_name: str, uploads: list[UploadedFile], options: dict[str, str] | None = None,
                   user: Any = None) -> ImportJob:
    """Check the upload, store it, create the job and queue it once committed. ImportRefused: nothing stored."""
    importer = get_importer(importer_name)
    named = check_uploads(importer, uploads)
    original_name = named[0][0] if len(named) == 1 else f"{len(named)} files"
    cleaned = clean_options(importer, options or {}, named[0][0])
    stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
    suffix = PurePosixPath(named[0][0]).suffix.lower() if len(named) == 1 else ".zip"
    stored_name = f"{importer.name}-{stamp}-{get_random_string(8).lower()}{suffix}"
    job = ImportJob(importer=importer.name, original_name=original_name, options=cleaned, created_by=user)
    with tempfile.TemporaryFile() as packed:
        if len(named) == 1:
            source: Any = named[0][1]
            source.seek(0)
        else:
            _pack(named, packed)
            packed.seek(0)
            source = packed
        job.file.save(stored_name, File(source), save=False)
    try:
        with transaction.atomic():
            job.save()
    except BaseException:
        job.file.delete(save=False)
        raise
    dispatch(job)
    return job


class _ProgressWriter:
    """The job's progress callback: writes done/total at most every PROGRESS_INTERVAL_SECONDS (and the end)."""

    def __init__(self, job: ImportJob, clock: Callable[[], float] = time.monotonic) -> None:
        self.job = job
        self.clock = clock
        self.last: float | None = None

    def __call__(self, done: int, total: int | None) -> None:
        now = self.clock()
        self.job.done, self.job.total = done, total  # the job's end writes the latest, written here or not
        finished = total is not None and done >= total
        if not finished and self.last is not None and now - self.last < PROGRESS_INTERVAL_SECONDS:
            return
        self.last = now
        ImportJob.objects.filter(pk=self.job.pk).update(
            done=done, total=total, heartbeat_at=timezone.now())


def _local_name(job: ImportJob) -> str:
    """The local copy's name: the uploaded file's own (reports and messages name it), else upload.<suffix>."""
    suffix = PurePosixPath(job.file.name).suffix.lower()
    name = job.original_name
    if name.lower().endswith(suffix) and PurePosixPath(name).name == name and "\\" not in name and name.strip("."):
        return name
    return f"upload{suffix}"


def run_import(job: ImportJob) -> ImportJob:
    """Run the job's importer on a local copy of its file and store the report (or a clear error)."""
    with running(job, error_prefix="the import stopped on an unexpected error: ", done=0, total=None,
                 report={}) as run:
        if run is not None:  # else done, failed, or running under another run's live lease
            run.keep("report", "done", "total")  # the progress as the importer last reported it
            _run(job, run)
    return job


def _run(job: ImportJob, run: Run) -> None:
    importer = get_importer(job.importer)
    try:
        with tempfile.TemporaryDirectory() as folder:
            local = Path(folder) / _local_name(job)
            source, _size = open_stream(job.file.name)
            with closing(source), local.open("wb") as target:
                shutil.copyfileobj(source, target, 1024 * 1024)
            report = importer.run(local, dict(job.options), _ProgressWriter(job))
    except ImportProblems as exc:
        refused = [{"name": name, "reason": reason} for name, reason in exc.problems]
        run.failed(str(exc), report={"summary": str(exc), "refused": refused})
        return
    except ImportRefused as exc:
        run.failed(str(exc))
        return
    if job.total is not None:
        job.done = job.total
    run.done(report=report)
