"""Reads of the console's Imports page: recent jobs and one job's progress."""
from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from ...importers import get_importer, importer_names
from ...models.imports import ImportJob

RECENT_JOBS = 20


def recent_import_jobs(limit: int = RECENT_JOBS) -> QuerySet[ImportJob]:
    """The latest jobs, newest first, with who started them (one query)."""
    return ImportJob.objects.select_related("created_by").order_by("-created_at", "-id")[:limit]


def importer_label(job: ImportJob) -> str:
    return get_importer(job.importer).label if job.importer in importer_names() else job.importer


def progress_unit(job: ImportJob) -> str:
    return get_importer(job.importer).progress_unit if job.importer in importer_names() else ""


def percent(job: ImportJob) -> int:
    if job.status == ImportJob.Status.DONE:
        return 100
    if not job.total:
        return 0
    return min(100, round(100 * job.done / job.total))


def report_counts(job: ImportJob) -> dict[str, int]:
    """How many files (or records) the job imported and refused, from its report."""
    report = job.report or {}
    return {"imported": len(report.get("imported", [])), "refused": len(report.get("refused", []))}


def import_status(job: ImportJob) -> dict[str, Any]:
    """What the status endpoint answers (and the page's script reads)."""
    finished = job.status in (ImportJob.Status.DONE, ImportJob.Status.FAILED)
    return {
        "id": job.pk,
        "importer": job.importer,
        "status": job.status,
        "done": job.done,
        "total": job.total,
        "unit": progress_unit(job),
        "percent": percent(job),
        "finished": finished,
        "error": job.error,
        "summary": (job.report or {}).get("summary", ""),
        **report_counts(job),
    }
