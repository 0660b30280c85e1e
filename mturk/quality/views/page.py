"""The campaign quality page (/campaigns/<pk>/quality/): the campaign-wide figures, each worker's measured
quality, the items with the least agreement, the review rule (edit, preview, apply after a confirmation) and
the audit of the rule's decisions. Thin: the selectors read, services.quality and services.review_rules act."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.paginator import Page, Paginator
from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path, reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ...measures import GOLD_PASS_MARK
from ...models import Campaign, QualityDecision, QualityJob, QualityRule, WorkerScore
from ...providers.registry import provider_label
from ...selectors.quality import (
    CampaignQualityView,
    campaign_quality,
    decisions,
    item_rows,
    latest_quality_job,
    sorted_worker_scores,
)
from ...selectors.quality_needs import quality_needs
from ...views.access import researcher_required
from ...views.campaign_confirm import Confirmation, currency
from ..services.jobs import request_quality
from ..services.review_rules.applying import apply_rule
from ..services.review_rules.planning import RulePlan, plan_rule
from ..services.review_rules.rule import save_rule
from .rule_form import RuleForm, rule_initial

WORKERS_PER_PAGE = 25
ITEMS_PER_PAGE = 25
DECISIONS_PER_PAGE = 25
PLANNED_PER_PAGE = 50
# The worker table's sortable columns: query value -> (header, WorkerScore attribute)
SORTS = {"gold_accuracy": "Gold accuracy", "agreement": "Agreement", "items": "Items"}
# Krippendorff's reading of alpha (Krippendorff 2004, as crowd-kit's docstring quotes it)
ALPHA_RELIABLE = 0.8
ALPHA_TENTATIVE = 0.667


# ---------------------------------------------------------------------------------------------------------------
# Reading the query string: each table has its own page; the worker table its sort.

@dataclass(frozen=True)
class PageState:
    sort: str = "gold_accuracy"
    descending: bool = True
    workers: str = "1"
    items: str = "1"
    audit: str = "1"
    planned: str = "1"
    preview: bool = False
    base: str = ""  # the page's path: links stay right on the page a refused rule is shown on (rule/)

    @classmethod
    def of(cls, query: QueryDict, base: str) -> PageState:
        sort = query.get("sort", "")
        return cls(sort=sort if sort in SORTS else "gold_accuracy", descending=query.get("order") != "asc", base=base,
                   workers=query.get("workers", "1"), items=query.get("items", "1"), audit=query.get("audit", "1"),
                   planned=query.get("planned", "1"), preview=query.get("preview") == "1")

    def link(self, anchor: str, **changes: Any) -> str:
        """The page's address with these changes to the query string, at an anchor."""
        query = self.query(**changes)
        return f"{self.base}{'?' if query else ''}{query}#{anchor}"

    def query(self, **changes: Any) -> str:
        values: dict[str, Any] = {"sort": self.sort, "order": "desc" if self.descending else "asc",
                                  "workers": self.workers, "items": self.items, "audit": self.audit,
                                  "planned": self.planned, "preview": "1" if self.preview else ""}
        values.update(changes)
        defaults = {"sort": "gold_accuracy", "order": "desc", "workers": "1", "items": "1", "audit": "1",
                    "planned": "1", "preview": ""}
        return urlencode({k: v for k, v in values.items() if str(v) != defaults[k]})


def _page_links(page: Page, state: PageState, name: str, anchor: str) -> dict[str, str]:
    links = {}
    if page.has_previous():
        links["previous"] = state.link(anchor, **{name: page.previous_page_number()})
    if page.has_next():
        links["next"] = state.link(anchor, **{name: page.next_page_number()})
    return links


def _sort_headers(state: PageState) -> dict[str, dict[str, Any]]:
    headers = {}
    for value, label in SORTS.items():
        current = state.sort == value
        descending = not (current and state.descending)  # a click on the current column flips it
        headers[value] = {
            "label": label, "current": current,
            "aria_sort": ("descending" if state.descending else "ascending") if current else None,
            "href": state.link("workers", sort=value, order="desc" if descending else "asc", workers=1),
            "next_order": "highest first" if descending else "lowest first",
        }
    return headers


@dataclass(frozen=True)
class Thresholds:
    """What the page marks as low: below the rule's rejection bounds, else below the gold pass mark."""

    gold: float
    agreement: float | None

    @classmethod
    def of(cls, rule: QualityRule | None) -> Thresholds:
        gold = rule.reject_below_gold if rule is not None and rule.reject_below_gold is not None else GOLD_PASS_MARK
        return cls(gold=gold, agreement=rule.reject_below_agreement if rule is not None else None)


def _worker_rows(scores: list[WorkerScore], low: Thresholds) -> list[dict[str, Any]]:
    return [{
        "score": score,
        "low_gold": score.gold_accuracy is not None and score.gold_accuracy < low.gold,
        "low_agreement": (low.agreement is not None and score.agreement is not None
                          and score.agreement < low.agreement),
    } for score in scores]


EVIDENCE_LEFT_OUT = {"why", "computed_at"}  # the reason is shown first; when: the decision's own time


@dataclass(frozen=True)
class Evidence:
    """A decision's evidence for the page: why (the bounds met or broken), then the figures in one line."""

    why: str
    figures: str

    @classmethod
    def of(cls, evidence: dict[str, Any]) -> Evidence:
        why = evidence.get("why")
        parts = []
        for name, value in evidence.items():
            if name in EVIDENCE_LEFT_OUT:
                continue
            shown = f"{value:.2f}" if isinstance(value, float) else "–" if value is None else str(value)
            parts.append(f"{name.replace('_', ' ')} {shown}")
        return cls(why="; ".join(str(w) for w in why) if isinstance(why, list) else str(why or ""),
                   figures=" · ".join(parts))


def alpha_reading(value: float | None) -> str:
    if value is None:
        return "not computed (too few answers compared)"
    if value >= ALPHA_RELIABLE:
        return f"reliable (≥ {ALPHA_RELIABLE})"
    if value >= ALPHA_TENTATIVE:
        return f"tentative conclusions only (≥ {ALPHA_TENTATIVE}, < {ALPHA_RELIABLE})"
    return f"not reliable (< {ALPHA_TENTATIVE})"


def _overall(view: CampaignQualityView) -> list[dict[str, Any]]:
    if view.summary is None:
        return []
    return [{"name": name.replace("_", " "), "shown": _figure(value),
             "reading": alpha_reading(value) if "alpha" in name else ""}
            for name, value in (view.summary.overall or {}).items()]


def _figure(value: Any) -> str:
    """A campaign-wide figure: a count as a whole number (e.g. judged pairs), a measure with 3 decimals."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "–" if value is None else str(value)
    if float(value).is_integer() and abs(value) > 1:
        return str(int(value))
    return f"{value:.3f}"


# ---------------------------------------------------------------------------------------------------------------
# Views

def _page(request: HttpRequest, campaign: Campaign, form: RuleForm | None = None, status: int = 200) -> HttpResponse:
    state = PageState.of(request.GET, reverse("campaign-quality-page", args=[campaign.pk]))
    view = campaign_quality(campaign, with_workers=False)
    if form is None:
        form = RuleForm(initial=rule_initial(view.rule), campaign=campaign)
    workers = Paginator(sorted_worker_scores(campaign, state.sort, state.descending),
                        WORKERS_PER_PAGE).get_page(state.workers)
    items = item_rows(campaign, page=_number(state.items), per_page=ITEMS_PER_PAGE)
    audit = decisions(campaign, page=_number(state.audit), per_page=DECISIONS_PER_PAGE)
    plan: RulePlan | None = plan_rule(campaign) if state.preview and view.rule is not None else None
    # the decisions, then the work left to a person with why
    planned = (Paginator([*plan.decisions, *getattr(plan, "leaves", [])], PLANNED_PER_PAGE).get_page(state.planned)
               if plan is not None else None)
    job = latest_quality_job(campaign)
    context = {
        "campaign": campaign,
        "view": view,
        "needs": quality_needs(campaign, view),
        "overall": _overall(view),
        "state": state,
        "sort_headers": _sort_headers(state),
        "sorts": SORTS.items(),
        "workers": workers,
        "worker_rows": _worker_rows(list(workers.object_list), Thresholds.of(view.rule)),
        "low": Thresholds.of(view.rule),
        "workers_links": _page_links(workers, state, "workers", "workers"),
        "items": items,
        "items_links": _page_links(items, state, "items", "items"),
        "audit": audit,
        "audit_links": _page_links(audit, state, "audit", "audit"),
        "audit_rows": _audit_rows(list(audit.object_list)),
        "form": form,
        "plan": plan,
        "planned": planned,
        "planned_rows": [(d, Evidence.of(d.evidence)) for d in planned] if planned is not None else [],
        "planned_links": _page_links(planned, state, "planned", "preview") if planned is not None else {},
        "currency": currency(campaign),
        "review_url": reverse("campaign-review", args=[campaign.pk]),
        "job": job,
        "computing": job is not None and job.status in (QualityJob.Status.QUEUED, QualityJob.Status.RUNNING),
    }
    return render(request, "mturk/quality/page.html", context, status=status)


def _audit_rows(page: list[QualityDecision]) -> list[tuple[QualityDecision, Evidence, str]]:
    """Each decision with its evidence in a line and who decided (the users read in one query)."""
    ids = {d.decided_by_id for d in page if d.decided_by_id is not None}
    users = {user.pk: user.get_username() for user in get_user_model().objects.filter(pk__in=ids)} if ids else {}
    return [(d, Evidence.of(d.evidence), users.get(d.decided_by_id, "") if d.decided_by_id else "") for d in page]


def _number(value: str) -> int:
    """A page number from the query string; anything else is the first page (the selectors clamp the rest)."""
    return int(value) if value.isascii() and value.isdigit() and int(value) > 0 else 1


@require_GET
@researcher_required
def quality_page(request: HttpRequest, pk: int) -> HttpResponse:
    return _page(request, get_object_or_404(Campaign, pk=pk))


@require_POST
@researcher_required
def recompute(request: HttpRequest, pk: int) -> HttpResponse:
    """Ask for a computation: a background job (run at once without a broker); the page follows it."""
    campaign = get_object_or_404(Campaign, pk=pk)
    job = request_quality(campaign, request.user)
    job.refresh_from_db()
    if job.status == QualityJob.Status.DONE:
        r = job.result
        messages.success(request, f"Quality computed: {r['answers']} answer(s) of {r['workers']} worker(s) on "
                                  f"{r['items']} item(s), {r['aggregated']} item(s) aggregated ({r['measure']}).")
    elif job.status == QualityJob.Status.FAILED:
        messages.error(request, f"Not computed: {job.error}")
    else:
        messages.info(request, "Quality is being computed in the background; this page shows the new figures "
                               "when it is done.")
    return redirect("campaign-quality-page", pk=campaign.pk)


@require_GET
@researcher_required
def job_status(request: HttpRequest, pk: int) -> JsonResponse:
    """The latest computation's state, as JSON, for the page to follow it."""
    campaign = get_object_or_404(Campaign, pk=pk)
    job = latest_quality_job(campaign)
    if job is None:
        return JsonResponse({"status": None, "finished": True, "error": ""})
    return JsonResponse({"status": job.status, "finished": job.status in (QualityJob.Status.DONE,
                                                                          QualityJob.Status.FAILED),
                         "error": job.error, "created_at": job.created_at.isoformat()})


@require_POST
@researcher_required
def save(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    form = RuleForm(request.POST, campaign=campaign)
    if form.is_valid():
        try:
            save_rule(campaign, form.rule_data(), user=request.user)
        except ValueError as exc:
            form.add_service_error(exc)
        else:
            messages.success(request, "Review rule saved. Preview it to see what it would do.")
            return redirect(reverse("campaign-quality-page", args=[campaign.pk]) + "#rule")
    return _page(request, campaign, form=form, status=400)


def _confirmation(campaign: Campaign, plan: RulePlan) -> Confirmation:
    money = currency(campaign)
    what = [f"Approve {plan.approve} assignment(s), reject {plan.reject}, pay {plan.bonus} bonus(es); "
            f"{plan.left} submitted assignment(s) are left to you.",
            f"It pays out {money}{plan.cost} with fees.",
            "Quality is computed again first and the rule follows the new figures. Each decision is recorded (with "
            "the scores behind it) before the marketplace is asked; work decided already is skipped."]
    if not money:
        what.append(f"Amounts are in the currency of your {provider_label(campaign.provider)} account.")
    what.extend(plan.problems)  # warnings: what the rule leaves out as it stands
    refused = None
    if getattr(plan, "computed_at", True) is None:
        refused = "quality has never been computed: compute it first, to see what the rule would do"
    elif not plan.decisions:
        refused = "the rule decides nothing now"
    return Confirmation(
        title=f"Apply the review rule of campaign {campaign.name}",
        action_url=reverse("campaign-quality-apply", args=[campaign.pk]),
        button=f"Apply: approve {plan.approve}, reject {plan.reject}, bonus {plan.bonus} for {money}{plan.cost}",
        what=what, refused=refused, danger=plan.reject > 0)


@require_http_methods(["GET", "POST"])
@researcher_required
def apply(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: what applying the rule would do and cost, to confirm (also shown in a dialog); POST: apply it."""
    campaign = get_object_or_404(Campaign, pk=pk)
    back = reverse("campaign-quality-page", args=[campaign.pk])
    if not QualityRule.objects.filter(campaign=campaign).exists():
        messages.error(request, "Save a review rule first.")
        return redirect(back + "#rule")
    if request.method == "GET":
        return render(request, "mturk/confirm_action.html", {
            "campaign": campaign, "confirmation": _confirmation(campaign, plan_rule(campaign)),
            "currency": currency(campaign), "back": back, "here": request.path,
            "provider_label": provider_label(campaign.provider),
        })
    try:
        result = apply_rule(campaign, source="console", user=request.user)
    except ValueError as exc:
        messages.error(request, f"The rule was not applied: {exc}")
        return redirect(back + "#rule")
    messages.success(request, f"Review rule applied: {result.done} decision(s) made"
                              + (f", {result.skipped} skipped (decided already)" if result.skipped else "") + ".")
    for key, why in sorted(result.failed.items()):
        messages.error(request, f"Failed, {key}: {why}")
    return redirect(back + "#audit")


urlpatterns: list[URLPattern] = [
    path("", quality_page, name="campaign-quality-page"),
    path("recompute/", recompute, name="campaign-quality-recompute"),
    path("status/", job_status, name="campaign-quality-status"),
    path("rule/", save, name="campaign-quality-rule"),
    path("rule/apply/", apply, name="campaign-quality-apply"),
]
