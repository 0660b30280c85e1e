"""Writes on the researcher side: approve, reject, bonus, block, expire."""
from __future__ import annotations

from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from ..models import HIT, Assignment, Bonus, Campaign, Worker
from ..providers.registry import get_provider
from ..states import AssignmentStatus, HITStatus
from ..task_kinds import get_task_kind
from .stages import feed_next_stages


class ReviewError(ValueError):
    """A refused review action; the message is shown to the researcher."""


def _locked(assignment: Assignment) -> Assignment:
    return Assignment.objects.select_for_update().select_related("hit__campaign", "worker").get(pk=assignment.pk)


def approve_assignment(assignment: Assignment, feedback: str = "") -> Assignment:
    """Approve (idempotent: approving an approved assignment changes nothing)."""
    with transaction.atomic():
        locked = _locked(assignment)
        if locked.status == AssignmentStatus.APPROVED:
            return locked
        locked.transition(AssignmentStatus.APPROVED)
        campaign = locked.hit.campaign
        get_provider(campaign.provider).approve(locked, feedback)
        locked.feedback = feedback
        locked.decided_at = timezone.now()
        locked.save(update_fields=["status", "feedback", "decided_at"])
        get_task_kind(campaign.task_kind).on_approved(locked)
        feed_next_stages(locked)
    return locked


def reject_assignment(assignment: Assignment, feedback: str) -> Assignment:
    """Reject with feedback for the worker (required). Idempotent."""
    feedback = (feedback or "").strip()
    if not feedback:
        raise ReviewError("Rejecting needs a feedback text that tells the worker why.")
    with transaction.atomic():
        locked = _locked(assignment)
        if locked.status == AssignmentStatus.REJECTED:
            return locked
        locked.transition(AssignmentStatus.REJECTED)
        get_provider(locked.hit.campaign.provider).reject(locked, feedback)
        locked.feedback = feedback
        locked.decided_at = timezone.now()
        locked.save(update_fields=["status", "feedback", "decided_at"])
    return locked


def approve_submitted(campaign: Campaign, *, passing_checks_only: bool = False) -> int:
    """Approve every submitted assignment of a campaign (optionally only those with no flags)."""
    pending = Assignment.objects.filter(hit__campaign=campaign, status=AssignmentStatus.SUBMITTED)
    if passing_checks_only:
        pending = pending.filter(check_flags=[])
    count = 0
    for assignment in pending.order_by("pk").iterator():
        approve_assignment(assignment)
        count += 1
    return count


def grant_bonus(assignment: Assignment, amount: Decimal, reason: str) -> Bonus:
    if amount <= 0:
        raise ReviewError("A bonus must be positive.")
    if not reason.strip():
        raise ReviewError("A bonus needs a reason shown to the worker.")
    if assignment.status not in (AssignmentStatus.APPROVED, AssignmentStatus.SUBMITTED):
        raise ReviewError("Bonuses are paid on submitted or approved work only.")
    with transaction.atomic():
        Assignment.objects.select_for_update().filter(pk=assignment.pk).first()  # serializes bonuses per assignment
        sequence = Bonus.objects.filter(assignment=assignment).count() + 1
        bonus = Bonus.objects.create(
            assignment=assignment, amount=amount, reason=reason.strip(),
            unique_token=f"bonus-{assignment.pk}-{sequence}",
        )
    get_provider(assignment.hit.campaign.provider).bonus(bonus)
    Bonus.objects.filter(pk=bonus.pk).update(paid=True)
    bonus.paid = True
    return bonus


def set_worker_blocked(worker: Worker, blocked: bool, reason: str = "") -> Worker:
    if blocked and not reason.strip():
        raise ReviewError("Blocking a worker needs a reason.")
    provider = get_provider(worker.provider)
    (provider.block if blocked else provider.unblock)(worker, reason)
    worker.blocked = blocked
    worker.block_reason = reason.strip() if blocked else ""
    worker.save(update_fields=["blocked", "block_reason"])
    return worker


def expire_hit(hit: HIT) -> HIT:
    with transaction.atomic():
        locked = HIT.objects.select_for_update().select_related("campaign").get(pk=hit.pk)
        if locked.status == HITStatus.EXPIRED:
            return locked
        locked.transition(HITStatus.EXPIRED)
        get_provider(locked.campaign.provider).expire(locked)
        locked.expires_at = timezone.now()
        locked.save(update_fields=["status", "expires_at"])
    return locked
