"""The gold page: gold and onboarding items per task kind (what each shows, how often it was used and scored),
switched on and off; and the review's "Use as gold" action. Imports go through the Imports page."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path, reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.http import require_GET, require_POST

from ..importers import all_importers
from ..models import Assignment, GoldItem
from ..models_quality import GoldPurpose
from ..quality import get_quality, quality_kind_names
from ..selectors_quality import gold_item_rows
from ..services.gold import GoldError, gold_from_assignment, set_gold_active
from ..task_kinds import get_task_kind, task_kind_names
from .access import researcher_required

PAGE_SIZE = 25
ACTIVE = {"yes": True, "no": False}
JSON_LIMIT = 300  # characters of compact JSON shown in a cell


@dataclass(frozen=True)
class GoldFilters:
    kind: str = ""
    purpose: str = ""
    active: str = ""  # "", "yes" or "no"
    item: int | None = None  # one gold item (linked from a review card)

    @classmethod
    def of(cls, query: QueryDict) -> GoldFilters:
        """The filters of a query string; an unknown value is no filter."""
        kind, purpose, active, item = (query.get(name, "") for name in ("kind", "purpose", "active", "item"))
        return cls(kind=kind if kind in task_kind_names() else "",
                   purpose=purpose if purpose in GoldPurpose.values else "",
                   active=active if active in ACTIVE else "",
                   item=int(item) if item.isascii() and item.isdigit() and 0 < int(item) < 2**31 else None)

    def query(self, page: int | None = None) -> str:
        values = {"kind": self.kind, "purpose": self.purpose, "active": self.active, "item": self.item, "page": page}
        return urlencode({name: value for name, value in values.items() if value})


def gold_items(filters: GoldFilters) -> QuerySet[GoldItem]:
    return gold_item_rows(task_kind=filters.kind, purpose=filters.purpose,
                          active=ACTIVE[filters.active] if filters.active else None, item=filters.item)


def compact_json(value: Any) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    return text if len(text) <= JSON_LIMIT else text[:JSON_LIMIT - 1] + "…"


def answer_text(task_kind: str, answer: Any) -> str:
    """An answer (or a known answer) as the task kind's summary writes it, where that reads it; else compact
    JSON."""
    try:
        text = get_task_kind(task_kind).summary(answer) if isinstance(answer, dict) else ""
    except (LookupError, TypeError, ValueError, AttributeError):  # a known answer in another shape than answers
        text = ""
    return text or compact_json(answer)


def kind_label(task_kind: str) -> str:
    try:
        return get_task_kind(task_kind).label
    except LookupError:
        return task_kind


def gold_formats() -> list[dict[str, str]]:
    """Per task kind with quality measures: its known answer's format and how answers are scored."""
    formats = []
    for name in quality_kind_names():
        quality = get_quality(name)
        formats.append({"name": name, "label": kind_label(name), "format": quality.gold_format,
                        "scoring": quality.gold_scoring})
    return formats


def gold_importer_anchor() -> str:
    """The Imports page, at the gold importer's form when there is one."""
    url = reverse("imports")
    names = [importer.name for importer in all_importers() if "gold" in importer.name]
    return f"{url}#import-{names[0]}-title" if names else url


@require_GET
@researcher_required
def gold_list(request: HttpRequest) -> HttpResponse:
    filters = GoldFilters.of(request.GET)
    page = Paginator(gold_items(filters), PAGE_SIZE).get_page(request.GET.get("page"))
    rows = [{"item": item, "kind": kind_label(item.task_kind), "shows": answer_text(item.task_kind, item.answer),
             "items": compact_json(item.items)} for item in page.object_list]
    kinds = sorted({*quality_kind_names(), *([filters.kind] if filters.kind else [])})
    context = {
        "page": page,
        "rows": rows,
        "filters": filters,
        "kinds": [(name, kind_label(name)) for name in kinds],
        "purposes": GoldPurpose.choices,
        "previous_query": filters.query(page.previous_page_number()) if page.has_previous() else "",
        "next_query": filters.query(page.next_page_number()) if page.has_next() else "",
        "formats": gold_formats(),
        "imports_url": gold_importer_anchor(),
    }
    return render(request, "mturk/gold/page.html", context)


@require_POST
@researcher_required
def gold_active(request: HttpRequest, pk: int) -> HttpResponse:
    """Switch a gold item on or off for new campaigns (POST active=1 or 0)."""
    item = get_object_or_404(GoldItem, pk=pk)
    wanted = request.POST.get("active", "")
    if wanted not in ("0", "1"):
        messages.error(request, f"Gold item {item.pk}: say active=1 or active=0.")
        return back(request, reverse("gold-page"))
    try:
        item = set_gold_active(item, wanted == "1")
    except GoldError as exc:
        messages.error(request, f"Gold item {item.pk} unchanged: {exc}")
    else:
        state = "active: mixed into new campaigns" if item.active else "inactive: no longer mixed into new campaigns"
        messages.success(request, f"Gold item {item.pk} is {state}.")
    return back(request, reverse("gold-page"))


@require_POST
@researcher_required
def use_as_gold(request: HttpRequest, assignment_pk: int) -> HttpResponse:
    """Make an approved answer a gold (or onboarding) item; a refusal is said and nothing is stored."""
    assignment = get_object_or_404(Assignment.objects.select_related("hit__campaign", "worker"), pk=assignment_pk)
    card = f"{reverse('campaign-review', args=[assignment.hit.campaign_id])}?assignment={assignment.pk}"
    purpose = request.POST.get("purpose", GoldPurpose.GOLD)
    if purpose not in GoldPurpose.values:
        messages.error(request, f"Assignment {assignment.pk}: the purpose is gold or onboarding, not {purpose!r}.")
        return back(request, card)
    made_before = GoldItem.objects.filter(source_assignment=assignment, purpose=purpose).exists()
    try:
        item = gold_from_assignment(assignment, purpose=purpose, user=request.user)
    except GoldError as exc:
        messages.error(request, f"Assignment {assignment.pk} was not made a {purpose} item: {exc}")
    else:
        done = "already was" if made_before else "is now"
        messages.success(request, f"The answer of assignment {assignment.pk} {done} {purpose} item {item.pk} "
                                  f"({item.task_kind}).")
    return back(request, card)


def back(request: HttpRequest, fallback: str) -> HttpResponse:
    """Back to the page the form was on (`next`, same site only), else `fallback`."""
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return redirect(target)
    return redirect(fallback)


urlpatterns: list[URLPattern] = [
    path("", gold_list, name="gold-page"),
    path("<int:pk>/active/", gold_active, name="gold-active"),
    path("from-assignment/<int:assignment_pk>/", use_as_gold, name="gold-from-assignment"),
]
