"""Writes on the researcher side: approve, reject, override, bonus, block, message workers.

Each action locks our row, checks the state machine, asks the provider (whose calls are idempotent)
and stores the result in the same transaction: a failed marketplace call changes nothing here, and
repeating an action after a crash is harmless."""
from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from ..models import Assignment, Bonus, BonusState, Campaign, Worker
from ..providers.base import ProviderError
from ..providers.registry import get_provider
from ..states import AssignmentStatus
from ..task_kinds import get_task_kind
from .campaigns import committed_spend
from .stages import feed_next_stages

log = logging.getLogger(__name__)

# Flags of an answer kept raw because the task kind could not read the marketplace's copy (see
# marketplace_sync): approving such work pays the worker but makes no dataset record or next-stage work.
UNUSABLE_ANSWER_FLAGS = frozenset({"answer_not_on_platform", "answer_invalid"})


class ReviewError(ValueError):
    """A refused review action; the message is shown to the researcher."""


def _locked(assignment: Assignment) -> Assignment:
    locked = Assignment.objects.select_for_update().select_related("hit__campaign", "worker").get(pk=assignment.pk)
    _require_confirmed(locked)
    return locked


def _require_confirmed(assignment: Assignment) -> None:
    """Only work the marketplace reported is decided or paid: an unconfirmed record may be a forged visit."""
    if not assignment.confirmed:
        raise ReviewError(f"Assignment {assignment.pk} has not been reported by the marketplace (it may come "
                          "from a forged page visit); sync the campaign to confirm it first.")


def _marketplace(action, *args, **kwargs) -> None:
    try:
        action(*args, **kwargs)
    except ProviderError as exc:
        raise ReviewError(str(exc)) from None


def approve_assignment(assignment: Assignment, feedback: str = "", *, on_marketplace: bool = True,
                       announce: bool = True) -> Assignment:
    """Approve (idempotent). Approving a rejected assignment overrides the rejection.

    `on_marketplace=False` records an approval the marketplace already made (auto-approval). `announce=False`:
    the caller tells the provider itself once a batch of decisions is stored (CrowdProvider.decisions_recorded)."""
    with transaction.atomic():
        locked = _locked(assignment)
        if locked.status == AssignmentStatus.APPROVED:
            return locked
        overriding = locked.status == AssignmentStatus.REJECTED
        locked.transition(AssignmentStatus.APPROVED)
        campaign = locked.hit.campaign
        provider = get_provider(campaign.provider)
        if on_marketplace:
            _marketplace(provider.approve, locked, feedback, override_rejection=overriding)
            if provider.has_marketplace:
                locked.marketplace_status = "Approved"  # what the marketplace now reports (see sync)
        else:
            locked.auto_approved = True
        locked.feedback = feedback
        locked.decided_at = timezone.now()
        locked.save(update_fields=["status", "feedback", "decided_at", "auto_approved", "marketplace_status"])
        # A gold or onboarding HIT's answer is paid but makes no dataset record and feeds no next stage.
        if locked.hit.gold_item_id is None and not UNUSABLE_ANSWER_FLAGS.intersection(locked.check_flags or []):
            get_task_kind(campaign.task_kind).on_approved(locked)
            feed_next_stages(locked)
        if on_marketplace and announce:
            provider.decisions_recorded(campaign)
    return locked


def reject_assignment(assignment: Assignment, feedback: str, *, on_marketplace: bool = True,
                      category: str = "") -> Assignment:
    """Reject with feedback for the worker (required, checked before anything is called). Idempotent.

    `category`: the marketplace's rejection category where it has them (Prolific requires one)."""
    feedback = (feedback or "").strip()
    category = (category or "").strip().upper()
    if not feedback:
        raise ReviewError("Rejecting needs a feedback text that tells the worker why.")
    if on_marketplace:
        _marketplace(get_provider(assignment.hit.campaign.provider).check_rejection, feedback, category)
    with transaction.atomic():
        locked = _locked(assignment)
        if locked.status == AssignmentStatus.REJECTED:
            return locked
        locked.transition(AssignmentStatus.REJECTED)
        campaign = locked.hit.campaign
        provider = get_provider(campaign.provider)
        if on_marketplace:
            _marketplace(provider.reject, locked, feedback)
            if provider.has_marketplace:
                locked.marketplace_status = "Rejected"
        locked.feedback = feedback
        locked.rejection_category = category
        locked.decided_at = timezone.now()
        locked.save(update_fields=["status", "feedback", "rejection_category", "decided_at", "marketplace_status"])
        if on_marketplace:
            provider.decisions_recorded(campaign)
    return locked


@dataclass(frozen=True)
class BulkReview:
    approved: int
    flagged: list[int]  # submitted assignments left for a person: their checks raised flags
    failed: dict[int, str]  # assignment id -> why the marketplace refused


def approve_submitted(campaign: Campaign, *, passing_checks_only: bool = False) -> BulkReview:
    """Approve every submitted assignment of a campaign (optionally only those whose checks passed).

    Only confirmed work is approved: on a marketplace, an answer stored from a page visit the marketplace
    has not reported (by a sync) may be forged and has no marketplace assignment to approve."""
    pending = Assignment.objects.filter(hit__campaign=campaign, status=AssignmentStatus.SUBMITTED, confirmed=True)
    flagged: list[int] = []
    failed: dict[int, str] = {}
    approved = 0
    for assignment in pending.order_by("pk").iterator():
        if passing_checks_only and assignment.check_flags:
            flagged.append(assignment.pk)
            continue
        try:
            approve_assignment(assignment, announce=False)
        except ReviewError as exc:
            failed[assignment.pk] = str(exc)
            continue
        approved += 1
    if approved:  # one hand-off for the batch (Prolific approves many submissions in one call)
        get_provider(campaign.provider).decisions_recorded(campaign)
    return BulkReview(approved, flagged, failed)


def grant_bonus(assignment: Assignment, amount: Decimal, reason: str, *, token: str | None = None) -> Bonus:
    """Pay a bonus once: stored with its request token first, then paid (a retry reuses the token).

    `token`: the caller's own request token for this bonus (e.g. a review rule's decision): granting again with the
    same token pays the bonus stored under it, if it is not paid yet, and never stores a second one."""
    if token is not None:
        stored = Bonus.objects.filter(unique_token=token).select_related("assignment__hit__campaign").first()
        if stored is not None:
            return pay_bonus(stored)
    if amount <= 0:
        raise ReviewError("A bonus must be positive.")
    if not reason.strip():
        raise ReviewError("A bonus needs a reason shown to the worker.")
    if assignment.status not in (AssignmentStatus.APPROVED, AssignmentStatus.SUBMITTED):
        raise ReviewError("Bonuses are paid on submitted or approved work only.")
    _require_confirmed(assignment)
    campaign = assignment.hit.campaign
    provider = get_provider(campaign.provider)
    with transaction.atomic():
        Assignment.objects.select_for_update().filter(pk=assignment.pk).first()  # serializes bonuses per assignment
        if campaign.budget_cap is not None:
            total = committed_spend(campaign, provider) + amount + provider.bonus_fee(amount)
            if total > campaign.budget_cap:
                raise ReviewError(f"This bonus would bring the campaign to ${total}, over its budget cap "
                                  f"of ${campaign.budget_cap}.")
        sequence = Bonus.objects.filter(assignment=assignment).count() + 1
        bonus = Bonus.objects.create(
            assignment=assignment, amount=amount, reason=reason.strip(),
            unique_token=token or f"bonus-{assignment.pk}-{sequence}",
        )
    return pay_bonus(bonus)


def pay_bonus(bonus: Bonus) -> Bonus:
    """Pay a stored bonus (again): the provider's request token makes a repeat a no-op."""
    if bonus.paid:
        return bonus
    try:
        get_provider(bonus.assignment.hit.campaign.provider).bonus(bonus)
    except ProviderError as exc:
        raise ReviewError(f"The bonus is recorded but not paid yet: {exc}") from None
    Bonus.objects.filter(pk=bonus.pk).update(paid=True)
    bonus.paid = True
    return bonus


def pay_pending_bonuses(campaign: Campaign) -> int:
    """Retry the campaign's unpaid bonuses (same tokens); one the marketplace refuses does not stop the others."""
    paid = 0
    # A bonus whose payment was requested is never paid again, only confirmed (providers.prolific.bonuses).
    unpaid = (Bonus.objects.filter(assignment__hit__campaign=campaign, paid=False)
              .exclude(state=BonusState.PAY_REQUESTED))
    for bonus in unpaid.select_related(
            "assignment__hit__campaign", "assignment__worker").order_by("pk"):
        try:
            pay_bonus(bonus)
        except ReviewError as exc:
            log.warning("bonus %s of campaign %s is still unpaid: %s", bonus.pk, campaign.pk, exc)
            continue
        paid += 1
    return paid


def set_worker_blocked(worker: Worker, blocked: bool, reason: str = "") -> Worker:
    if blocked and not reason.strip():
        raise ReviewError("Blocking a worker needs a reason.")
    provider = get_provider(worker.provider)
    _marketplace(provider.block if blocked else provider.unblock, worker, reason.strip())
    worker.blocked = blocked
    worker.block_reason = reason.strip() if blocked else ""
    worker.save(update_fields=["blocked", "block_reason"])
    return worker


def message_workers(campaign: Campaign, subject: str, text: str,
                    worker_ids: Sequence[str] | None = None) -> list[str]:
    """Message the campaign's workers (or some of them); returns the ids the message did not reach."""
    if not subject.strip() or not text.strip():
        raise ReviewError("A message needs a subject and a text.")
    known = set(Worker.objects.filter(assignments__hit__campaign=campaign, assignments__confirmed=True)
                .values_list("external_id", flat=True))
    targets = sorted(known) if worker_ids is None else list(worker_ids)
    strangers = sorted(set(targets) - known)
    if strangers:
        raise ReviewError(f"Not workers of this campaign: {', '.join(strangers[:10])}")
    if not targets:
        raise ReviewError("This campaign has no workers to message yet.")
    try:
        return get_provider(campaign.provider).notify(campaign, targets, subject.strip(), text.strip())
    except ProviderError as exc:
        raise ReviewError(str(exc)) from None
