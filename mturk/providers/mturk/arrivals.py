"""A marketplace worker arriving on our task page with the marketplace's ids (MTurk's iframe).

The ids in the URL are not signed by anyone: a visitor who knows a worker's id can forge an arrival.
So each arrival gets its own *unconfirmed* record, keyed by (HIT, worker, marketplace assignment id):
a forged visit never finds, changes or pre-empts the record of the real worker (who arrives with the
real assignment id), and an unconfirmed record counts for nothing (no slot, no eligibility, no
qualification, no pay, no dataset record) until the marketplace reports that assignment (sync or
event notification, services.marketplace_sync.reconcile), which confirms it."""
from __future__ import annotations

import hashlib
import hmac

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from ...models import HIT, Assignment, Campaign, Worker
from ...states import ANSWERED, SLOT_HOLDING, AssignmentStatus, CampaignStatus, HITStatus
from ...work.services.assignments import NoTaskAvailable, get_or_create_worker


def eligibility_problem(campaign: Campaign, hit: HIT, worker: Worker) -> str | None:
    """Why this worker may not take this HIT, or None. The marketplace's qualifications should
    already keep these workers out; this is the check that does not trust them. Only confirmed
    records count: a forged submission under a worker's id never locks the real worker out."""
    if worker.blocked:
        return "You are not eligible for tasks in this campaign."
    others = Assignment.objects.filter(worker=worker, confirmed=True).exclude(hit=hit)
    limit = campaign.max_assignments_per_worker
    if limit is not None and others.filter(hit__campaign=campaign, status__in=SLOT_HOLDING).count() >= limit:
        return f"You have done the maximum of {limit} task(s) in this campaign. Thank you!"
    if hit.group and others.exclude(hit__campaign=campaign).filter(hit__group=hit.group).exists():
        return "You have already worked on this item in another stage, so this task is not for you. Please return it."
    return None


def accept_marketplace_assignment(hit: HIT, worker_external_id: str, assignment_external_id: str) -> Assignment:
    """The record this arrival works on: the worker's confirmed record of the HIT if the marketplace already
    reported one, else the arrival's own unconfirmed record (created, re-opened after a return, or found)."""
    campaign = hit.campaign
    provider = campaign.provider
    confirmed = Assignment.objects.filter(
        hit=hit, worker__provider=provider, worker__external_id=worker_external_id, confirmed=True).first()
    if confirmed is not None:
        return confirmed  # the page offers the hand-off again (to the assignment id it was stored under)
    own = Assignment.objects.filter(
        hit=hit, worker__provider=provider, worker__external_id=worker_external_id,
        external_id=assignment_external_id, confirmed=False).first()
    if own is not None and own.status in ANSWERED:
        return own
    if own is None and campaign.status != CampaignStatus.ACTIVE:
        raise NoTaskAvailable("This campaign is not accepting work at the moment.")
    if hit.status == HITStatus.DISPOSED:
        raise NoTaskAvailable("This task has been removed.")
    worker = own.worker if own is not None else get_or_create_worker(provider, worker_external_id)
    problem = eligibility_problem(campaign, hit, worker)
    if problem:
        raise NoTaskAvailable(problem)
    now = timezone.now()
    try:
        with transaction.atomic():
            locked = Assignment.objects.select_for_update().filter(
                hit=hit, worker=worker, external_id=assignment_external_id, confirmed=False).first()
            if locked is None:
                return Assignment.objects.create(hit=hit, worker=worker, external_id=assignment_external_id,
                                                 confirmed=False, accepted_at=now,
                                                 deadline=Assignment.deadline_for(campaign, now))
            if locked.status in (AssignmentStatus.RETURNED, AssignmentStatus.EXPIRED):
                # accepted again after a return, under the same marketplace id: a new time limit
                locked.transition(AssignmentStatus.ACCEPTED)
                locked.accepted_at, locked.deadline = now, Assignment.deadline_for(campaign, now)
                locked.save(update_fields=["status", "accepted_at", "deadline"])
            return locked
    except IntegrityError:  # two tabs raced to create it
        return Assignment.objects.get(hit=hit, worker=worker, external_id=assignment_external_id, confirmed=False)


def completion_code(assignment: Assignment) -> str:
    """A short code the worker can quote if the hand-off to the marketplace fails."""
    digest = hmac.new(settings.SECRET_KEY.encode(), f"completion:{assignment.pk}".encode(), hashlib.sha256)
    return digest.hexdigest()[:10].upper()
