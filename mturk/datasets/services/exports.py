"""Export jobs: requested through the API, built by a background job, downloaded when done."""
from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Callable
from typing import Any

from django.core.files import File
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import get_random_string

from ...jobs import claim, dispatch, finish, lease
from ...models import Campaign, DatasetExport
from ..formats import ExportError, check_scope, write_export

log = logging.getLogger(__name__)

# The build writes its progress to the row at most this often (the page polls it), not at every step.
PROGRESS_INTERVAL_SECONDS = 0.3


class ProgressRecorder:
    """Stores an export's progress on its row: the first report, then at most one per interval, and the last
    step (done == total) always."""

    def __init__(self, export_pk: int, interval: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.export_pk, self.clock = export_pk, clock
        self.interval = PROGRESS_INTERVAL_SECONDS if interval is None else interval
        self._last: float | None = None

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        if self._last is not None and now - self._last < self.interval and done < total:
            return
        self._last = now
        DatasetExport.objects.filter(pk=self.export_pk).update(
            progress_done=done, progress_total=total, heartbeat_at=timezone.now())


def request_export(format_name: str, campaigns: list[Campaign], user=None,
                   options: dict[str, Any] | None = None) -> DatasetExport:
    """Store the request, then hand it to a background job once the request is committed."""
    check_scope(format_name, campaigns, options)
    with transaction.atomic():
        export = DatasetExport.objects.create(format=format_name, created_by=user, options=options or {})
        export.campaigns.set(campaigns)
    dispatch(export)
    return export


def build_export(export: DatasetExport) -> DatasetExport:
    """Write the zip to a temporary file, then store it; a re-run (a dead worker's job taken up again) starts over
    cleanly. A job done, failed or running under another run's live lease is left as it is."""
    if not claim(export, progress_done=0, progress_total=None):
        return export
    with lease(export):
        return _build(export)


def _build(export: DatasetExport) -> DatasetExport:
    campaigns = list(export.campaigns.all())
    stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
    name = f"{export.format}-{stamp}-{get_random_string(8).lower()}.zip"
    try:
        with tempfile.TemporaryFile() as target:
            result = write_export(export.format, target, campaigns, export.options, ProgressRecorder(export.pk))
            target.seek(0)
            export.file.save(name, File(target), save=False)
    except ExportError as exc:
        return _failed(export, str(exc))
    except Exception as exc:
        log.exception("export %s failed", export.pk)
        _failed(export, f"{type(exc).__name__}: {exc}")
        raise
    export.refresh_from_db(fields=["progress_done", "progress_total"])
    export.records, export.counts = result.records, result.counts
    export.status, export.finished_at = DatasetExport.Status.DONE, timezone.now()
    finish(export, ["file", "records", "counts", "status", "finished_at"])
    return export


def _failed(export: DatasetExport, message: str) -> DatasetExport:
    export.status, export.error, export.finished_at = DatasetExport.Status.FAILED, message, timezone.now()
    finish(export, ["status", "error", "finished_at"])
    return export
