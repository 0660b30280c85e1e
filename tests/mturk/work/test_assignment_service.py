"""Giving workers their next HIT: eligibility, slots, limits, stale assignments."""
from datetime import timedelta

import pytest
from django.utils import timezone

from mturk.models import Assignment
from mturk.services.campaigns import set_campaign_status
from mturk.states import AssignmentStatus, CampaignStatus
from mturk.work.services.assignments import NoTaskAvailable, assign_next_hit, expire_stale_assignments, new_local_worker
from tests.factories import make_campaign

pytestmark = pytest.mark.django_db


def submit_directly(assignment: Assignment) -> None:
    assignment.transition(AssignmentStatus.SUBMITTED)
    assignment.answer = {"text": "x"}
    assignment.save()


def test_worker_gets_each_hit_at_most_once_then_is_told_none_left():
    campaign = make_campaign(images=3, assignments=2)
    worker = new_local_worker()
    seen = []
    for _ in range(3):
        assignment = assign_next_hit(campaign, worker)
        seen.append(assignment.hit_id)
        submit_directly(assignment)
    assert len(set(seen)) == 3
    with pytest.raises(NoTaskAvailable, match="no task left"):
        assign_next_hit(campaign, worker)


def test_open_assignment_is_resumed_not_duplicated():
    campaign = make_campaign(images=3)
    worker = new_local_worker()
    first = assign_next_hit(campaign, worker)
    again = assign_next_hit(campaign, worker)
    assert first.pk == again.pk
    assert Assignment.objects.count() == 1


def test_full_hits_are_not_given_out():
    campaign = make_campaign(images=1, assignments=2)
    for _ in range(2):
        assign_next_hit(campaign, new_local_worker())
    with pytest.raises(NoTaskAvailable):
        assign_next_hit(campaign, new_local_worker())


def test_work_is_spread_over_hits_with_fewest_taken_slots():
    campaign = make_campaign(images=3, assignments=3)
    hits = [assign_next_hit(campaign, new_local_worker()).hit_id for _ in range(3)]
    assert len(set(hits)) == 3


def test_stale_assignment_frees_its_slot():
    campaign = make_campaign(images=1, assignments=1)
    stale = assign_next_hit(campaign, new_local_worker())
    Assignment.objects.filter(pk=stale.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    fresh = assign_next_hit(campaign, new_local_worker())
    stale.refresh_from_db()
    assert stale.status == AssignmentStatus.EXPIRED
    assert fresh.hit_id == stale.hit_id
    assert expire_stale_assignments() == 0


def test_blocked_worker_gets_nothing():
    campaign = make_campaign(images=2)
    worker = new_local_worker()
    worker.blocked = True
    worker.save()
    with pytest.raises(NoTaskAvailable, match="not eligible"):
        assign_next_hit(campaign, worker)


def test_per_worker_limit():
    campaign = make_campaign(images=3, max_assignments_per_worker=1)
    worker = new_local_worker()
    submit_directly(assign_next_hit(campaign, worker))
    with pytest.raises(NoTaskAvailable, match="maximum of 1"):
        assign_next_hit(campaign, worker)


def test_paused_or_draft_campaign_gives_nothing():
    draft = make_campaign(images=1, publish=False)
    with pytest.raises(NoTaskAvailable, match="not accepting work"):
        assign_next_hit(draft, new_local_worker())
    live = make_campaign(images=1)
    set_campaign_status(live, CampaignStatus.PAUSED)
    live.refresh_from_db()
    with pytest.raises(NoTaskAvailable, match="not accepting work"):
        assign_next_hit(live, new_local_worker())


def test_a_new_worker_is_created_only_with_a_task():
    from mturk.models import Worker
    from mturk.work.services.assignments import start_local_task

    campaign = make_campaign(images=1, assignments=1)
    first = start_local_task(campaign, None)
    assert Worker.objects.count() == 1 and first.worker.provider == "local"
    with pytest.raises(NoTaskAvailable, match="no task left"):
        start_local_task(campaign, None)
    assert Worker.objects.count() == 1


def test_return_frees_the_slot_and_the_worker_never_gets_that_hit_again():
    from mturk.work.services.assignments import ReturnRefused, return_assignment

    campaign = make_campaign(images=1, assignments=1)
    worker = new_local_worker()
    taken = assign_next_hit(campaign, worker)
    with pytest.raises(ReturnRefused) as refused:
        return_assignment(assignment_id=taken.pk, worker_external_id="L-SOMEONE-ELSE")
    assert refused.value.status_code == 403
    returned = return_assignment(assignment_id=taken.pk, worker_external_id=worker.external_id)
    assert returned.status == AssignmentStatus.RETURNED
    with pytest.raises(NoTaskAvailable):
        assign_next_hit(campaign, worker)
    other = assign_next_hit(campaign, new_local_worker())
    assert other.hit_id == taken.hit_id


def test_an_answered_task_is_not_returned():
    from mturk.work.services.assignments import ReturnRefused, return_assignment

    campaign = make_campaign(images=1)
    worker = new_local_worker()
    taken = assign_next_hit(campaign, worker)
    submit_directly(taken)
    with pytest.raises(ReturnRefused, match="submitted and can no longer be returned") as refused:
        return_assignment(assignment_id=taken.pk, worker_external_id=worker.external_id)
    assert refused.value.status_code == 409
