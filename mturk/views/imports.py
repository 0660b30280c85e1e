"""The console's Imports page: upload images, albums, a vocabulary or a dataset; watch the job; read its report.

Plain form posts work without JavaScript (the job page refreshes itself while the job runs); with it,
static/js/console_imports.js uploads with a progress bar and the job page polls the status endpoint."""
from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFilesSent
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_GET, require_http_methods

from ..importers import Importer, ImportRefused, all_importers
from ..models_imports import ImportJob
from ..selectors_imports import import_status, importer_label, percent, recent_import_jobs, report_counts
from ..services.imports import request_import
from .access import researcher_required

REPORT_ROWS = 500  # imported files listed on the job page (every refused file is listed)


def _wants_json(request: HttpRequest) -> bool:
    return request.headers.get("X-Requested-With") == "XMLHttpRequest"


def _forms(importers: list[Importer], errors: dict[str, str], posted: Any) -> list[dict[str, Any]]:
    """One form per importer, with its error and the option values posted with it (after a refusal)."""
    forms = []
    for importer in importers:
        options = [
            {"option": option, "field": f"{importer.name}-{option.name}",
             "value": posted.get(f"{importer.name}-{option.name}", "") if posted.get("importer") == importer.name
             else "", "choices": option.choices() if option.choices else None}
            for option in importer.options
        ]
        forms.append({"importer": importer, "accept": ",".join(importer.extensions), "options": options,
                      "zip_only": importer.extensions == (".zip",),
                      "error": errors.get(importer.name, "")})
    return forms


def _index_page(request: HttpRequest, errors: dict[str, str] | None = None, status: int = 200) -> HttpResponse:
    errors = errors or {}
    importers = all_importers()
    jobs = [
        {"job": job, "label": importer_label(job), "percent": percent(job), **report_counts(job)}
        for job in recent_import_jobs()
    ]
    known = {importer.name for importer in importers}
    context = {"forms": _forms(importers, errors, request.POST if request.method == "POST" else {}), "jobs": jobs,
               "max_file_bytes": settings.IMAGE_MAX_BYTES, "max_zip_bytes": settings.IMPORT_MAX_TOTAL_BYTES,
               "max_files": settings.DATA_UPLOAD_MAX_NUMBER_FILES,
               "error": next((message for name, message in errors.items() if name not in known), "")}
    return render(request, "mturk/imports/index.html", context, status=status)


@require_http_methods(["GET", "POST"])
@researcher_required
def index(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return _index_page(request)
    importer_name = ""
    try:
        importer_name = request.POST.get("importer", "")
        uploads = request.FILES.getlist("files")
        prefix = f"{importer_name}-"
        options = {key[len(prefix):]: request.POST.get(key, "") for key in request.POST if key.startswith(prefix)}
        job = request_import(importer_name, uploads, options, user=request.user)
    except TooManyFilesSent:
        message = "Too many files in one upload: put them in a zip and import the zip."
        return _refused(request, importer_name, message)
    except RequestDataTooBig:
        return _refused(request, importer_name, "The form is too large.")
    except ImportRefused as exc:
        return _refused(request, importer_name, str(exc))
    page = reverse("import-job", args=[job.pk])
    if _wants_json(request):
        return JsonResponse({"id": job.pk, "page": page, "status": reverse("import-status", args=[job.pk])},
                            status=201)
    return redirect(page)


def _refused(request: HttpRequest, importer_name: str, message: str) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse({"error": message}, status=400)
    return _index_page(request, errors={importer_name: message}, status=400)


@require_GET
@researcher_required
def job_page(request: HttpRequest, pk: int) -> HttpResponse:
    job = get_object_or_404(ImportJob.objects.select_related("created_by"), pk=pk)
    report = job.report or {}
    imported = report.get("imported", [])
    context = {
        "job": job, "label": importer_label(job), "status": import_status(job), "report": report,
        "imported": imported[:REPORT_ROWS], "imported_more": max(0, len(imported) - REPORT_ROWS),
        "counts": report.get("counts", {}),
    }
    return render(request, "mturk/imports/job.html", context)


@require_GET
@researcher_required
def job_status(request: HttpRequest, pk: int) -> JsonResponse:
    return JsonResponse(import_status(get_object_or_404(ImportJob, pk=pk)))


urlpatterns: list[URLPattern] = [
    path("", index, name="imports"),
    path("<int:pk>/", job_page, name="import-job"),
    path("<int:pk>/status/", job_status, name="import-status"),
]
