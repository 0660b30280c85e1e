"""The exports page: request an export with its options, watch it being built, download it, read its reports."""
from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path, reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods

from metrics.html.page import with_back_link

from ..card_html import card_html
from ..exports import ExportError
from ..models import Campaign, DatasetExport
from ..selectors_exports import CARD, exports_for_page, progress_of, read_report, report_names
from ..services.exports import request_export
from .access import researcher_required
from .exports_form import ExportRequestForm

PAGE_SIZE = 25
# The reports are generated from crowd text (escaped when written); served with no script, no fetch, no form,
# no outside resource, in a sandbox: inline styles and the inline SVG plots are all they need.
REPORT_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; "
              "frame-ancestors 'self'; sandbox")
# The dataset card in the console's layout: its own stylesheets, no script at all (the card is sanitised too).
CARD_CSP = ("default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; "
            "frame-ancestors 'self'")


@require_http_methods(["GET", "POST"])
@researcher_required
def index(request: HttpRequest) -> HttpResponse:
    """The exports and the request form; `?campaign=<id>` (a campaign page's Export button) ticks that campaign
    and offers only the formats of its task kind."""
    campaign = _campaign_of(request.GET.get("campaign"))
    form = ExportRequestForm(request.POST if request.method == "POST" else None, user=request.user,
                             campaign=campaign)
    if request.method == "POST" and form.is_valid():
        try:
            export = request_export(form.cleaned_data["format"], form.chosen_campaigns(), request.user,
                                    form.chosen_options())
        except ExportError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Export #{export.pk} ({export.format}) requested.")
            return redirect("exports")
    page = Paginator(exports_for_page(), PAGE_SIZE).get_page(request.GET.get("page"))
    rows = [(export, progress_of(export), report_names(export)) for export in page]
    status = 400 if request.method == "POST" else 200
    return render(request, "mturk/exports.html", {"form": form, "page": page, "rows": rows, "campaign": campaign},
                  status=status)


def _campaign_of(value: str | None) -> Campaign | None:
    return Campaign.objects.filter(pk=int(value)).first() if value and value.isdigit() else None


def _links(export: DatasetExport, reports: list[str]) -> dict[str, Any]:
    if export.status != DatasetExport.Status.DONE:
        return {"download_url": None, "reports": []}
    return {
        "download_url": reverse("export-download", args=[export.pk]),
        "reports": [{"name": name, "url": reverse("export-report", args=[export.pk, name])} for name in reports],
    }


@require_GET
@researcher_required
def status(request: HttpRequest, pk: int) -> JsonResponse:
    export = get_object_or_404(DatasetExport, pk=pk)
    progress = progress_of(export)
    return JsonResponse({
        "id": export.pk, "status": export.status, "status_label": export.get_status_display(),
        "done": progress.done, "total": progress.total, "percent": progress.percent, "records": export.records,
        "error": export.error, **_links(export, report_names(export)),
    })


@require_GET
@researcher_required
def report(request: HttpRequest, pk: int, name: str) -> HttpResponse:
    export = get_object_or_404(DatasetExport, pk=pk)
    content = read_report(export, name)
    if content is None:
        raise Http404("no such report in this export")
    if name == CARD:
        response = render(request, "mturk/export_card.html", {
            "export": export, "card": mark_safe(card_html(content.decode("utf-8"))),  # noqa: S308 (sanitised)
            "campaigns": list(export.campaigns.order_by("name"))})
        response["Content-Security-Policy"] = CARD_CSP
    else:
        kind = "text/html" if name.endswith(".html") else "application/json" if name.endswith(".json") else "text/plain"
        if kind == "text/html" and request.headers.get("Sec-Fetch-Dest") != "iframe":
            content = with_back_link(content.decode("utf-8"), reverse("exports"), "Exports").encode("utf-8")
        response = HttpResponse(content, content_type=f"{kind}; charset=utf-8")
        response["Content-Security-Policy"] = REPORT_CSP
    response["X-Content-Type-Options"] = "nosniff"
    return response


urlpatterns: list[URLPattern] = [
    path("", index, name="exports"),
    path("<int:pk>/status/", status, name="export-status"),
    path("<int:pk>/report/<str:name>", report, name="export-report"),
]
