"""Tasks a worker left: signs of activity from the task page, and giving idle tasks' slots back early.

A local task carries `Assignment.active_until`: the task page's heartbeat (keyboard, pointer, typing: at most one a
minute) moves it TASK_INACTIVITY_SECONDS ahead, and the page's `pagehide` beacon brings it to a minute from now.
An accepted task whose `active_until` has passed is *abandoned* (an explicit transition, accepted -> abandoned):
its HIT's slot is free for the next worker well before the time limit. The next arrival in the campaign and a
periodic job (mturk.tasks.release_idle_tasks) do it.

The worker who left may still come back: a heartbeat takes the task up again while its HIT has a free slot
(abandoned -> accepted), and an answer sent within the time limit is stored in any case (abandoned -> submitted,
services.assignments.submit_answer), once, even if the slot went to another worker meanwhile (both answers are
kept). Marketplace assignments have no `active_until` and are never released here."""
from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from ...models import HIT, Assignment, Campaign
from ...states import ASSIGNMENT_MACHINE, AssignmentStatus, CampaignStatus, HITStatus
from .slots import count_taken_slots, lock_hit, release_accepted, store_taken_slots

# After the page is closed (or reloaded, or left for another page), the task is given back this much later unless
# the page shows activity again (a reload does at once).
PAGE_LEFT_GRACE = timedelta(seconds=60)
RELEASE_BATCH = 100


class Activity(StrEnum):
    ACTIVE = "active"  # the task is the worker's (again)
    RELEASED = "released"  # left, and its slot went to someone else: an answer within the time limit is still kept
    CLOSED = "closed"  # answered, returned, expired or not this worker's: nothing to do


def inactivity() -> timedelta:
    return timedelta(seconds=settings.TASK_INACTIVITY_SECONDS)


def idle_deadline(now: datetime | None = None) -> datetime:
    """When a task that shows activity now is given back if nothing more is heard from its page."""
    return (now or timezone.now()) + inactivity()


def release_idle_assignments(campaign: Campaign | None = None) -> int:
    """Accepted tasks with no activity since their `active_until` give their slot back (accepted -> abandoned),
    as the expiry does for the deadline (services.slots.release_accepted)."""
    ASSIGNMENT_MACHINE.check(AssignmentStatus.ACCEPTED, AssignmentStatus.ABANDONED)
    return release_accepted("active_until", timezone.now(), AssignmentStatus.ABANDONED, campaign, RELEASE_BATCH)


def record_activity(*, assignment_id: int, worker_external_id: str, left: bool = False) -> Activity:
    """A sign from the task page: the worker is active (`left`: the page was closed or left).

    One UPDATE while the task is the worker's; a task already released is taken up again if its HIT still has a
    free slot (under the locks, assignment first, then the HIT)."""
    now = timezone.now()
    until = now + (min(PAGE_LEFT_GRACE, inactivity()) if left else inactivity())
    mine = Assignment.objects.filter(pk=assignment_id, worker__external_id=worker_external_id,
                                     active_until__isnull=False)
    if mine.filter(status=AssignmentStatus.ACCEPTED).update(active_until=until):
        return Activity.ACTIVE
    if left:
        return Activity.CLOSED
    return _take_up_again(assignment_id, worker_external_id, now)


def _take_up_again(assignment_id: int, worker_external_id: str, now: datetime) -> Activity:
    with transaction.atomic():
        assignment = (Assignment.objects.select_for_update(of=("self",)).select_related("hit__campaign", "worker")
                      .filter(pk=assignment_id).first())
        if (assignment is None or assignment.worker.external_id != worker_external_id
                or assignment.status != AssignmentStatus.ABANDONED or assignment.deadline <= now):
            return Activity.CLOSED
        hit = lock_hit(assignment.hit_id)
        taken = count_taken_slots(hit.pk)
        if (hit.status != HITStatus.PUBLISHED or taken >= hit.max_assignments
                or assignment.hit.campaign.status != CampaignStatus.ACTIVE):
            return Activity.RELEASED
        assignment.transition(AssignmentStatus.ACCEPTED)
        assignment.active_until = idle_deadline(now)
        assignment.save(update_fields=["status", "active_until"])
        HIT.objects.filter(pk=hit.pk).update(taken_slots=taken + 1)
    return Activity.ACTIVE


def answered_after_leaving(hit_id: int) -> None:
    """A task answered after it was released holds a slot again: the HIT's counter is recounted (it may now count
    more answers than max_assignments: both are kept). Call in the submission's transaction, after its write."""
    store_taken_slots([hit_id])
