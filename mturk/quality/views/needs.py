"""The quality page's buttons that produce a missing figure: give the first items to several workers (overlap, for
agreement; it spends money, so a confirmation step first, shown in a dialog by static/js/confirm.js) and make gold
from approved answers (for gold accuracy). Thin: services.pilot and services.gold act."""
from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_http_methods, require_POST

from ...models import Campaign
from ...providers.registry import provider_label
from ...selectors.quality_needs import GOLD_FROM_APPROVED, PILOT_ITEMS, PILOT_WORKERS
from ...services.gold import GoldError, gold_from_approved
from ...views.access import researcher_required
from ...views.campaign_confirm import Confirmation, currency
from ..services.pilot import PilotError, give_overlap, plan_overlap


def _number(params: QueryDict, name: str, default: int) -> int:
    raw = params.get(name, "")
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 6 else default


def _confirmation(campaign: Campaign, items: int, workers: int) -> Confirmation:
    confirmation = Confirmation(
        title=f"Give the first {items} item(s) of campaign {campaign.name} to {workers} workers each",
        action_url=reverse("campaign-quality-overlap", args=[campaign.pk]), button="Give them to more workers",
        what=[], hidden={"first": str(items), "workers": str(workers)})  # not "items": a template's dict.items
    try:
        plan = plan_overlap(campaign, items, workers)
    except PilotError as exc:
        confirmation.refused = str(exc)
        return confirmation
    money = currency(campaign)
    confirmation.what = [
        f"The campaign's first {plan.hits} real HIT(s) each take {workers} workers and become its pilot: they are "
        "handed out before the others, so two workers answer the same items after a few tasks and agreement can "
        "be measured (a careless worker shows as the one who agrees least).",
        f"{plan.added} assignment(s) are added" + (f", {plan.extended} published HIT(s) extended" if plan.extended
                                                    else "") + f": up to {money}{plan.cost} more with fees.",
    ]
    confirmation.facts = [("HITs", str(plan.hits)), ("Workers per HIT", str(workers)),
                          ("Extra cost with fees", f"{money}{plan.cost}")]
    if not plan.hits:
        confirmation.refused = "the campaign has no draft or published HIT to give to more workers"
    elif plan.over_budget:
        confirmation.refused = (f"{money}{plan.cost} more would cross the budget cap of "
                                f"{money}{campaign.budget_cap}")
    elif not plan.added and not plan.new_pilot:
        confirmation.refused = f"these HITs are the pilot and take {workers} or more workers already"
    else:
        confirmation.button = f"Give {plan.hits} item(s) to {workers} workers for {money}{plan.cost}"
    return confirmation


@require_http_methods(["GET", "POST"])
@researcher_required
def overlap(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: what giving the first items to more workers would do and cost (the confirmation step); POST: do it."""
    campaign = get_object_or_404(Campaign, pk=pk)
    back = reverse("campaign-quality-page", args=[campaign.pk])
    params = request.GET if request.method == "GET" else request.POST
    items, workers = _number(params, "first", PILOT_ITEMS), _number(params, "workers", PILOT_WORKERS)
    if request.method == "GET":
        return render(request, "mturk/confirm_action.html", {
            "campaign": campaign, "confirmation": _confirmation(campaign, items, workers),
            "currency": currency(campaign), "back": back + "#needs", "here": request.path,
            "provider_label": provider_label(campaign.provider),
        })
    try:
        done = give_overlap(campaign, items, workers)
    except PilotError as exc:
        messages.error(request, f"Not given to more workers: {exc}")
        return redirect(back + "#needs")
    messages.success(request, f"The first {done.hits} item(s) now go to {workers} workers each ({done.added} "
                              "assignment(s) added), handed out first: agreement appears once two workers have "
                              "answered one and quality is computed.")
    return redirect(back + "#needs")


@require_POST
@researcher_required
def gold(request: HttpRequest, pk: int) -> HttpResponse:
    """Make gold items from up to `limit` of the campaign's approved answers (not destructive: no confirmation)."""
    campaign = get_object_or_404(Campaign, pk=pk)
    try:
        made = gold_from_approved(campaign, _number(request.POST, "limit", GOLD_FROM_APPROVED), user=request.user)
    except GoldError as exc:
        messages.error(request, f"No gold made: {exc}")
    else:
        messages.success(request, f"{len(made)} gold item(s) of {campaign.task_kind} made from approved answers "
                                  "(the Gold page lists them): a campaign created with a gold share mixes them in.")
    return redirect(reverse("campaign-quality-page", args=[campaign.pk]) + "#needs")


urlpatterns: list[URLPattern] = [
    path("overlap/", overlap, name="campaign-quality-overlap"),
    path("gold-from-approved/", gold, name="campaign-quality-gold"),
]
