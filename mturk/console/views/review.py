"""The visual review of a campaign's assignments: each answer drawn by its task kind, filters, a selection
approved or rejected at once, keyboard shortcuts (static/js/review.js); bonus and block reuse the
researcher's endpoints. A card shows the answer's gold score and agreement when measured, and offers an
approved answer as a gold item (views.gold_page)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, render
from django.urls import URLPattern, path, reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.http import require_GET, require_POST

from ...measures import has_quality
from ...models import Campaign
from ...providers.registry import get_provider
from ...selectors.review import ANY_FLAG, NO_FLAG, campaign_flags, gold_made_from, review_assignments, review_counts
from ...services.review import ReviewError
from ...services.review_bulk import ACTIONS, review_selection
from ...states import AssignmentStatus
from ...task_kinds import TaskKind, get_task_kind
from ...views import campaign_confirm
from ...views.access import back_to_form_page, researcher_required
from ...views.campaign_confirm import render_confirmation

PAGE_SIZES = (10, 20, 50, 100)
DEFAULT_PAGE_SIZE = 20
LAYOUTS = {"list": "List, large images", "grid": "Grid, thumbnails"}


@dataclass(frozen=True)
class ReviewFilters:
    status: str = ""
    flag: str = ""
    per_page: int = DEFAULT_PAGE_SIZE
    layout: str = "list"
    worker: int | None = None  # one worker's answers (from the worker page)
    assignment: int | None = None  # one answer's card (from the worker and gold pages)
    hit: int | None = None  # the answers to one HIT (from the quality page's items)

    @classmethod
    def of(cls, query: QueryDict) -> ReviewFilters:
        """The filters of a query string; an unknown value falls back to its default."""
        status = query.get("status", "")
        per_page = query.get("per_page", "")
        layout = query.get("layout", "")
        return cls(
            status=status if status in AssignmentStatus.values else "",
            flag=query.get("flag", "").strip()[:100],
            per_page=int(per_page) if per_page.isdigit() and int(per_page) in PAGE_SIZES else DEFAULT_PAGE_SIZE,
            layout=layout if layout in LAYOUTS else "list",
            worker=_id(query.get("worker", "")),
            assignment=_id(query.get("assignment", "")),
            hit=_id(query.get("hit", "")),
        )

    def query(self, page: int | None = None) -> str:
        """The query string of these filters (and a page), without the defaults."""
        values: dict[str, str | int | None] = {"status": self.status, "flag": self.flag, "per_page": self.per_page,
                                               "layout": self.layout, "worker": self.worker,
                                               "assignment": self.assignment, "hit": self.hit, "page": page}
        defaults = {"per_page": DEFAULT_PAGE_SIZE, "layout": "list"}
        return urlencode({k: v for k, v in values.items() if v is not None and v != "" and defaults.get(k) != v})


def _id(value: str) -> int | None:
    """A positive id of a query string, else None (an unknown value is no filter)."""
    return int(value) if value.isascii() and value.isdigit() and 0 < int(value) < 2**31 else None


def campaign_section(request: HttpRequest, campaign: Campaign, kind: TaskKind) -> dict[str, Any]:
    """Context of mturk/campaign/assignments.html: counts per status and the way to the review page."""
    counts = review_counts(campaign)
    return {"review_counts": [(value, label, counts[value]) for value, label in AssignmentStatus.choices
                              if counts.get(value)],
            "review_flagged": counts["flagged"], "review_total": sum(counts.get(v, 0) for v in AssignmentStatus.values)}


@require_GET
@researcher_required
def review_page(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    kind = get_task_kind(campaign.task_kind)
    filters = ReviewFilters.of(request.GET)
    page = Paginator(review_assignments(campaign, filters.status or None, filters.flag or None, filters.worker,
                                        filters.assignment, filters.hit),
                     filters.per_page).get_page(request.GET.get("page"))
    assignments = list(page.object_list)
    can_gold = has_quality(campaign.task_kind)
    # "Use as gold" is offered on approved answers of real HITs; one query says which already made a gold item
    offered = [a.pk for a in assignments if a.status == AssignmentStatus.APPROVED and a.hit.gold_item_id is None]
    made_gold = gold_made_from(offered) if can_gold and offered else {}
    payloads = kind.build_payloads(campaign, list({a.hit_id: a.hit for a in assignments}.values()))
    reviews = kind.review_context(campaign, assignments, payloads) if assignments else {}
    provider = get_provider(campaign.provider)
    context = {
        "campaign": campaign,
        "kind": kind,
        "page": page,
        "cards": [(a, reviews.get(a.pk, {}), made_gold.get(a.pk)) for a in assignments],
        "can_gold": can_gold,
        "filters": filters,
        "layout": filters.layout,
        "previous_query": filters.query(page.previous_page_number()) if page.has_previous() else "",
        "next_query": filters.query(page.next_page_number()) if page.has_next() else "",
        "statuses": AssignmentStatus.choices,
        "flags": campaign_flags(campaign),
        "any_flag": ANY_FLAG,
        "no_flag": NO_FLAG,
        "page_sizes": PAGE_SIZES,
        "layouts": LAYOUTS.items(),
        "rejection_categories": provider.rejection_categories,
        "min_feedback": provider.min_rejection_feedback,
    }
    return render(request, "mturk/review/page.html", context)


@require_POST
@researcher_required
def review_bulk(request: HttpRequest, pk: int) -> HttpResponse:
    """Approve or reject the selected assignments; each refused one is reported and left unchanged. Without
    `confirmed`, the confirmation step (a page, or the in-page dialog of static/js/confirm.js): how many, how
    many of them the checks flagged and by which check, and (approving) the ticked box that leaves those out."""
    campaign = get_object_or_404(Campaign, pk=pk)
    ids = [int(v) for v in request.POST.getlist("assignment") if v.isascii() and v.isdigit()]
    action = request.POST.get("action", "")
    if not ids:
        messages.error(request, "Select at least one assignment first.")
        return back_to_form_page(request, pk)
    if action not in ACTIONS:
        messages.error(request, "Unknown review action.")
        return back_to_form_page(request, pk)
    feedback, category = request.POST.get("feedback", ""), request.POST.get("category", "")
    if request.POST.get("confirmed") != "1":  # first the step: how many, flagged by which check (no write)
        back = request.POST.get("next", "")
        if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
            back = reverse("campaign-review", args=[pk])
        return render_confirmation(request, campaign, campaign_confirm.review_selection(
            campaign, ids, action, feedback, category, back), back=back)
    try:
        result = review_selection(campaign, ids, action, feedback, category,
                                  leave_flagged=request.POST.get("leave_flagged") == "1")
    except ReviewError as exc:
        messages.error(request, str(exc))
        return back_to_form_page(request, pk)
    if result.left_flagged:
        messages.info(request, f"Left out, flagged by the checks: {_by_check(result.left_flagged)}.")
    if result.done:
        verb = "approved" if action == "approve" else "rejected"
        messages.success(request, f"{len(result.done)} assignment(s) {verb}: {_ids(result.done)}.")
    by_reason: dict[str, list[int]] = {}
    for assignment_id, reason in result.failed.items():
        by_reason.setdefault(reason, []).append(assignment_id)
    for reason, failed in by_reason.items():
        messages.error(request, f"Unchanged, assignment(s) {_ids(failed)}: {reason}")
    return back_to_form_page(request, pk)


def _ids(ids: list[int]) -> str:
    return ", ".join(str(i) for i in sorted(ids))


def _by_check(flags_of: dict[int, list[str]]) -> str:
    """Each check with the assignments it flagged: "repeated_words (assignment 12); mostly_uppercase (assignments
    13, 14)"."""
    by_flag: dict[str, list[int]] = {}
    for assignment_id, flags in flags_of.items():
        for flag in flags or ["flagged"]:
            by_flag.setdefault(flag, []).append(assignment_id)
    return "; ".join(f"{flag} (assignment{'s' if len(ids) > 1 else ''} {_ids(ids)})"
                     for flag, ids in sorted(by_flag.items(), key=lambda item: (-len(item[1]), item[0])))


urlpatterns: list[URLPattern] = [
    path("", review_page, name="campaign-review"),
    path("selection/", review_bulk, name="campaign-review-bulk"),
]
