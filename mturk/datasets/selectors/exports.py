"""Reads for the exports page: the list of exports and the reports inside a built export's zip."""
from __future__ import annotations

import io
import zipfile
from contextlib import closing
from dataclasses import dataclass
from typing import IO, Any

from django.core.cache import cache
from django.core.files.storage import default_storage
from django.db.models import Case, Prefetch, QuerySet, Value, When
from storages.backends.s3 import S3File

from ...models import Campaign, DatasetExport
from ..formats import ExportFormat, format_names, get_format

CARD = "README.md"  # the dataset card, shown with the reports
REPORT_FOLDER = "report/"
REPORTS_CACHE_SECONDS = 24 * 3600  # a built zip never changes: its list of reports can be kept


@dataclass(frozen=True)
class ExportProgress:
    status: str
    done: int
    total: int | None

    @property
    def percent(self) -> int:
        if self.status == DatasetExport.Status.DONE:
            return 100
        if not self.total:
            return 0
        return min(100, self.done * 100 // self.total)


def exports_for_page() -> QuerySet[DatasetExport]:
    """Newest first, with their campaigns (one query for all rows) and who asked for them."""
    campaigns = Prefetch("campaigns", queryset=Campaign.objects.order_by("name"))
    return DatasetExport.objects.select_related("created_by").prefetch_related(campaigns).order_by(
        "-created_at", "-id")


def export_campaign_choices(user: Any = None) -> list[Campaign]:
    """The campaigns the exports page offers: real ones before simulated ones, the user's own first, then newest
    first (one query)."""
    own = Case(When(created_by=user, then=Value(0)), default=Value(1)) if user is not None and user.pk else Value(1)
    return list(Campaign.objects.annotate(own=own).order_by("is_simulated", "own", "-created_at", "-id"))


def real_campaigns_for(export_format: ExportFormat) -> list[Campaign]:
    """Every campaign whose results were collected (not simulated) that the format exports, by name."""
    campaigns = Campaign.objects.filter(is_simulated=False)
    if export_format.kinds:
        campaigns = campaigns.filter(task_kind__in=export_format.kinds)
    return list(campaigns.order_by("name"))


def progress_of(export: DatasetExport) -> ExportProgress:
    return ExportProgress(export.status, export.progress_done, export.progress_total)


def registered_formats() -> list[ExportFormat]:
    return [get_format(name) for name in format_names()]


class _RangeReader(io.RawIOBase):
    """A seekable view of an S3 object that fetches only the byte ranges read (a zip's directory and one
    member), never the whole object."""

    def __init__(self, obj: Any, size: int) -> None:
        self._obj, self._size, self._position = obj, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer: Any) -> int:
        if self._position >= self._size or not len(buffer):
            return 0
        end = min(self._position + len(buffer), self._size) - 1
        data = self._obj.get(Range=f"bytes={self._position}-{end}")["Body"].read()
        buffer[:len(data)] = data
        self._position += len(data)
        return len(data)


def _open_seekable(name: str) -> IO[bytes]:
    handle = default_storage.open(name, "rb")
    if isinstance(handle, S3File):  # django-storages' own file object would download the whole zip first
        return io.BufferedReader(_RangeReader(handle.obj, handle.obj.content_length), 1 << 16)
    return handle


def _is_report(name: str) -> bool:
    return name == CARD or (name.startswith(REPORT_FOLDER) and "/" not in name[len(REPORT_FOLDER):]
                            and name != REPORT_FOLDER)


def report_names(export: DatasetExport) -> list[str]:
    """The reports a built export carries: the files under report/ (by name) and README.md, if present."""
    if export.status != DatasetExport.Status.DONE or not export.file:
        return []
    key = f"export-reports:{export.file.name}"
    names = cache.get(key)
    if names is None:
        with closing(_open_seekable(export.file.name)) as handle, zipfile.ZipFile(handle) as archive:
            members = [name for name in archive.namelist() if _is_report(name)]
        names = sorted(name.removeprefix(REPORT_FOLDER) for name in members)
        cache.set(key, names, REPORTS_CACHE_SECONDS)
    return names


def read_report(export: DatasetExport, name: str) -> bytes | None:
    """A report's bytes from the export's zip, or None when the zip has no such report."""
    if name not in report_names(export):
        return None
    member = name if name == CARD else REPORT_FOLDER + name
    with closing(_open_seekable(export.file.name)) as handle, zipfile.ZipFile(handle) as archive:
        return archive.read(member)
