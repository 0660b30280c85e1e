"""Export jobs: requested through the API, built by a background job, downloaded when done."""
from __future__ import annotations

import logging
import tempfile
from typing import Any

from django.core.files import File
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import get_random_string

from ..exports import ExportError, check_scope, write_export
from ..models import Campaign, DatasetExport

log = logging.getLogger(__name__)


def request_export(format_name: str, campaigns: list[Campaign], user=None,
                   options: dict[str, Any] | None = None) -> DatasetExport:
    """Store the request, then hand it to a background job once the request is committed."""
    check_scope(format_name, campaigns, options)
    with transaction.atomic():
        export = DatasetExport.objects.create(format=format_name, created_by=user, options=options or {})
        export.campaigns.set(campaigns)
    from ..tasks import build_dataset_export

    transaction.on_commit(lambda: build_dataset_export.delay(export.pk))
    return export


def build_export(export: DatasetExport) -> DatasetExport:
    """Write the zip to a temporary file, then store it; a re-run (killed job) starts over cleanly."""
    claimed = DatasetExport.objects.filter(
        pk=export.pk, status__in=[DatasetExport.Status.QUEUED, DatasetExport.Status.RUNNING]
    ).update(status=DatasetExport.Status.RUNNING)
    export.refresh_from_db()
    if not claimed:
        return export
    campaigns = list(export.campaigns.all())
    stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
    name = f"{export.format}-{stamp}-{get_random_string(8).lower()}.zip"
    try:
        with tempfile.TemporaryFile() as target:
            result = write_export(export.format, target, campaigns, export.options)
            target.seek(0)
            export.file.save(name, File(target), save=False)
    except ExportError as exc:
        return _failed(export, str(exc))
    except Exception as exc:
        log.exception("export %s failed", export.pk)
        _failed(export, f"{type(exc).__name__}: {exc}")
        raise
    export.records, export.counts = result.records, result.counts
    export.status, export.finished_at = DatasetExport.Status.DONE, timezone.now()
    export.save(update_fields=["file", "records", "counts", "status", "finished_at"])
    return export


def _failed(export: DatasetExport, message: str) -> DatasetExport:
    export.status, export.error, export.finished_at = DatasetExport.Status.FAILED, message, timezone.now()
    export.save(update_fields=["status", "error", "finished_at"])
    return export
