"""Writes on the worker side: give a worker their next HIT, store a submitted answer."""
from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Avg, Count, Exists, OuterRef, Q
from django.utils import timezone
from rest_framework import serializers

from common.observability.metrics import SUBMISSIONS

from ...models import HIT, Assignment, Campaign, Worker
from ...providers.registry import get_provider, own_crowd
from ...selectors.compiled_query import CompiledQuery, CompiledUpdate
from ...services.gold import score_submission, with_flags
from ...states import ANSWERED, LIMIT_COUNTED, AssignmentStatus, CampaignStatus, HITStatus
from ...task_kinds import get_task_kind
from .activity import answered_after_leaving, idle_deadline, release_idle_assignments
from .slots import (
    candidate_hits,
    count_taken_slots,
    groups_done_elsewhere,
    lock_hit,
    pilot_candidates,
    release_accepted,
    store_taken_slots,
)


class NoTaskAvailable(Exception):
    """No HIT can be given to this worker; the message says why, for the worker."""


@dataclass
class SubmissionError(Exception):
    status_code: int
    message: str
    errors: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class SubmissionResult:
    assignment: Assignment
    created: bool


def new_local_worker() -> Worker:
    """A pseudonymous worker for the local crowd."""
    return Worker.objects.create(provider=own_crowd().name, external_id="L" + secrets.token_hex(8).upper())


def get_or_create_worker(provider: str, external_id: str) -> Worker:
    worker, _ = Worker.objects.get_or_create(provider=provider, external_id=external_id)
    return worker


EXPIRY_BATCH = 100
# A submission sent just before the deadline may arrive a little after it (a slow network): it is still taken.
LATE_SUBMISSION_GRACE = timedelta(seconds=30)


def expire_stale_assignments(campaign: Campaign | None = None) -> int:
    """Accepted assignments past their deadline give their slot back (accepted -> expired; services.slots)."""
    return release_accepted("deadline", timezone.now(), AssignmentStatus.EXPIRED, campaign, EXPIRY_BATCH)


def assign_next_hit(campaign: Campaign, worker: Worker, *, expire: bool = True, external_id: str = "",
                    active_until: datetime | None = None) -> Assignment:
    """The worker's open assignment in this campaign, or a new one on the next eligible HIT.

    Eligible: HIT published, not already done by this worker, not full, not of a group (an album)
    the worker took in another campaign (a worker never does two stages of one album); worker not
    blocked and under the campaign's per-worker limit. Open pilot HITs come first, by position
    (services.pilot); then HITs with the fewest taken slots, then by position. Every statement reads an index
    for this worker or these HITs (services.slots), so the cost does not grow with the campaign.
    `expire=False`: the caller has just expired the campaign's
    overdue assignments in a transaction of its own. `external_id`: the marketplace's id the new assignment is
    done under (a Prolific submission id: the worker's open assignment is returned only if it has that id).
    `active_until`: a new assignment is released when idle by then (services.activity; local work). The worker's
    open assignment is also one they left within its time limit (the page takes it up again if it can)."""
    if campaign.status != CampaignStatus.ACTIVE:
        raise NoTaskAvailable("This campaign is not accepting work at the moment.")
    if worker.blocked:
        raise NoTaskAvailable("You are not eligible for tasks in this campaign.")
    if expire:
        expire_stale_assignments(campaign)
    mine = Assignment.objects.filter(hit__campaign=campaign, worker=worker, confirmed=True)
    open_one = (mine.filter(Q(status=AssignmentStatus.ACCEPTED)
                            | Q(status=AssignmentStatus.ABANDONED, deadline__gt=timezone.now()),
                            external_id=external_id).select_related("hit").first())
    if open_one is not None:
        return open_one
    if campaign.onboarding_items:
        onboarding = _onboarding_hit(campaign, worker)
        if onboarding is not None:
            assignment = _take_slot(onboarding, campaign, worker, external_id, active_until)
            if assignment is not None:
                return assignment
            raise NoTaskAvailable("The qualifying task could not be started; please try again.")
        mine = mine.filter(hit__onboarding=False)
    limit = campaign.max_assignments_per_worker
    if limit is not None and mine.filter(status__in=LIMIT_COUNTED).count() >= limit:
        raise NoTaskAvailable(f"You have done the maximum of {limit} tasks in this campaign. Thank you!")
    for hit_id in _candidates(campaign, worker):
        assignment = _take_slot(hit_id, campaign, worker, external_id, active_until)
        if assignment is not None:
            return assignment
    raise NoTaskAvailable("There is no task left for you in this campaign. Thank you for your work!")


def _candidates(campaign: Campaign, worker: Worker) -> Iterator[int]:
    """The HITs the worker may take, in the order they are tried: the campaign's open pilot HITs first, by position,
    so workers overlap on the same items (services.pilot), then the others, fewest taken slots first (services.slots).
    Each is a slot taken the same way; the second read is made only if no pilot HIT was taken."""
    skip_groups = groups_done_elsewhere(campaign, worker)
    if campaign.pilot_items:
        yield from pilot_candidates(campaign, worker, 20, skip_groups).values_list("pk", flat=True)
    yield from candidate_hits(campaign, worker, 20, skip_groups).values_list("pk", flat=True)


def _onboarding_hit(campaign: Campaign, worker: Worker) -> int | None:
    """The onboarding HIT the worker does next (None: the worker has qualified). Two statements: the worker's
    answered onboarding tasks with their mean score, then, if fewer than the campaign's onboarding items, the
    first onboarding HIT the worker has no record of. Raises NoTaskAvailable for a worker who did them all
    without reaching Campaign.onboarding_pass, or who can no longer do them all (one was returned or
    expired)."""
    done = Assignment.objects.filter(hit__campaign=campaign, hit__onboarding=True, worker=worker, confirmed=True,
                                     status__in=ANSWERED).aggregate(n=Count("pk"), mean=Avg("gold_score"))
    if done["n"] >= campaign.onboarding_items:
        if done["mean"] is None or done["mean"] < campaign.onboarding_pass:
            raise NoTaskAvailable(
                "Thank you for doing the qualifying tasks. Your answers did not match what this campaign needs "
                "closely enough, so it cannot offer you more tasks. We appreciate your time."
            )
        return None
    done_by_worker = Assignment.objects.filter(hit=OuterRef("pk"), worker=worker)
    next_id = (HIT.objects.filter(campaign=campaign, onboarding=True, status=HITStatus.PUBLISHED)
               .exclude(Exists(done_by_worker)).order_by("position", "id").values_list("pk", flat=True).first())
    if next_id is None:
        raise NoTaskAvailable(
            "This campaign asks every worker to complete its qualifying tasks first, and one of yours was returned "
            "or ran out of time, so it cannot offer you more tasks. Thank you for your interest."
        )
    return next_id


class _NoSlot(Exception):
    """The locked HIT has no free slot: leaving the savepoint by this exception releases its row lock."""


def _take_slot(hit_id: int, campaign: Campaign, worker: Worker, external_id: str,
               active_until: datetime | None) -> Assignment | None:
    """Create the assignment if the HIT (locked) still has a free slot, and count the slot taken.

    `active_until`: when the new assignment is released if idle (services.activity; None: never, marketplace work),
    given by every caller, so no kind of HIT (onboarding, pilot, ordinary) is taken without it.

    Whether a slot is free is decided by a recount under the lock, not by the counter the candidates
    were chosen by, and the counter is stored from it (see services.slots). A HIT found without a slot
    is unlocked at once (its savepoint rolled back), so an arrival trying its next candidate holds no
    other HIT's lock while it waits (arrivals lock candidates in slot order, expiry in id order)."""
    try:
        with transaction.atomic():
            hit = lock_hit(hit_id)
            taken = count_taken_slots(hit_id)
            if hit.status != HITStatus.PUBLISHED or taken >= hit.max_assignments:
                if hit.taken_slots == taken:
                    raise _NoSlot
                HIT.objects.filter(pk=hit_id).update(taken_slots=taken)  # a change made around the services
                return None
            assignment = Assignment.objects.create(
                hit=hit, worker=worker, external_id=external_id, deadline=Assignment.deadline_for(campaign),
                active_until=active_until,
            )
            HIT.objects.filter(pk=hit_id).update(taken_slots=taken + 1)
            return assignment
    except _NoSlot:
        return None
    except IntegrityError:  # the same worker raced for this HIT in another request
        return Assignment.objects.filter(hit_id=hit_id, worker=worker).first()


# The submission's one read: the assignment locked, with its HIT, campaign and worker (compiled once per thread).
LOCKED_FOR_SUBMISSION: CompiledQuery[Assignment] = CompiledQuery(
    lambda pk: Assignment.objects.select_for_update(of=("self",))
    .select_related("hit__campaign", "hit__gold_item", "worker").filter(pk=pk))


# ... and its one write (built once, values prepared by their fields).
STORE_SUBMISSION = CompiledUpdate(Assignment, ("answer", "status", "submitted_at", "time_on_task", "check_flags",
                                              "gold_score"))


def submit_answer(*, assignment_id: int, worker_external_id: str, answer: Any) -> SubmissionResult:
    """Validate and store a worker's answer exactly once.

    A double click, a retry or concurrent requests for the same assignment store one answer:
    the assignment row is read and locked in one statement (with its HIT, campaign and worker), and a
    second submission finds it already answered. A task the worker left (abandoned: its slot may have gone to
    another worker) is still answered within its time limit, once; its HIT's slots are recounted. The HIT's page
    payload is built only for kinds whose validation reads it (TaskKind.answer_needs_payload)."""
    with transaction.atomic():
        assignment = LOCKED_FOR_SUBMISSION.first(assignment_id)
        if assignment is None:
            raise SubmissionError(404, "This assignment does not exist.")
        if assignment.worker.external_id != worker_external_id:
            raise SubmissionError(403, "This assignment belongs to another worker.")
        if assignment.status in ANSWERED:
            return SubmissionResult(assignment, created=False)
        hit = assignment.hit
        campaign = hit.campaign
        kind = get_task_kind(campaign.task_kind)
        payload = kind.build_payloads(campaign, [hit])[hit.pk] if kind.answer_needs_payload else {}
        try:
            cleaned = kind.validate(campaign, payload, answer)
        except serializers.ValidationError as exc:
            errors = exc.detail if isinstance(exc.detail, dict) else {"answer": exc.detail}
            raise SubmissionError(400, "The answer is not valid.", errors) from None
        if assignment.status not in (AssignmentStatus.ACCEPTED, AssignmentStatus.ABANDONED):
            raise SubmissionError(
                409, f"This task was {assignment.get_status_display().lower()} and can no longer be submitted."
            )
        now = timezone.now()
        if now > assignment.deadline + LATE_SUBMISSION_GRACE:
            # The slot is given back by the expiry (next arrival or sync), which frees it under the HIT's lock.
            raise SubmissionError(409, "The time for this task ran out, so it can no longer be submitted.")
        left = assignment.status == AssignmentStatus.ABANDONED
        assignment.answer = cleaned
        assignment.transition(AssignmentStatus.SUBMITTED)
        assignment.submitted_at = now
        assignment.time_on_task = now - assignment.accepted_at
        assignment.check_flags = kind.hit_checks(campaign, hit, cleaned)
        assignment.gold_score, gold_flags = score_submission(campaign, hit, cleaned)
        assignment.check_flags = with_flags(assignment.check_flags, gold_flags)
        STORE_SUBMISSION.run(assignment)
        if left:
            answered_after_leaving(hit.pk)
    SUBMISSIONS.labels(task_kind=campaign.task_kind).inc()
    return SubmissionResult(assignment, created=True)



@dataclass
class ReturnRefused(Exception):
    status_code: int
    message: str

    def __str__(self) -> str:
        return self.message


def open_assignment(campaign: Campaign, worker: Worker) -> Assignment | None:
    """The worker's accepted (or left) and not yet overdue assignment in this campaign, if any (takes nothing)."""
    return (
        Assignment.objects.filter(hit__campaign=campaign, worker=worker, confirmed=True, deadline__gt=timezone.now(),
                                  status__in=(AssignmentStatus.ACCEPTED, AssignmentStatus.ABANDONED))
        .order_by("accepted_at").first()
    )


def start_local_task(campaign: Campaign, worker: Worker | None) -> Assignment:
    """A local worker's explicit start: their open assignment or a new one on the next eligible HIT.

    `worker` None: a new pseudonymous worker, created in the same transaction as the slot, so a start
    that gets no task (NoTaskAvailable) leaves no worker row behind. Overdue assignments are expired
    first and committed: a transaction holding those rows and HITs while it waits for the lock of the
    HIT it takes could deadlock with another expiry. Tasks left idle are released the same way (services.activity),
    and the new task is released in turn if its page shows no activity (providers that release idle tasks)."""
    expire_stale_assignments(campaign)
    releases = get_provider(campaign.provider).releases_idle_tasks
    if releases:
        release_idle_assignments(campaign)
    with transaction.atomic():
        return assign_next_hit(campaign, worker if worker is not None else new_local_worker(), expire=False,
                               active_until=idle_deadline() if releases else None)


def return_assignment(*, assignment_id: int, worker_external_id: str) -> Assignment:
    """The worker gives the task back (accepted -> returned): its slot is free for others at once.

    The returned record stays, so the same worker is not handed this HIT again. Returning twice is
    harmless; an answered or expired task cannot be returned (ReturnRefused says why)."""
    with transaction.atomic():
        assignment = (
            Assignment.objects.select_for_update(of=("self",)).select_related("hit__campaign", "worker")
            .filter(pk=assignment_id).first()
        )
        if assignment is None:
            raise ReturnRefused(404, "This task does not exist.")
        if assignment.worker.external_id != worker_external_id:
            raise ReturnRefused(403, "This task does not belong to you.")
        if assignment.status == AssignmentStatus.RETURNED:
            return assignment
        if assignment.status not in (AssignmentStatus.ACCEPTED, AssignmentStatus.ABANDONED):
            raise ReturnRefused(
                409, f"This task was {assignment.get_status_display().lower()} and can no longer be returned."
            )
        assignment.transition(AssignmentStatus.RETURNED)
        assignment.save(update_fields=["status"])
        store_taken_slots([assignment.hit_id])
    return assignment
