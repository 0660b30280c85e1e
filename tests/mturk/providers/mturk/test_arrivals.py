"""A worker arriving from MTurk's iframe (providers.mturk.arrivals.accept_marketplace_assignment).

Nothing here calls MTurk: the `stub` fixture with no queued responses plus the call log prove it."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from mturk.models import HIT, Assignment, Campaign, Worker
from mturk.providers.mturk.arrivals import accept_marketplace_assignment
from mturk.states import AssignmentStatus, CampaignStatus, HITStatus
from mturk.work.services.assignments import NoTaskAvailable
from tests.factories import GOOD_TEXT

from .builders import hits_of, local_assignment, published_mturk_campaign
from .helpers import record_calls

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign() -> Campaign:
    return published_mturk_campaign(images=2, assignments=3)


@pytest.fixture
def calls(stub):
    log = record_calls(stub)
    yield log
    assert log == []  # arrivals never call MTurk


def test_first_arrival_creates_the_record_and_a_repeat_reuses_it(calls, campaign):
    hit = hits_of(campaign)[0]
    before = timezone.now()

    first = accept_marketplace_assignment(hit, "W1", "A1")
    again = accept_marketplace_assignment(hit, "W1", "A1")

    assert again.pk == first.pk and Assignment.objects.count() == 1
    stored = Assignment.objects.select_related("worker").get()
    assert (stored.status, stored.external_id) == (AssignmentStatus.ACCEPTED, "A1")
    assert (stored.worker.provider, stored.worker.external_id) == ("mturk", "W1")
    assert before <= stored.accepted_at <= timezone.now()
    assert stored.deadline == stored.accepted_at + timedelta(seconds=campaign.time_limit_seconds)


def test_records_are_keyed_by_hit_and_worker_not_by_assignment_id(calls, campaign):
    first_hit, second_hit = hits_of(campaign)

    mine = accept_marketplace_assignment(first_hit, "W1", "A1")
    reused_id = accept_marketplace_assignment(first_hit, "W2", "A1")  # W1 returned it, W2 got the same id
    other_hit = accept_marketplace_assignment(second_hit, "W1", "A7")

    assert len({mine.pk, reused_id.pk, other_hit.pk}) == 3
    assert set(Assignment.objects.values_list("hit_id", "worker__external_id", "external_id")) == {
        (first_hit.pk, "W1", "A1"), (first_hit.pk, "W2", "A1"), (second_hit.pk, "W1", "A7")}


@pytest.mark.parametrize("status", [AssignmentStatus.RETURNED, AssignmentStatus.EXPIRED])
def test_a_returned_or_expired_assignment_accepted_again_under_its_id_reopens_with_a_new_deadline(
        calls, campaign, status):
    hit = hits_of(campaign)[0]
    old = local_assignment(hit, "W1", "A1", status=status, accepted_ago=timedelta(hours=2))

    reopened = accept_marketplace_assignment(hit, "W1", "A1")

    stored = Assignment.objects.get()
    assert reopened.pk == old.pk == stored.pk
    assert (stored.status, stored.external_id, stored.confirmed) == (AssignmentStatus.ACCEPTED, "A1", False)
    assert stored.accepted_at > old.accepted_at + timedelta(hours=1)
    assert stored.deadline == stored.accepted_at + timedelta(seconds=campaign.time_limit_seconds)


def test_an_arrival_under_another_assignment_id_gets_its_own_record_and_leaves_the_first_alone(calls, campaign):
    hit = hits_of(campaign)[0]
    old = local_assignment(hit, "W1", "A1", status=AssignmentStatus.ACCEPTED)

    other = accept_marketplace_assignment(hit, "W1", "A2")

    assert other.pk != old.pk
    assert set(Assignment.objects.values_list("external_id", "status", "confirmed")) == {
        ("A1", AssignmentStatus.ACCEPTED, False), ("A2", AssignmentStatus.ACCEPTED, False)}


def test_blocked_worker_is_refused(calls, campaign):
    Worker.objects.create(provider="mturk", external_id="W1", blocked=True, block_reason="spam")

    with pytest.raises(NoTaskAvailable, match="not eligible"):
        accept_marketplace_assignment(hits_of(campaign)[0], "W1", "A1")

    assert Assignment.objects.count() == 0


def test_worker_over_the_per_worker_limit_is_refused(calls):
    campaign = published_mturk_campaign(images=3, assignments=3, max_assignments_per_worker=1)
    first, second, third = hits_of(campaign)
    local_assignment(first, "W1", "A1", status=AssignmentStatus.SUBMITTED, marketplace_status="Submitted")
    local_assignment(first, "W2", "A2", status=AssignmentStatus.RETURNED, confirmed=True)  # frees the slot

    with pytest.raises(NoTaskAvailable, match=r"maximum of 1 task\(s\) in this campaign"):
        accept_marketplace_assignment(second, "W1", "A3")
    allowed = accept_marketplace_assignment(third, "W2", "A4")

    assert (allowed.hit_id, allowed.status) == (third.pk, AssignmentStatus.ACCEPTED)
    assert not Assignment.objects.filter(hit=second).exists()


def test_worker_who_did_the_same_group_in_another_campaign_is_refused(calls, campaign):
    earlier = published_mturk_campaign(images=1, assignments=3, hit_type_id="3TYPE00000000000000000000000CC",
                                       first_hit=3)
    [earlier_hit] = hits_of(earlier)
    hit = hits_of(campaign)[0]
    HIT.objects.filter(pk__in=[earlier_hit.pk, hit.pk]).update(group="album:3")
    hit.refresh_from_db()
    local_assignment(earlier_hit, "W1", "A1", status=AssignmentStatus.APPROVED, marketplace_status="Approved")

    with pytest.raises(NoTaskAvailable, match="already worked on this item in another stage"):
        accept_marketplace_assignment(hit, "W1", "A2")
    newcomer = accept_marketplace_assignment(hit, "W2", "A3")

    assert newcomer.worker.external_id == "W2"
    assert not Assignment.objects.filter(hit=hit, worker__external_id="W1").exists()


def test_already_answered_returns_the_record_unchanged(calls, campaign):
    hit = hits_of(campaign)[0]
    answered = local_assignment(hit, "W1", "A1", status=AssignmentStatus.SUBMITTED, text=GOOD_TEXT)
    Worker.objects.filter(external_id="W1").update(blocked=True)  # the page still offers the hand-off

    found = accept_marketplace_assignment(hit, "W1", "A1")

    assert found.pk == answered.pk
    stored = Assignment.objects.get()
    assert (stored.status, stored.external_id, stored.answer) == (AssignmentStatus.SUBMITTED, "A1", {"text": GOOD_TEXT})
    assert stored.accepted_at == answered.accepted_at


def test_a_confirmed_record_is_what_any_later_arrival_of_the_worker_finds(calls, campaign):
    hit = hits_of(campaign)[0]
    reported = local_assignment(hit, "W1", "A1", status=AssignmentStatus.SUBMITTED, marketplace_status="Submitted")

    found = accept_marketplace_assignment(hit, "W1", "A9")

    assert found.pk == reported.pk
    assert Assignment.objects.count() == 1


def test_paused_campaign_refuses_newcomers_but_not_workers_already_on_the_hit(calls, campaign):
    hit = hits_of(campaign)[0]
    mine = local_assignment(hit, "W1", "A1", status=AssignmentStatus.ACCEPTED)
    Campaign.objects.filter(pk=campaign.pk).update(status=CampaignStatus.PAUSED)
    hit.refresh_from_db()

    with pytest.raises(NoTaskAvailable, match="not accepting work"):
        accept_marketplace_assignment(hit, "W2", "A2")

    assert accept_marketplace_assignment(hit, "W1", "A1").pk == mine.pk
    assert not Worker.objects.filter(external_id="W2").exists()


def test_disposed_hit_is_refused(calls, campaign):
    hit = hits_of(campaign)[0]
    HIT.objects.filter(pk=hit.pk).update(status=HITStatus.DISPOSED)
    hit.refresh_from_db()

    with pytest.raises(NoTaskAvailable, match="removed"):
        accept_marketplace_assignment(hit, "W1", "A1")



def test_an_open_assignment_past_its_deadline_accepted_again_gets_a_new_deadline(calls, campaign):
    hit = hits_of(campaign)[0]
    local_assignment(hit, "W1", "A1", status=AssignmentStatus.ACCEPTED, accepted_ago=timedelta(hours=2))
    Assignment.objects.update(status=AssignmentStatus.EXPIRED)  # what expire_stale_assignments does

    accept_marketplace_assignment(hit, "W1", "A1")

    stored = Assignment.objects.get()
    assert (stored.external_id, stored.status) == ("A1", AssignmentStatus.ACCEPTED)
    assert stored.deadline > timezone.now()
