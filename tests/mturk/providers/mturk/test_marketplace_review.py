"""Review, payment, blocking and messaging on MTurk (services.review through MTurkProvider), offline."""
from __future__ import annotations

from decimal import Decimal

import pytest

from annotation.models import Description
from mturk.models import Assignment, Bonus, Worker
from mturk.services.review import (
    BulkReview,
    ReviewError,
    approve_assignment,
    approve_submitted,
    grant_bonus,
    message_workers,
    pay_bonus,
    pay_pending_bonuses,
    reject_assignment,
    set_worker_blocked,
)
from mturk.states import AssignmentStatus

from .builders import hits_of, local_assignment, published_mturk_campaign
from .helpers import (
    INVALID_ASSIGNMENT_STATE,
    add_request_error,
    add_throttling,
    operations,
    record_calls,
    stub_balance,
    stub_get_assignment,
)

pytestmark = pytest.mark.django_db

NOT_SUBMITTED = "This operation can be called with a status of: Submitted"
TOKEN_USED = "The value of the UniqueRequestToken you specified has already been used."


@pytest.fixture
def campaign():
    return published_mturk_campaign(images=2)


@pytest.fixture
def submitted(campaign) -> Assignment:
    return local_assignment(hits_of(campaign)[0], "W1", "A1", status=AssignmentStatus.SUBMITTED,
                            marketplace_status="Submitted")


@pytest.fixture
def approved(campaign) -> Assignment:
    return local_assignment(hits_of(campaign)[0], "W1", "A1", status=AssignmentStatus.APPROVED,
                            marketplace_status="Approved")


def bonus_params(assignment: Assignment, amount: str, reason: str, sequence: int = 1) -> dict:
    return {"WorkerId": assignment.worker.external_id, "BonusAmount": amount, "AssignmentId": assignment.external_id,
            "Reason": reason, "UniqueRequestToken": f"t1-bonus-{assignment.pk}-{sequence}"}


# ---- approve and reject --------------------------------------------------------------------------
def test_approve_sends_the_assignment_id_and_feedback(stub, submitted):
    stub.add_response("approve_assignment", {}, {"AssignmentId": "A1", "RequesterFeedback": "Great detail!"})

    result = approve_assignment(submitted, "Great detail!")

    stored = Assignment.objects.get(pk=submitted.pk)
    assert (result.status, stored.status) == (AssignmentStatus.APPROVED, AssignmentStatus.APPROVED)
    assert (stored.feedback, stored.auto_approved) == ("Great detail!", False)
    assert stored.decided_at is not None
    assert Description.objects.get().assignment_id == submitted.pk


def test_approve_without_feedback_sends_only_the_assignment_id(stub, submitted):
    calls = record_calls(stub)
    stub.add_response("approve_assignment", {}, {"AssignmentId": "A1"})

    approve_assignment(submitted)
    approve_assignment(submitted)  # already approved here: no second call

    assert calls == [("approve_assignment", {"AssignmentId": "A1"})]


def test_approve_retries_throttling_then_succeeds(stub, sleeps, submitted):
    add_throttling(stub, "approve_assignment", {"AssignmentId": "A1"})
    stub.add_response("approve_assignment", {}, {"AssignmentId": "A1"})

    approve_assignment(submitted)

    assert Assignment.objects.get(pk=submitted.pk).status == AssignmentStatus.APPROVED
    assert len(sleeps) == 1 and 0.5 <= sleeps[0] <= 0.75


def test_already_approved_on_mturk_counts_as_success(stub, submitted):
    calls = record_calls(stub)
    add_request_error(stub, "approve_assignment", NOT_SUBMITTED, INVALID_ASSIGNMENT_STATE, {"AssignmentId": "A1"})
    stub_get_assignment(stub, "A1", "Approved")

    approve_assignment(submitted)

    assert operations(calls) == ["approve_assignment", "get_assignment"]
    stored = Assignment.objects.get(pk=submitted.pk)
    assert (stored.status, stored.auto_approved) == (AssignmentStatus.APPROVED, False)
    assert Description.objects.count() == 1


def test_refused_approval_still_submitted_on_mturk_changes_nothing(stub, submitted):
    add_request_error(stub, "approve_assignment", NOT_SUBMITTED, INVALID_ASSIGNMENT_STATE,
                      {"AssignmentId": "A1", "RequesterFeedback": "Nice"})
    stub_get_assignment(stub, "A1", "Submitted")

    with pytest.raises(ReviewError, match=f"MTurk refused approve_assignment: {NOT_SUBMITTED}"):
        approve_assignment(submitted, "Nice")

    stored = Assignment.objects.get(pk=submitted.pk)
    assert (stored.status, stored.feedback, stored.decided_at) == (AssignmentStatus.SUBMITTED, "", None)
    assert Description.objects.count() == 0


@pytest.mark.parametrize("feedback", ["", "   \n"])
def test_reject_without_feedback_is_refused_locally_without_any_call(stub, submitted, feedback):
    calls = record_calls(stub)

    with pytest.raises(ReviewError, match="Rejecting needs a feedback text"):
        reject_assignment(submitted, feedback)

    assert calls == []
    assert Assignment.objects.get(pk=submitted.pk).status == AssignmentStatus.SUBMITTED


def test_reject_sends_the_feedback(stub, submitted):
    stub.add_response("reject_assignment", {}, {"AssignmentId": "A1",
                                                "RequesterFeedback": "The text describes another picture."})

    reject_assignment(submitted, "  The text describes another picture.  ")

    stored = Assignment.objects.get(pk=submitted.pk)
    assert (stored.status, stored.feedback) == (AssignmentStatus.REJECTED, "The text describes another picture.")
    assert Description.objects.count() == 0


def test_approving_a_rejected_assignment_overrides_the_rejection(stub, campaign):
    rejected = local_assignment(hits_of(campaign)[0], "W1", "A1", status=AssignmentStatus.REJECTED,
                                marketplace_status="Rejected")
    stub.add_response("approve_assignment", {}, {"AssignmentId": "A1", "RequesterFeedback": "Sorry, our mistake.",
                                                 "OverrideRejection": True})

    approve_assignment(rejected, "Sorry, our mistake.")

    assert Assignment.objects.get(pk=rejected.pk).status == AssignmentStatus.APPROVED


def test_bulk_approval_only_approves_marketplace_reported_work_and_reports_failures(stub, campaign):
    first, second = hits_of(campaign)
    reported = local_assignment(first, "W1", "A1", status=AssignmentStatus.SUBMITTED, marketplace_status="Submitted")
    page_only = local_assignment(first, "W2", "A2", status=AssignmentStatus.SUBMITTED)  # no marketplace record
    refused = local_assignment(second, "W3", "A3", status=AssignmentStatus.SUBMITTED, marketplace_status="Submitted")
    flagged = local_assignment(second, "W4", "A4", status=AssignmentStatus.SUBMITTED, marketplace_status="Submitted",
                               check_flags=["repeated_words"])
    calls = record_calls(stub)
    stub.add_response("approve_assignment", {}, {"AssignmentId": "A1"})
    add_request_error(stub, "approve_assignment", "Assignment A3 does not exist.",
                      "AWS.MechanicalTurk.AssignmentDoesNotExist", {"AssignmentId": "A3"})
    stub_get_assignment(stub, "A3", "Submitted", worker_id="W3")
    stub.add_response("approve_assignment", {}, {"AssignmentId": "A4"})

    result = approve_submitted(campaign)

    assert result == BulkReview(approved=2, flagged=[],
                                failed={refused.pk: "MTurk refused approve_assignment: Assignment A3 does not exist."})
    assert "A2" not in [params.get("AssignmentId") for _, params in calls]
    status = dict(Assignment.objects.values_list("pk", "status"))
    assert status == {reported.pk: "approved", page_only.pk: "submitted", refused.pk: "submitted",
                      flagged.pk: "approved"}


def test_bulk_approval_of_passing_work_leaves_flagged_work(stub, campaign):
    first, _ = hits_of(campaign)
    passing = local_assignment(first, "W1", "A1", status=AssignmentStatus.SUBMITTED, marketplace_status="Submitted")
    flagged = local_assignment(first, "W2", "A2", status=AssignmentStatus.SUBMITTED, marketplace_status="Submitted",
                               check_flags=["mostly_uppercase"])
    stub.add_response("approve_assignment", {}, {"AssignmentId": "A1"})

    result = approve_submitted(campaign, passing_checks_only=True)

    assert result == BulkReview(approved=1, flagged=[flagged.pk], failed={})
    assert Assignment.objects.get(pk=passing.pk).status == AssignmentStatus.APPROVED
    assert Assignment.objects.get(pk=flagged.pk).status == AssignmentStatus.SUBMITTED


# ---- bonuses -----------------------------------------------------------------------------------
def test_bonus_checks_the_balance_then_sends_it_with_a_token(stub, approved):
    calls = record_calls(stub)
    stub_balance(stub, "10.00")
    stub.add_response("send_bonus", {}, bonus_params(approved, "0.50", "Excellent detail"))
    stub_balance(stub, "9.40")
    stub.add_response("send_bonus", {}, bonus_params(approved, "0.25", "And another", sequence=2))

    first = grant_bonus(approved, Decimal("0.50"), "  Excellent detail ")
    second = grant_bonus(approved, Decimal("0.25"), "And another")

    assert operations(calls) == ["get_account_balance", "send_bonus", "get_account_balance", "send_bonus"]
    assert (first.unique_token, first.paid) == (f"bonus-{approved.pk}-1", True)
    assert (second.unique_token, second.paid) == (f"bonus-{approved.pk}-2", True)
    assert list(Bonus.objects.order_by("pk").values_list("amount", "paid")) == [
        (Decimal("0.50"), True), (Decimal("0.25"), True)]


def test_bonus_over_the_balance_is_refused_and_recorded_unpaid(stub, approved):
    calls = record_calls(stub)
    stub_balance(stub, "0.59")  # 0.50 + 0.10 fee = 0.60 needed

    with pytest.raises(ReviewError, match=r"recorded but not paid yet: the MTurk balance is \$0.59; "
                                          r"this bonus needs \$0.60 with fees"):
        grant_bonus(approved, Decimal("0.50"), "Excellent detail")

    assert operations(calls) == ["get_account_balance"]
    bonus = Bonus.objects.get()
    assert (bonus.amount, bonus.paid, bonus.unique_token) == (Decimal("0.50"), False, f"bonus-{approved.pk}-1")


def test_bonus_throttled_then_token_already_used_counts_as_paid(stub, sleeps, approved):
    params = bonus_params(approved, "0.50", "Excellent detail")
    calls = record_calls(stub)
    stub_balance(stub, "10.00")
    add_throttling(stub, "send_bonus", params)
    add_request_error(stub, "send_bonus", TOKEN_USED, "AWS.MechanicalTurk.DuplicateRequest", params)

    bonus = grant_bonus(approved, Decimal("0.50"), "Excellent detail")

    assert bonus.paid is True and Bonus.objects.get().paid is True
    assert operations(calls) == ["get_account_balance", "send_bonus", "send_bonus"]
    assert len(sleeps) == 1


def test_bonus_refused_for_another_reason_stays_unpaid(stub, approved):
    stub_balance(stub, "10.00")
    add_request_error(stub, "send_bonus", "The worker W1 is not valid.", "AWS.MechanicalTurk.InvalidWorker",
                      bonus_params(approved, "0.50", "Excellent detail"))

    with pytest.raises(ReviewError, match="The worker W1 is not valid."):
        grant_bonus(approved, Decimal("0.50"), "Excellent detail")

    assert Bonus.objects.get().paid is False


def test_pending_bonus_is_retried_with_the_same_token(stub, approved, settings):
    params = bonus_params(approved, "0.50", "Excellent detail")
    calls = record_calls(stub)
    stub_balance(stub, "10.00")
    for _ in range(settings.MTURK_MAX_ATTEMPTS):  # MTurk is down: our retries give up
        stub.add_client_error("send_bonus", service_error_code="ServiceFault", service_message="Internal error",
                              http_status_code=500, expected_params=params,
                              modeled_fields={"Message": "Internal error", "TurkErrorCode": "ServiceFault"})
    with pytest.raises(ReviewError, match="not paid yet"):
        grant_bonus(approved, Decimal("0.50"), "Excellent detail")
    assert Bonus.objects.get().paid is False

    stub_balance(stub, "10.00")
    stub.add_response("send_bonus", {}, params)
    assert pay_pending_bonuses(approved.hit.campaign) == 1

    assert Bonus.objects.get().paid is True
    tokens = {p["UniqueRequestToken"] for name, p in calls if name == "send_bonus"}
    assert tokens == {f"t1-bonus-{approved.pk}-1"}
    assert operations(calls).count("send_bonus") == settings.MTURK_MAX_ATTEMPTS + 1


def test_pending_bonuses_keep_going_past_a_refused_one(stub, campaign):
    first = local_assignment(hits_of(campaign)[0], "W1", "A1", status=AssignmentStatus.APPROVED)
    second = local_assignment(hits_of(campaign)[1], "W2", "A2", status=AssignmentStatus.APPROVED)
    big = Bonus.objects.create(assignment=first, amount=Decimal("5.00"), reason="Big", unique_token="bonus-x-1")
    small = Bonus.objects.create(assignment=second, amount=Decimal("0.10"), reason="Small", unique_token="bonus-y-1")
    stub_balance(stub, "1.00")  # too little for 5.00 + fee
    stub_balance(stub, "1.00")
    stub.add_response("send_bonus", {}, {"WorkerId": "W2", "BonusAmount": "0.10", "AssignmentId": "A2",
                                         "Reason": "Small", "UniqueRequestToken": "t1-bonus-y-1"})

    assert pay_pending_bonuses(campaign) == 1

    assert (Bonus.objects.get(pk=big.pk).paid, Bonus.objects.get(pk=small.pk).paid) == (False, True)


def test_paid_bonus_is_not_paid_again(stub, approved):
    calls = record_calls(stub)
    bonus = Bonus.objects.create(assignment=approved, amount=Decimal("1.00"), reason="x", unique_token="t", paid=True)

    assert pay_bonus(bonus).paid is True
    assert calls == []


# ---- blocking and messages ---------------------------------------------------------------------
def test_block_and_unblock_send_the_worker_and_reason(stub, submitted):
    calls = record_calls(stub)
    stub.add_response("create_worker_block", {}, {"WorkerId": "W1", "Reason": "Copied answers from the web."})
    stub.add_response("delete_worker_block", {}, {"WorkerId": "W1"})
    stub.add_response("delete_worker_block", {}, {"WorkerId": "W1", "Reason": "Appeal accepted."})
    worker = Worker.objects.get(external_id="W1")

    set_worker_blocked(worker, True, " Copied answers from the web. ")
    assert (Worker.objects.get(pk=worker.pk).blocked, worker.block_reason) == (True, "Copied answers from the web.")
    set_worker_blocked(worker, False)
    set_worker_blocked(worker, False, "Appeal accepted.")

    stored = Worker.objects.get(pk=worker.pk)
    assert (stored.blocked, stored.block_reason) == (False, "")
    assert operations(calls) == ["create_worker_block", "delete_worker_block", "delete_worker_block"]


def test_block_without_reason_is_refused_without_a_call(stub, submitted):
    calls = record_calls(stub)
    worker = Worker.objects.get(external_id="W1")

    with pytest.raises(ReviewError, match="needs a reason"):
        set_worker_blocked(worker, True, "  ")

    assert calls == [] and Worker.objects.get(pk=worker.pk).blocked is False


def test_block_uses_the_sandbox_client_for_a_sandbox_worker(stub, sandbox_stub):
    campaign = published_mturk_campaign(images=1)
    type(campaign).objects.filter(pk=campaign.pk).update(sandbox=True)
    local_assignment(hits_of(campaign)[0], "W9", "A9", status=AssignmentStatus.SUBMITTED)
    production = record_calls(stub)
    sandbox_stub.add_response("create_worker_block", {}, {"WorkerId": "W9", "Reason": "Spam"})

    set_worker_blocked(Worker.objects.get(external_id="W9"), True, "Spam")

    assert production == []


def test_message_workers_sends_batches_of_100_and_returns_failures(stub, campaign):
    hit = hits_of(campaign)[0]
    ids = [f"W{n:04d}" for n in range(250)]
    for worker_id in reversed(ids):  # created out of order: the batches follow the sorted ids
        local_assignment(hit, worker_id, f"A{worker_id}", status=AssignmentStatus.SUBMITTED, confirmed=True)
    failures = {0: ["W0005"], 2: ["W0210", "W0249"]}
    for batch in range(3):
        response = {"NotifyWorkersFailureStatuses": [
            {"NotifyWorkersFailureCode": "HardFailure", "NotifyWorkersFailureMessage": "Cannot reach", "WorkerId": w}
            for w in failures.get(batch, [])]}
        stub.add_response("notify_workers", response, {
            "Subject": "New tasks", "MessageText": "We have published new images.",
            "WorkerIds": ids[batch * 100:(batch + 1) * 100]})
    calls = record_calls(stub)

    failed = message_workers(campaign, "  New tasks ", "We have published new images.\n")

    assert failed == ["W0005", "W0210", "W0249"]
    assert [len(params["WorkerIds"]) for _, params in calls] == [100, 100, 50]


def test_message_to_chosen_workers_only(stub, campaign):
    hit = hits_of(campaign)[0]
    for worker_id in ("W1", "W2", "W3"):
        local_assignment(hit, worker_id, f"A{worker_id}", status=AssignmentStatus.SUBMITTED, confirmed=True)
    stub.add_response("notify_workers", {"NotifyWorkersFailureStatuses": []},
                      {"Subject": "Hello", "MessageText": "Thanks", "WorkerIds": ["W3", "W1"]})

    assert message_workers(campaign, "Hello", "Thanks", worker_ids=["W3", "W1", "W3"]) == []


@pytest.mark.parametrize(("subject", "text", "worker_ids", "message"), [
    ("Hello", "Thanks", ["W1", "STRANGER", "OTHER"], "Not workers of this campaign: OTHER, STRANGER"),
    ("   ", "Thanks", None, "A message needs a subject and a text."),
    ("Hello", "", None, "A message needs a subject and a text."),
    ("Hello", "Thanks", [], "This campaign has no workers to message yet."),
])
def test_message_refused_locally(stub, submitted, subject, text, worker_ids, message):
    calls = record_calls(stub)

    with pytest.raises(ReviewError) as refused:
        message_workers(submitted.hit.campaign, subject, text, worker_ids=worker_ids)

    assert str(refused.value) == message
    assert calls == []


def test_message_subject_over_mturks_limit_is_refused_without_a_call(stub, submitted):
    calls = record_calls(stub)

    with pytest.raises(ReviewError, match="subject is 201 characters; MTurk allows at most 200"):
        message_workers(submitted.hit.campaign, "x" * 201, "Thanks")

    assert calls == []
