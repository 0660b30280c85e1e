"""The HIT lifecycle on MTurk (services.hits): expire, extend, add assignments, delete when decided."""
from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from botocore.stub import ANY
from django.utils import timezone

from mturk.models import HIT, Campaign
from mturk.services.hits import (
    HITError,
    add_assignments,
    delete_decided_hits,
    delete_hit,
    expire_campaign,
    expire_hit,
    extend_hit,
)
from mturk.states import AssignmentStatus, HITStatus

from .builders import hits_of, local_assignment, published_mturk_campaign
from .helpers import EXPIRE_NOW, operations, record_calls

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign() -> Campaign:
    return published_mturk_campaign(images=2, assignments=3)  # reward 0.10, 3 assignments per HIT


@pytest.fixture
def hit(campaign) -> HIT:
    return hits_of(campaign)[0]


def expired(hit: HIT) -> HIT:
    HIT.objects.filter(pk=hit.pk).update(status=HITStatus.EXPIRED, expires_at=timezone.now() - timedelta(hours=1))
    hit.refresh_from_db()
    return hit


# ---- expire ------------------------------------------------------------------------------------
def test_expire_sets_a_past_expiry_on_mturk(stub, hit):
    calls = record_calls(stub)
    stub.add_response("update_expiration_for_hit", {}, {"HITId": hit.external_id, "ExpireAt": EXPIRE_NOW})
    before = timezone.now()

    expire_hit(hit)
    expire_hit(hit)  # already expired: no second call

    stored = HIT.objects.get(pk=hit.pk)
    assert stored.status == HITStatus.EXPIRED
    assert before <= stored.expires_at <= timezone.now()
    assert operations(calls) == ["update_expiration_for_hit"]


def test_hit_whose_creation_is_queued_expires_locally_without_a_call(stub, campaign):
    queued, on_mturk = hits_of(campaign)
    HIT.objects.filter(pk=queued.pk).update(external_id="", expires_at=None)
    calls = record_calls(stub)
    stub.add_response("update_expiration_for_hit", {}, {"HITId": on_mturk.external_id, "ExpireAt": EXPIRE_NOW})

    assert expire_campaign(campaign) == 2

    assert calls == [("update_expiration_for_hit", {"HITId": on_mturk.external_id, "ExpireAt": EXPIRE_NOW})]
    assert set(campaign.hits.values_list("status", flat=True)) == {HITStatus.EXPIRED}


def test_refused_expiry_leaves_the_hit_published(stub, hit):
    stub.add_client_error("update_expiration_for_hit", service_error_code="RequestError",
                          service_message="Hit does not exist.",
                          modeled_fields={"Message": "Hit does not exist.",
                                          "TurkErrorCode": "AWS.MechanicalTurk.HITDoesNotExist"})

    with pytest.raises(HITError, match="MTurk refused update_expiration_for_hit: Hit does not exist."):
        expire_hit(hit)

    assert HIT.objects.get(pk=hit.pk).status == HITStatus.PUBLISHED


# ---- extend ------------------------------------------------------------------------------------
def test_extend_adds_the_seconds_to_the_current_expiry(stub, hit):
    old_expiry = hit.expires_at
    stub.add_response("update_expiration_for_hit", {},
                      {"HITId": hit.external_id, "ExpireAt": old_expiry + timedelta(seconds=7200)})

    extend_hit(hit, 7200)

    stored = HIT.objects.get(pk=hit.pk)
    assert (stored.status, stored.expires_at) == (HITStatus.PUBLISHED, old_expiry + timedelta(seconds=7200))


def test_extend_reopens_an_expired_hit_from_now(stub, hit):
    expired(hit)
    HIT.objects.filter(pk=hit.pk).update(marketplace_done=True)
    calls = record_calls(stub)
    stub.add_response("update_expiration_for_hit", {}, {"HITId": hit.external_id, "ExpireAt": ANY})
    before = timezone.now()

    extend_hit(hit, 3600)

    stored = HIT.objects.get(pk=hit.pk)
    sent = calls[0][1]["ExpireAt"]
    assert sent == stored.expires_at
    assert before + timedelta(seconds=3600) <= sent <= timezone.now() + timedelta(seconds=3600)
    assert (stored.status, stored.marketplace_done) == (HITStatus.PUBLISHED, False)


@pytest.mark.parametrize("seconds", [59, 365 * 24 * 3600 + 1])
def test_extend_out_of_range_is_refused_without_a_call(stub, hit, seconds):
    calls = record_calls(stub)

    with pytest.raises(HITError, match="Extend by 60 seconds to 365 days"):
        extend_hit(hit, seconds)

    assert calls == []


# ---- add assignments ---------------------------------------------------------------------------
def test_add_assignments_below_the_fee_boundary(stub, hit):
    stub.add_response("create_additional_assignments_for_hit", {}, {
        "HITId": hit.external_id, "NumberOfAdditionalAssignments": 2,
        "UniqueRequestToken": f"t1-more-{hit.pk}-3-2"})

    result = add_assignments(hit, 2)

    assert result.max_assignments == 5 and HIT.objects.get(pk=hit.pk).max_assignments == 5


def test_crossing_ten_assignments_needs_confirmation(stub, hit):
    HIT.objects.filter(pk=hit.pk).update(max_assignments=9)
    calls = record_calls(stub)

    with pytest.raises(HITError) as refused:
        add_assignments(hit, 1)

    message = str(refused.value)
    assert "from $0.02 to $0.04" in message  # 20% then 40% of the $0.10 reward
    assert "would have 10 assignments" in message and "add at most 0 assignment(s)" in message
    assert calls == []
    assert HIT.objects.get(pk=hit.pk).max_assignments == 9


def test_crossing_ten_assignments_with_confirmation_calls_mturk(stub, hit):
    HIT.objects.filter(pk=hit.pk).update(max_assignments=9)
    stub.add_response("create_additional_assignments_for_hit", {}, {
        "HITId": hit.external_id, "NumberOfAdditionalAssignments": 1,
        "UniqueRequestToken": f"t1-more-{hit.pk}-9-1"})

    add_assignments(hit, 1, confirm_fee_increase=True)

    assert HIT.objects.get(pk=hit.pk).max_assignments == 10


def test_confirmed_crossing_counts_the_higher_fee_on_every_assignment_of_the_hit(stub, campaign, hit):
    # committed: (9 + 3) slots x $0.12 = $1.44; at 10 assignments the HIT's fee is $0.04 on all 10:
    # 10 x $0.14 - 9 x $0.12 = $0.32 more (not the $0.12 of one assignment at the old fee)
    HIT.objects.filter(pk=hit.pk).update(max_assignments=9)
    Campaign.objects.filter(pk=campaign.pk).update(budget_cap=Decimal("1.70"))
    calls = record_calls(stub)

    with pytest.raises(HITError, match=r"Adding 1 assignment\(s\) \(\$0.32 with fees\) would cross the budget cap"):
        add_assignments(hit, 1, confirm_fee_increase=True)

    assert calls == [] and HIT.objects.get(pk=hit.pk).max_assignments == 9


def test_mturk_refusing_the_increase_changes_nothing(stub, hit):
    HIT.objects.filter(pk=hit.pk).update(max_assignments=9)
    message = "HITs created with fewer than 10 assignments cannot be extended to have 10 or more assignments."
    stub.add_client_error("create_additional_assignments_for_hit", service_error_code="RequestError",
                          service_message=message,
                          modeled_fields={"Message": message,
                                          "TurkErrorCode": "AWS.MechanicalTurk.InvalidMaximumAssignmentsIncrease"},
                          expected_params={"HITId": hit.external_id, "NumberOfAdditionalAssignments": 1,
                                           "UniqueRequestToken": f"t1-more-{hit.pk}-9-1"})

    with pytest.raises(HITError, match="cannot be extended to have 10 or more"):
        add_assignments(hit, 1, confirm_fee_increase=True)

    assert HIT.objects.get(pk=hit.pk).max_assignments == 9


def test_add_assignments_past_the_budget_cap_is_refused(stub, campaign, hit):
    # 2 HITs x 3 slots x ($0.10 + $0.02 fee) = $0.72 committed; one more slot costs $0.12
    Campaign.objects.filter(pk=campaign.pk).update(budget_cap=Decimal("0.83"))
    calls = record_calls(stub)

    with pytest.raises(HITError, match=r"Adding 1 assignment\(s\) \(\$0.12 with fees\) would cross the budget cap "
                                       r"of \$0.83"):
        add_assignments(hit, 1)

    assert calls == [] and HIT.objects.get(pk=hit.pk).max_assignments == 3


def test_add_assignments_up_to_the_budget_cap_is_allowed(stub, campaign, hit):
    Campaign.objects.filter(pk=campaign.pk).update(budget_cap=Decimal("0.84"))
    stub.add_response("create_additional_assignments_for_hit", {}, {
        "HITId": hit.external_id, "NumberOfAdditionalAssignments": 1,
        "UniqueRequestToken": f"t1-more-{hit.pk}-3-1"})

    assert add_assignments(hit, 1).max_assignments == 4


# ---- delete ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("status", "accepted_ago"), [
    (AssignmentStatus.SUBMITTED, timedelta(minutes=5)),
    (AssignmentStatus.ACCEPTED, timedelta(minutes=5)),  # still within its 10-minute time limit
])
def test_delete_is_refused_while_work_is_undecided(stub, hit, status, accepted_ago):
    expired(hit)
    local_assignment(hit, "W1", "A1", status=AssignmentStatus.APPROVED, confirmed=True)
    local_assignment(hit, "W2", "A2", status=status, accepted_ago=accepted_ago, confirmed=True)
    calls = record_calls(stub)

    with pytest.raises(HITError, match=f"HIT {hit.pk} still has 1 assignment\\(s\\) to decide or in progress"):
        delete_hit(hit)

    assert calls == [] and HIT.objects.get(pk=hit.pk).status == HITStatus.EXPIRED


def test_delete_is_refused_while_the_hit_is_on_offer(stub, hit):
    calls = record_calls(stub)

    with pytest.raises(HITError, match=f"HIT {hit.pk} is still on offer; expire it first"):
        delete_hit(hit)

    assert calls == [] and HIT.objects.get(pk=hit.pk).status == HITStatus.PUBLISHED


def test_delete_when_everything_is_decided(stub, hit):
    expired(hit)
    local_assignment(hit, "W1", "A1", status=AssignmentStatus.APPROVED, confirmed=True)
    local_assignment(hit, "W2", "A2", status=AssignmentStatus.REJECTED, confirmed=True)
    local_assignment(hit, "W3", "A3", status=AssignmentStatus.RETURNED, confirmed=True)
    local_assignment(hit, "W4", "A4", status=AssignmentStatus.ACCEPTED, accepted_ago=timedelta(hours=2),
                     confirmed=True)  # too late
    calls = record_calls(stub)
    stub.add_response("delete_hit", {}, {"HITId": hit.external_id})

    delete_hit(hit)
    delete_hit(hit)  # already disposed: no second call

    stored = HIT.objects.get(pk=hit.pk)
    assert (stored.status, stored.marketplace_done) == (HITStatus.DISPOSED, True)
    assert operations(calls) == ["delete_hit"]


def test_delete_decided_hits_reports_the_skipped_ones(stub, campaign):
    decided, waiting = (expired(h) for h in hits_of(campaign))
    local_assignment(decided, "W1", "A1", status=AssignmentStatus.APPROVED, confirmed=True)
    local_assignment(waiting, "W2", "A2", status=AssignmentStatus.SUBMITTED, confirmed=True)
    calls = record_calls(stub)
    stub.add_response("delete_hit", {}, {"HITId": decided.external_id})

    deleted, skipped = delete_decided_hits(campaign)

    assert deleted == 1
    assert skipped == {waiting.pk: f"HIT {waiting.pk} still has 1 assignment(s) to decide or in progress."}
    assert calls == [("delete_hit", {"HITId": decided.external_id})]
    assert dict(campaign.hits.values_list("pk", "status")) == {decided.pk: HITStatus.DISPOSED,
                                                                waiting.pk: HITStatus.EXPIRED}
