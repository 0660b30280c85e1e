"""A marketplace worker arriving on our task page with the marketplace's ids (MTurk's iframe).

The ids in the URL are not signed by anyone: a visitor can forge them. So the HIT must match our
signed HIT token, eligibility is checked on our side, records are keyed by (HIT, worker) with the
assignment id kept alongside, and only work the marketplace later reports (sync) is approved."""
from __future__ import annotations

import hashlib
import hmac

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from ..models import HIT, Assignment, Campaign, Worker
from ..states import ANSWERED, SLOT_HOLDING, AssignmentStatus, CampaignStatus, HITStatus
from .assignments import NoTaskAvailable, get_or_create_worker


def eligibility_problem(campaign: Campaign, hit: HIT, worker: Worker) -> str | None:
    """Why this worker may not take this HIT, or None. The marketplace's qualifications should
    already keep these workers out; this is the check that does not trust them."""
    if worker.blocked:
        return "You are not eligible for tasks in this campaign."
    others = Assignment.objects.filter(worker=worker).exclude(hit=hit)
    limit = campaign.max_assignments_per_worker
    if limit is not None and others.filter(hit__campaign=campaign, status__in=SLOT_HOLDING).count() >= limit:
        return f"You have done the maximum of {limit} task(s) in this campaign. Thank you!"
    if hit.group and others.exclude(hit__campaign=campaign).filter(hit__group=hit.group).exists():
        return "You have already worked on this item in another stage, so this task is not for you. Please return it."
    return None


def accept_marketplace_assignment(hit: HIT, worker_external_id: str, assignment_external_id: str) -> Assignment:
    """Our record of the worker's accepted assignment (created, re-opened after a return, or found)."""
    campaign = hit.campaign
    if campaign.status != CampaignStatus.ACTIVE and not Assignment.objects.filter(
            hit=hit, worker__external_id=worker_external_id).exists():
        raise NoTaskAvailable("This campaign is not accepting work at the moment.")
    if hit.status == HITStatus.DISPOSED:
        raise NoTaskAvailable("This task has been removed.")
    worker = get_or_create_worker(campaign.provider, worker_external_id)
    existing = Assignment.objects.filter(hit=hit, worker=worker).first()
    if existing is not None and existing.status in ANSWERED:
        return existing  # the page offers the hand-off again
    problem = eligibility_problem(campaign, hit, worker)
    if problem:
        raise NoTaskAvailable(problem)
    now = timezone.now()
    try:
        with transaction.atomic():
            locked = Assignment.objects.select_for_update().filter(hit=hit, worker=worker).first()
            if locked is None:
                return Assignment.objects.create(hit=hit, worker=worker, external_id=assignment_external_id,
                                                 accepted_at=now, deadline=Assignment.deadline_for(campaign, now))
            reopened = locked.status in (AssignmentStatus.RETURNED, AssignmentStatus.EXPIRED)
            if reopened:
                locked.transition(AssignmentStatus.ACCEPTED)
            if reopened or locked.external_id != assignment_external_id:
                # accepted again after a return: a new marketplace assignment with its own time limit
                # (a forged visit can change the id too; the sync puts back the one MTurk reports)
                locked.external_id = assignment_external_id
                locked.accepted_at, locked.deadline = now, Assignment.deadline_for(campaign, now)
                locked.save(update_fields=["status", "accepted_at", "deadline", "external_id"])
            return locked
    except IntegrityError:  # two tabs raced to create it
        return Assignment.objects.get(hit=hit, worker=worker)


def completion_code(assignment: Assignment) -> str:
    """A short code the worker can quote if the hand-off to the marketplace fails."""
    digest = hmac.new(settings.SECRET_KEY.encode(), f"completion:{assignment.pk}".encode(), hashlib.sha256)
    return digest.hexdigest()[:10].upper()
