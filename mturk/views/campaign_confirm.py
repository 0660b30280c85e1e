"""The confirmation step of the campaign page's actions that spend money or cannot be undone: a GET page
(also shown in a <dialog> by static/js/confirm.js) saying what will happen and what it costs, whose form
POSTs to the action. Reads only: the publication preview and the services' cost estimates, never a write.
A marketplace is asked for its fees only when the researcher presses the button that asks it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from ..models import Campaign
from ..providers.base import CrowdProvider, ProviderError
from ..providers.registry import get_provider, provider_label
from ..selectors.publication import PublicationPreview, preview_publication
from ..selectors.review import FlagSummary, selection_flags, submitted_flags
from ..services.hits import added_assignments_cost
from ..states import CampaignStatus, HITStatus

ENVIRONMENTS = {"sandbox": True, "production": False}


@dataclass
class Confirmation:
    title: str
    action_url: str
    button: str
    what: list[str]  # what will happen, sentence by sentence
    hidden: dict[str, str] = field(default_factory=dict)  # the action's form fields
    facts: list[tuple[str, str]] = field(default_factory=list)  # (term, description)
    preview: PublicationPreview | None = None
    fees_unknown: bool = False  # the marketplace's fees are not known until it is asked (button below)
    ask_fees: dict[str, str] | None = None  # the GET parameters of the button that asks for them
    refused: str | None = None  # the action would be refused: no confirm button
    danger: bool = False
    option: tuple[str, str] | None = None  # a checkbox (name, label) the action takes
    option_checked: bool = False  # the checkbox's default
    repeated: list[tuple[str, str]] = field(default_factory=list)  # more form fields, a name may repeat


def render_confirmation(request: HttpRequest, campaign: Campaign, confirmation: Confirmation,
                        back: str = "") -> HttpResponse:
    """The step as a page (`back`: where Cancel goes, the campaign page by default)."""
    return render(request, "mturk/confirm_action.html", {
        "campaign": campaign, "confirmation": confirmation, "currency": currency(campaign),
        "back": back or reverse("campaign-page", args=[campaign.pk]), "here": request.path,
        "provider_label": provider_label(campaign.provider),
    })


def currency(campaign: Campaign) -> str:
    """How the page writes an amount of the campaign's money (the marketplace's currency when known)."""
    return get_provider(campaign.provider).currency_prefix(campaign)


def _fees_unknown(provider: CrowdProvider, campaign: Campaign, params: Any) -> bool:
    """Pages never ask the marketplace for its fees; the researcher's "ask" button does."""
    return not provider.fees_known(campaign) and params.get("ask_fees") != "1"


def _ask_for_fees(confirmation: Confirmation, provider: CrowdProvider, keep: dict[str, str]) -> Confirmation:
    """No cost without the marketplace's fees: the step offers the button that asks for them (keeping `keep`)."""
    confirmation.fees_unknown = True
    confirmation.ask_fees = {**keep, "ask_fees": "1"}
    confirmation.what.append(f"{provider_label(provider.name)}'s fees are not known until its cost calculator is "
                             "asked; ask it to see the cost first.")
    confirmation.refused = "the cost is not known yet"
    return confirmation


def publish(campaign: Campaign, params: Any) -> Confirmation:
    provider = get_provider(campaign.provider)
    environment = params.get("environment", "")
    sandbox = ENVIRONMENTS.get(environment)
    hidden = {"environment": environment} if environment in ENVIRONMENTS else {}
    resume = campaign.status == CampaignStatus.PAUSED
    verb = "Resume" if resume else "Publish"
    confirmation = Confirmation(
        title=f"{verb} campaign {campaign.name}", action_url=reverse("campaign-page-publish", args=[campaign.pk]),
        button=verb, what=[], hidden=hidden)
    if resume:
        confirmation.what.append("Tasks are handed out again" + (" and the Prolific study is resumed."
                                                                  if not provider.creates_hits
                                                                  and provider.has_marketplace else "."))
    if _fees_unknown(provider, campaign, params):
        return _ask_for_fees(confirmation, provider, hidden)
    preview = preview_publication(campaign, sandbox=sandbox)
    confirmation.preview = preview
    money = currency(campaign)
    if preview.error:
        confirmation.refused = preview.error
    elif preview.to_publish:
        confirmation.what.append(
            f"{len(preview.to_publish)} HIT(s) are offered to workers"
            + (f" on {provider_label(provider.name)}" if provider.has_marketplace else "")
            + (f" ({preview.environment})" if provider.has_sandbox else "")
            + f", which may cost up to {money}{preview.within_budget.total} with fees.")
        confirmation.button = f"{verb} for {money}{preview.within_budget.total}"
    elif not resume:
        confirmation.refused = "the campaign has no draft HIT to publish"
    else:
        confirmation.what.append("No draft HIT is left to publish: resuming costs nothing more.")
    if not money:
        confirmation.what.append(f"Amounts are in the currency of your {provider_label(provider.name)} account.")
    return confirmation


def add_assignments(campaign: Campaign, params: Any) -> Confirmation:
    provider = get_provider(campaign.provider)
    places = provider.has_marketplace and not provider.creates_hits
    raw = params.get("count", "")
    confirmation = Confirmation(
        title=f"Add assignments to campaign {campaign.name}",
        action_url=reverse("campaign-page-add-assignments", args=[campaign.pk]), button="Add", what=[],
        hidden={"count": raw})
    try:
        count = int(raw)
    except ValueError:
        count = 0
    if not 1 <= count <= 1000:
        confirmation.refused = "give how many assignments to add, a whole number from 1 to 1000"
        return confirmation
    if _fees_unknown(provider, campaign, params):
        return _ask_for_fees(confirmation, provider, {"count": raw})
    try:
        added = added_assignments_cost(campaign, count)
    except ProviderError as exc:
        confirmation.refused = f"{provider.name}: {exc}"
        return confirmation
    money = currency(campaign)
    confirmation.facts = [("HITs", str(added.hits)), ("More assignments per HIT", str(count)),
                          ("Extra cost with fees", f"{money}{added.cost}")]
    if campaign.budget_cap is not None:
        confirmation.facts.append(("Budget cap", f"{money}{campaign.budget_cap}"))
    if not added.hits:
        confirmation.refused = "the campaign has no published HIT to add assignments to"
    elif added.over_budget:
        confirmation.refused = f"{money}{added.cost} more would cross the budget cap of {money}{campaign.budget_cap}"
    confirmation.what.append(
        f"Each of the {added.hits} published HIT(s) takes {count} more worker(s)"
        + (f" (the study gets {count * added.hits} more place(s))" if places else "")
        + f": up to {money}{added.cost} more with fees.")
    if added.crossing_fee_tier:
        confirmation.what.append(
            f"{added.crossing_fee_tier} HIT(s) would reach 10 or more assignments: the fee per assignment rises "
            "(40% instead of 20%, on all their assignments) and MTurk refuses to extend a HIT created with fewer "
            "than 10.")
        confirmation.option = ("confirm_fee_increase", "Try anyway, with the higher fee")
    confirmation.button = f"Add for {money}{added.cost}"
    return confirmation


def close(campaign: Campaign) -> Confirmation:
    provider = get_provider(campaign.provider)
    what = ["No new task is handed out, for good: a closed campaign cannot be published, paused or resumed again.",
            "Work already submitted stays here to review."]
    if provider.has_marketplace and not provider.creates_hits:
        what.insert(1, "Its Prolific study is stopped.")
    refused = None if campaign.status in (CampaignStatus.ACTIVE, CampaignStatus.PAUSED) else \
        f"the campaign is {campaign.get_status_display().lower()}"
    return Confirmation(title=f"Close campaign {campaign.name}", button="Close campaign for good", what=what,
                        action_url=reverse("campaign-page-status", args=[campaign.pk]), hidden={"action": "close"},
                        refused=refused, danger=True)


def expire(campaign: Campaign) -> Confirmation:
    published = campaign.hits.filter(status=HITStatus.PUBLISHED).count()
    return Confirmation(
        title=f"Expire the HITs of campaign {campaign.name}", button=f"Expire {published} HIT(s)",
        action_url=reverse("campaign-page-expire", args=[campaign.pk]), danger=True,
        what=[f"{published} published HIT(s) are taken off offer now.",
              "Workers who already accepted one may still submit until their deadline."],
        refused=None if published else "the campaign has no published HIT to expire")


def delete_decided(campaign: Campaign) -> Confirmation:
    expired = campaign.hits.filter(status=HITStatus.EXPIRED).count()
    return Confirmation(
        title=f"Delete the decided HITs of campaign {campaign.name}", button="Delete decided HITs",
        action_url=reverse("campaign-page-delete-decided", args=[campaign.pk]), danger=True,
        what=[f"Of the {expired} expired HIT(s), those whose work is all decided are deleted from the marketplace; "
              "this cannot be undone (our records of them and their answers stay).",
              "HITs with work still undecided or in progress are kept."],
        refused=None if expired else "the campaign has no expired HIT")


def _flagged_out(confirmation: Confirmation, flags: FlagSummary, name: str) -> None:
    """Say how many the checks flagged and by which check, with the checkbox that leaves them out (ticked)."""
    if not flags.flagged:
        confirmation.what.append("None of them is flagged by the automatic checks.")
        return
    confirmation.facts.append(("Flagged by the checks", f"{flags.flagged} of {flags.total}: {flags.checks_text()}"))
    confirmation.option = (name, f"Leave out the {flags.flagged} flagged (approve {flags.passing}); "
                                 "untick to approve them too")
    confirmation.option_checked = True


def approve_all(campaign: Campaign) -> Confirmation:
    flags = submitted_flags(campaign)
    money = currency(campaign)
    confirmation = Confirmation(
        title=f"Approve the submitted work of campaign {campaign.name}", button="Approve", danger=True,
        action_url=reverse("campaign-approve-all", args=[campaign.pk]),
        what=[f"{flags.total} submitted assignment(s) are approved without being looked at: their workers are "
              f"paid {money}{campaign.reward} each, and the answers go into the dataset and its exports."],
        refused=None if flags.total else "no submitted assignment is waiting for review")
    _flagged_out(confirmation, flags, "passing")
    return confirmation


def review_selection(campaign: Campaign, ids: list[int], action: str, feedback: str, category: str,
                     back: str) -> Confirmation:
    """The review page's bulk decision, before it is made: how many, how many flagged and by which check."""
    approve = action == "approve"
    flags = selection_flags(campaign, ids)
    repeated = [("assignment", str(pk)) for pk in ids] + [("next", back)]
    if approve:
        confirmation = Confirmation(
            title=f"Approve {flags.total} assignment(s)?", button="Approve", hidden={"action": "approve"},
            action_url=reverse("campaign-review-bulk", args=[campaign.pk]), repeated=repeated,
            what=["The workers are paid, and the answers go into the dataset and its exports."])
        _flagged_out(confirmation, flags, "leave_flagged")
    else:
        confirmation = Confirmation(
            title=f"Reject {flags.total} assignment(s)?", button=f"Reject {flags.total}", danger=True,
            hidden={"action": "reject", "feedback": feedback, "category": category},
            action_url=reverse("campaign-review-bulk", args=[campaign.pk]), repeated=repeated,
            what=["The workers are not paid and are told why, with your feedback."], facts=[("Feedback", feedback)])
    confirmation.hidden["confirmed"] = "1"
    if not flags.total:
        confirmation.refused = "none of the selected assignments is of this campaign"
    return confirmation
