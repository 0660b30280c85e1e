"""Researcher pages: dashboard, campaign page, review and publish actions (thin: services do the work)."""
from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from ...models import Assignment, Campaign, Worker
from ...providers.base import ProviderError
from ...providers.registry import get_provider
from ...selectors.campaigns import (
    CampaignWithProgress,
    campaigns_with_progress,
    progress_of,
    stage_chain,
)
from ...selectors.publication import preview_publication, publication_summary
from ...selectors.run import run_actions
from ...services.campaigns import CampaignError, PublishResult, publish_campaign, set_campaign_status
from ...services.hits import HITError, add_assignments_everywhere, delete_decided_hits, expire_campaign
from ...services.review import (
    ReviewError,
    approve_assignment,
    approve_submitted,
    grant_bonus,
    message_workers,
    reject_assignment,
    set_worker_blocked,
)
from ...states import CampaignStatus, InvalidTransition
from ...task_kinds import get_task_kind
from ...views import campaign_confirm
from ...views.access import back_to_form_page, confirmed_action, researcher_required
from ...views.campaign_confirm import render_confirmation
from ...work.services.marketplace_sync import sync_campaign
from . import campaign_charts, review


@require_GET
@researcher_required
def campaign_detail(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_with_progress(), pk=pk)
    kind = get_task_kind(campaign.task_kind)
    provider = get_provider(campaign.provider)
    context = {
        "campaign": campaign,
        "provider": provider,
        "progress": progress_of(campaign),
        "stages": [(stage, progress, get_task_kind(stage.task_kind).progress_notes(stage))
                   for stage, progress in stage_chain(campaign)],
        "kind": kind,
        "worker_link": provider.worker_link(campaign),
        "marketplace": _marketplace_facts(campaign),
        "actions": run_actions(campaign),
        **campaign_charts.campaign_section(campaign),
        **review.campaign_section(request, campaign, kind),
    }
    return render(request, "mturk/campaign_detail.html", context)


def _marketplace_facts(campaign: CampaignWithProgress) -> dict[str, Any] | None:
    """What the page shows about a marketplace campaign, from our database only: the marketplace is
    never called on a page view (no balance here; the API has it)."""
    provider = get_provider(campaign.provider)
    if not provider.has_marketplace:
        return None
    draft = campaign.status == CampaignStatus.DRAFT
    sandbox = settings.MTURK_SANDBOX if draft and provider.has_sandbox else campaign.sandbox
    if not provider.creates_hits:  # one marketplace object per campaign (a study): the provider's facts
        return provider.campaign_facts(campaign)
    preview = preview_publication(campaign) if campaign.status != CampaignStatus.CLOSED else None
    fee = provider.assignment_fee(campaign)
    return {
        "environment": "sandbox" if sandbox else "production",
        "environment_fixed": not draft,
        "pending_creation": campaign.pending_creation,
        "error": campaign.marketplace_error,
        "fee": fee,
        "per_assignment": campaign.reward + fee,
        "preview": preview,
    }


@require_POST
@researcher_required
def review_assignment(request: HttpRequest, pk: int, assignment_pk: int) -> HttpResponse:
    assignment = get_object_or_404(Assignment, pk=assignment_pk, hit__campaign_id=pk)
    action = request.POST.get("action")
    feedback = request.POST.get("feedback", "")
    try:
        if action == "approve":
            approve_assignment(assignment, feedback.strip())
            messages.success(request, f"Assignment {assignment.pk} approved.")
        elif action == "reject":
            reject_assignment(assignment, feedback, category=request.POST.get("category", ""))
            messages.success(request, f"Assignment {assignment.pk} rejected.")
        else:
            messages.error(request, "Unknown review action.")
    except (ReviewError, InvalidTransition) as exc:
        messages.error(request, f"Assignment {assignment.pk}: {exc}")
    return back_to_form_page(request, pk)


class _BonusAmount(forms.Form):
    amount = forms.DecimalField(max_digits=8, decimal_places=2)


@require_POST
@researcher_required
def bonus_assignment(request: HttpRequest, pk: int, assignment_pk: int) -> HttpResponse:
    assignment = get_object_or_404(Assignment.objects.select_related("hit__campaign", "worker"),
                                   pk=assignment_pk, hit__campaign_id=pk)
    parsed = _BonusAmount(request.POST)
    if not parsed.is_valid():
        messages.error(request, f"Assignment {assignment.pk}: the bonus amount must be a number of dollars "
                                "with at most 2 decimals.")
        return back_to_form_page(request, pk)
    try:
        bonus = grant_bonus(assignment, parsed.cleaned_data["amount"], request.POST.get("reason", ""))
    except ReviewError as exc:
        messages.error(request, f"Assignment {assignment.pk}: {exc}")
    else:
        state = "paid" if bonus.paid else "recorded, not paid yet"
        messages.success(request, f"Bonus of ${bonus.amount} for assignment {assignment.pk} {state}.")
    return back_to_form_page(request, pk)


@require_POST
@researcher_required
def block_worker(request: HttpRequest, pk: int, worker_pk: int) -> HttpResponse:
    campaign_workers = Worker.objects.filter(assignments__hit__campaign_id=pk).distinct()
    worker = get_object_or_404(campaign_workers, pk=worker_pk)
    unblock = request.POST.get("action") == "unblock"
    try:
        set_worker_blocked(worker, not unblock, request.POST.get("reason", ""))
    except ReviewError as exc:
        messages.error(request, f"Worker {worker.external_id}: {exc}")
    else:
        messages.success(request, f"Worker {worker.external_id} {'unblocked' if unblock else 'blocked'}.")
    return back_to_form_page(request, pk)


@confirmed_action
@researcher_required
def approve_all(request: HttpRequest, pk: int) -> HttpResponse:
    """Approve every submitted assignment (`passing`: leave out those the checks flagged); GET: how many, how
    many flagged and by which check, with the box that leaves them out ticked, to confirm."""
    campaign = get_object_or_404(Campaign, pk=pk)
    if request.method == "GET":
        return render_confirmation(request, campaign, campaign_confirm.approve_all(campaign))
    result = approve_submitted(campaign, passing_checks_only=request.POST.get("passing") == "1")
    flagged = f" {len(result.flagged)} flagged by the checks are left for you." if result.flagged else ""
    messages.success(request, f"{result.approved} assignment(s) approved.{flagged}")
    for assignment_id, reason in result.failed.items():
        messages.error(request, f"Assignment {assignment_id}: {reason}")
    return redirect("campaign-page", pk=pk)


def _published(campaign: Campaign, result: PublishResult) -> str:
    """What publishing did, as it is (the command's wording: publication.publication_summary)."""
    if result.nothing_to_publish or result.waiting_for_stage:
        campaign.refresh_from_db()
        return " ".join(publication_summary(campaign, result))
    note = f" {result.left_in_draft} HIT(s) left in draft by the budget cap." if result.stopped_by_budget else ""
    queued = f" Queued on the task queue: {result.job_label}." if result.queued else ""
    published = (f"Published {result.published} HIT(s), cost up to {campaign_confirm.currency(campaign)}"
                 f"{result.cost.total}.{note}{queued}")
    if result.unpaused:
        return f"Campaign {campaign.name} resumed." + (f" {published}" if result.published else queued)
    return published


@confirmed_action
@researcher_required
def publish(request: HttpRequest, pk: int) -> HttpResponse:
    """Publish the drafts (resume a paused campaign); GET: what it publishes and costs, to confirm."""
    campaign = get_object_or_404(Campaign, pk=pk)
    if request.method == "GET":
        return render_confirmation(request, campaign, campaign_confirm.publish(campaign, request.GET))
    sandbox = campaign_confirm.ENVIRONMENTS.get(request.POST.get("environment", ""))
    try:
        result = publish_campaign(campaign, sandbox=sandbox)
    except (CampaignError, InvalidTransition) as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _published(campaign, result))
    return redirect("campaign-page", pk=pk)


@confirmed_action
@researcher_required
def change_status(request: HttpRequest, pk: int) -> HttpResponse:
    """Pause (no new task is handed out; Prolific: the study is paused) or close the campaign for good
    (GET: what closing does, to confirm)."""
    campaign = get_object_or_404(Campaign, pk=pk)
    if request.method == "GET":
        return render_confirmation(request, campaign, campaign_confirm.close(campaign))
    target = {"pause": CampaignStatus.PAUSED, "close": CampaignStatus.CLOSED}.get(request.POST.get("action", ""))
    if target is None:
        messages.error(request, "Unknown campaign action.")
        return redirect("campaign-page", pk=pk)
    try:
        set_campaign_status(campaign, target)
    except InvalidTransition as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Campaign {campaign.name} is {target.label.lower()}.")
    return redirect("campaign-page", pk=pk)


@confirmed_action
@researcher_required
def add_assignments(request: HttpRequest, pk: int) -> HttpResponse:
    """More workers on every published HIT (more places on Prolific), within the budget cap (GET: the extra
    cost, to confirm)."""
    campaign = get_object_or_404(Campaign, pk=pk)
    if request.method == "GET":
        return render_confirmation(request, campaign, campaign_confirm.add_assignments(campaign, request.GET))
    try:
        count = int(request.POST.get("count", ""))
        hits = add_assignments_everywhere(campaign, count,
                                          confirm_fee_increase=request.POST.get("confirm_fee_increase") == "1")
    except ValueError as exc:  # HITError is a ValueError too
        text = str(exc) if isinstance(exc, HITError) else "Give how many assignments to add, as a whole number."
        messages.error(request, text)
    else:
        messages.success(request, f"{hits} HIT(s) take {count} more assignment(s) each.")
    return redirect("campaign-page", pk=pk)


@require_POST
@researcher_required
def sync_now(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    try:
        report = sync_campaign(campaign)
    except (ProviderError, ReviewError, InvalidTransition) as exc:
        messages.error(request, f"Sync stopped: {exc}")
    else:
        flagged = f", {len(report.flagged)} flagged by the checks" if report.flagged else ""
        messages.success(
            request,
            f"Synced {report.hits_checked} HIT(s) ({report.hits_unchanged} more with nothing new): "
            f"{report.new_submissions} new submission(s), "
            f"{report.approved_elsewhere} approved and {report.rejected_elsewhere} rejected on the marketplace, "
            f"{report.returned} returned, {report.expired_hits} HIT(s) expired, "
            f"{report.auto_approved_by_rules} approved by the campaign's rules{flagged}.",
        )
    return redirect("campaign-page", pk=pk)


@confirmed_action
@researcher_required
def expire_all(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    if request.method == "GET":
        return render_confirmation(request, campaign, campaign_confirm.expire(campaign))
    try:
        expired = expire_campaign(campaign)
    except (HITError, InvalidTransition) as exc:
        messages.error(request, f"Expiring stopped: {exc}")
    else:
        messages.success(request, f"Expired {expired} HIT(s). Workers who already accepted one may still submit "
                                  "until their deadline.")
    return redirect("campaign-page", pk=pk)


@confirmed_action
@researcher_required
def delete_decided(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    if request.method == "GET":
        return render_confirmation(request, campaign, campaign_confirm.delete_decided(campaign))
    deleted, skipped = delete_decided_hits(campaign)
    kept = f" {len(skipped)} kept (work still undecided or in progress)." if skipped else ""
    messages.success(request, f"Deleted {deleted} HIT(s) whose work is all decided.{kept}")
    return redirect("campaign-page", pk=pk)


@require_POST
@researcher_required
def message(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    try:
        failed = message_workers(campaign, request.POST.get("subject", ""), request.POST.get("text", ""))
    except ReviewError as exc:
        messages.error(request, f"Message not sent: {exc}")
    else:
        if failed:
            messages.error(request, f"The message did not reach {len(failed)} worker(s): {', '.join(failed)}")
        else:
            messages.success(request, "Message sent to the campaign's workers.")
    return redirect("campaign-page", pk=pk)
