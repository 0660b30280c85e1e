"""Pulling MTurk work into our database (services.marketplace_sync), offline against the Stubber."""
from __future__ import annotations

import json
import logging
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from annotation.models import Description
from mturk.models import HIT, Assignment, Bonus, MarketplaceQualification, QualificationGrant
from mturk.services.review import approve_assignment
from mturk.states import AssignmentStatus, HITStatus
from mturk.tasks import sync_marketplace
from mturk.work.services.marketplace_sync import SyncReport, sync_all, sync_campaign
from tests.factories import GOOD_TEXT, make_campaign

from .builders import answers_xml, hits_of, json_answer, local_assignment, published_mturk_campaign, remote
from .helpers import (
    add_request_error,
    listed_hit,
    operations,
    record_calls,
    stub_assignments,
    stub_balance,
    stub_hit_list,
    stub_reviewable,
    stub_sync_listings,
)

pytestmark = pytest.mark.django_db

SHOUTED = "THE DOG AND THE DOG AND THE DOG AND THE DOG"  # valid (12 words) but fails both checks
OTHER_TEXT = "Two children build a tall sand castle next to the blue sea."


def records(hit: HIT) -> dict[tuple[str, str], Assignment]:
    return {(a.external_id, a.worker.external_id): a for a in hit.assignments.select_related("worker")}


def test_list_assignments_is_paginated_with_next_token(stub):
    campaign = published_mturk_campaign(images=1)
    [hit] = hits_of(campaign)
    calls = record_calls(stub)
    stub_sync_listings(stub, [])
    stub_assignments(stub, hit, [remote("A1", "W1", hit)], next_token="page-2-token")
    stub_assignments(stub, hit, [remote("A2", "W2", hit)], token="page-2-token")

    report = sync_campaign(campaign)

    assert operations(calls) == [
        "list_hits", "list_reviewable_hits", "list_assignments_for_hit", "list_assignments_for_hit"]
    assert calls[3][1] == {"HITId": hit.external_id, "AssignmentStatuses": ["Submitted", "Approved", "Rejected"],
                           "MaxResults": 100, "NextToken": "page-2-token"}
    assert (report.hits_checked, report.new_submissions) == (1, 2)
    found = records(hit)
    assert set(found) == {("A1", "W1"), ("A2", "W2")}
    assert {a.status for a in found.values()} == {AssignmentStatus.SUBMITTED}


def test_new_submission_stores_the_parsed_answer_and_check_flags(stub):
    campaign = published_mturk_campaign(images=1)
    [hit] = hits_of(campaign)
    accepted = timezone.now() - timedelta(minutes=7)
    good = remote("A1", "W1", hit, answer=json_answer("A  woman in a red dress walks her brown   dog along the beach."),
                  accepted=accepted, submitted=accepted + timedelta(minutes=3))
    shouted = remote("A2", "W2", hit, answer=json_answer(SHOUTED))
    stub_sync_listings(stub, [])
    stub_assignments(stub, hit, [good, shouted])

    report = sync_campaign(campaign)

    assert report.new_submissions == 2 and report.flagged == []
    found = records(hit)
    first = found[("A1", "W1")]
    assert first.answer == {"text": GOOD_TEXT}  # whitespace normalised by the task kind's validation
    assert first.check_flags == []
    assert (first.status, first.marketplace_status) == (AssignmentStatus.SUBMITTED, "Submitted")
    assert (first.accepted_at, first.submitted_at) == (accepted, accepted + timedelta(minutes=3))
    assert first.time_on_task == timedelta(minutes=3)
    assert first.worker.provider == "mturk"
    second = found[("A2", "W2")]
    assert second.answer == {"text": SHOUTED}
    assert second.check_flags == ["repeated_words", "mostly_uppercase"]


def test_syncing_twice_never_double_counts(stub):
    campaign = published_mturk_campaign(images=1)
    [hit] = hits_of(campaign)
    page = [remote("A1", "W1", hit), remote("A2", "W2", hit, "Approved", answer=json_answer(OTHER_TEXT))]
    for _ in range(2):
        stub_sync_listings(stub, [])
        stub_assignments(stub, hit, page)

    first = sync_campaign(campaign)
    before = {key: (a.pk, a.status, a.answer, a.submitted_at) for key, a in records(hit).items()}
    second = sync_campaign(campaign)

    assert (first.new_submissions, first.approved_elsewhere) == (2, 1)
    assert (second.new_submissions, second.approved_elsewhere, second.returned) == (0, 0, 0)
    assert Assignment.objects.count() == 2
    assert {key: (a.pk, a.status, a.answer, a.submitted_at) for key, a in records(hit).items()} == before
    assert before[("A2", "W2")][1] == AssignmentStatus.APPROVED
    assert Description.objects.count() == 1


def test_answer_stored_by_our_page_is_not_overwritten(stub):
    campaign = published_mturk_campaign(images=1)
    [hit] = hits_of(campaign)
    ours = local_assignment(hit, "W1", "A1", status=AssignmentStatus.SUBMITTED, text=GOOD_TEXT)
    stub_sync_listings(stub, [])
    stub_assignments(stub, hit, [remote("A1", "W1", hit, answer=json_answer(OTHER_TEXT))])

    report = sync_campaign(campaign)

    ours_after = Assignment.objects.get(pk=ours.pk)
    assert report.new_submissions == 0
    assert ours_after.answer == {"text": GOOD_TEXT}
    assert ours_after.submitted_at == ours.submitted_at
    assert (ours_after.status, ours_after.marketplace_status) == (AssignmentStatus.SUBMITTED, "Submitted")
    assert Assignment.objects.count() == 1


def test_approved_on_mturk_is_recorded_without_calling_mturk_back_and_feeds_next_stages(stub):
    campaign = published_mturk_campaign(images=1)
    [hit] = hits_of(campaign)
    next_stage = make_campaign(images=0, publish=False, source_stage=campaign)
    ours = local_assignment(hit, "W1", "A1", status=AssignmentStatus.SUBMITTED, marketplace_status="Submitted")
    calls = record_calls(stub)
    stub_sync_listings(stub, [])
    stub_assignments(stub, hit, [remote("A1", "W1", hit, "Approved", feedback="Thanks!")])

    report = sync_campaign(campaign)

    # no approve_assignment call
    assert operations(calls) == ["list_hits", "list_reviewable_hits", "list_assignments_for_hit"]
    ours.refresh_from_db()
    assert (ours.status, ours.auto_approved, ours.marketplace_status) == (AssignmentStatus.APPROVED, True, "Approved")
    assert ours.feedback == "Thanks!" and ours.decided_at is not None
    assert report.approved_elsewhere == 1
    assert Description.objects.get().assignment_id == ours.pk
    assert list(next_stage.hits.values_list("items", flat=True)) == [{"image": hit.items["image"]}]


def test_rejected_on_mturk_is_recorded_as_rejected(stub):
    campaign = published_mturk_campaign(images=1)
    [hit] = hits_of(campaign)
    first = local_assignment(hit, "W1", "A1", status=AssignmentStatus.SUBMITTED, marketplace_status="Submitted")
    second = local_assignment(hit, "W2", "A2", status=AssignmentStatus.SUBMITTED, marketplace_status="Submitted")
    calls = record_calls(stub)
    stub_sync_listings(stub, [])
    stub_assignments(stub, hit, [remote("A1", "W1", hit, "Rejected", feedback="Off topic."),
                                 remote("A2", "W2", hit, "Rejected")])

    report = sync_campaign(campaign)

    # no reject_assignment call
    assert operations(calls) == ["list_hits", "list_reviewable_hits", "list_assignments_for_hit"]
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, first.feedback, first.marketplace_status) == (
        AssignmentStatus.REJECTED, "Off topic.", "Rejected")
    assert (second.status, second.feedback) == (AssignmentStatus.REJECTED, "Rejected on the marketplace.")
    assert report.rejected_elsewhere == 2
    assert Description.objects.count() == 0


def test_reused_assignment_id_returns_the_first_worker_and_creates_the_second(stub):
    campaign = published_mturk_campaign(images=1)
    [hit] = hits_of(campaign)
    returned = local_assignment(hit, "W1", "A1", status=AssignmentStatus.ACCEPTED)
    stub_sync_listings(stub, [])
    stub_assignments(stub, hit, [remote("A1", "W2", hit)])

    report = sync_campaign(campaign)

    returned.refresh_from_db()
    assert returned.status == AssignmentStatus.RETURNED and returned.answer is None
    second = Assignment.objects.get(hit=hit, worker__external_id="W2")
    assert (second.external_id, second.status, second.answer) == ("A1", AssignmentStatus.SUBMITTED, {"text": GOOD_TEXT})
    assert (report.returned, report.new_submissions) == (1, 1)


@pytest.mark.parametrize(("answer_xml", "raw", "flag"), [
    (answers_xml({"comments": "I liked it"}), {"comments": "I liked it"}, "answer_not_on_platform"),
    (answers_xml({"answer": json.dumps({"text": "too short"})}), {"answer": '{"text": "too short"}'}, "answer_invalid"),
    (answers_xml({"answer": "not json at all"}), {"answer": "not json at all"}, "answer_invalid"),
    (answers_xml({"answer": json.dumps({"text": GOOD_TEXT, "extra": 1})}),
     {"answer": json.dumps({"text": GOOD_TEXT, "extra": 1})}, "answer_invalid"),
    # posted by the worker's browser, so as hostile as any request body
    (answers_xml({"answer": "[" * 50_000 + "]" * 50_000}), {"answer": "[" * 50_000 + "]" * 50_000}, "answer_invalid"),
    (answers_xml({"answer": '{"text": ' + "9" * 5000 + "}"}), {"answer": '{"text": ' + "9" * 5000 + "}"},
     "answer_invalid"),
])
def test_missing_or_invalid_answer_in_mturks_copy_is_kept_raw_and_flagged(stub, answer_xml, raw, flag):
    campaign = published_mturk_campaign(images=1)
    [hit] = hits_of(campaign)
    stub_sync_listings(stub, [])
    stub_assignments(stub, hit, [remote("A1", "W1", hit, answer=answer_xml)])

    report = sync_campaign(campaign)

    stored = Assignment.objects.get()
    assert stored.status == AssignmentStatus.SUBMITTED and report.new_submissions == 1
    assert stored.answer == {"marketplace_answers": raw}
    assert stored.check_flags == [flag]


def test_approved_on_mturk_with_an_unusable_answer_is_recorded_without_a_dataset_record(stub):
    campaign = published_mturk_campaign(images=1)
    [hit] = hits_of(campaign)
    stub_sync_listings(stub, [])
    stub_assignments(stub, hit, [remote("A1", "W1", hit, "Approved", answer=answers_xml({"other": "x"}))])

    report = sync_campaign(campaign)

    stored = Assignment.objects.get()
    assert (stored.status, stored.auto_approved, stored.check_flags) == (
        AssignmentStatus.APPROVED, True, ["answer_not_on_platform"])
    assert report.approved_elsewhere == 1
    assert Description.objects.count() == 0


def test_reviewable_and_decided_hit_is_marked_reviewed_once_and_skipped_afterwards(stub):
    campaign = published_mturk_campaign(images=2)
    done, waiting = hits_of(campaign)
    local_assignment(done, "W1", "A1", status=AssignmentStatus.APPROVED, marketplace_status="Approved")
    calls = record_calls(stub)
    stub_sync_listings(stub, [done.external_id, waiting.external_id])
    stub_assignments(stub, done, [remote("A1", "W1", done, "Approved")])
    stub.add_response("update_hit_review_status", {}, {"HITId": done.external_id, "Revert": False})
    stub_assignments(stub, waiting, [remote("A2", "W2", waiting)])  # submitted, not decided: not marked
    # next sync: MTurk lists the first HIT as Reviewing now; our flag skips it anyway
    stub_sync_listings(stub, [waiting.external_id])
    stub_assignments(stub, waiting, [remote("A2", "W2", waiting)])

    first = sync_campaign(campaign)
    second = sync_campaign(campaign)

    assert operations(calls) == [
        "list_hits", "list_reviewable_hits", "list_assignments_for_hit", "update_hit_review_status",
        "list_assignments_for_hit", "list_hits", "list_reviewable_hits", "list_assignments_for_hit",
    ]
    assert calls[7][1]["HITId"] == waiting.external_id
    assert (first.hits_checked, second.hits_checked) == (2, 1)
    assert HIT.objects.get(pk=done.pk).marketplace_done is True
    assert HIT.objects.get(pk=waiting.pk).marketplace_done is False


def test_hits_past_their_expiry_are_marked_expired_and_still_synced(stub):
    campaign = published_mturk_campaign(images=2)
    old, current = hits_of(campaign)
    HIT.objects.filter(pk=old.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    stub_sync_listings(stub, [])
    stub_assignments(stub, old, [remote("A1", "W1", old)])
    stub_assignments(stub, current, [])

    report = sync_campaign(campaign)

    assert (report.expired_hits, report.hits_checked, report.new_submissions) == (1, 2, 1)
    assert HIT.objects.get(pk=old.pk).status == HITStatus.EXPIRED
    assert HIT.objects.get(pk=current.pk).status == HITStatus.PUBLISHED


def test_participation_is_recorded_and_granted_silently_in_a_grouped_chained_campaign(stub):
    campaign = published_mturk_campaign(images=1)
    [hit] = hits_of(campaign)
    HIT.objects.filter(pk=hit.pk).update(group="album:7")
    hit.refresh_from_db()
    make_campaign(images=0, publish=False, source_stage=campaign)  # the campaign is in a stage chain
    qualification = MarketplaceQualification.objects.create(
        provider="mturk", sandbox=False, scope="album:7", external_id="3QUALTOOKPART00000000000000001")
    calls = record_calls(stub)
    stub_sync_listings(stub, [])
    stub_assignments(stub, hit, [remote("A1", "W1", hit)])
    stub.add_response("associate_qualification_with_worker", {}, {
        "QualificationTypeId": "3QUALTOOKPART00000000000000001", "WorkerId": "W1", "IntegerValue": 1,
        "SendNotification": False,
    })
    stub_sync_listings(stub, [])
    stub_assignments(stub, hit, [remote("A1", "W1", hit)])

    sync_campaign(campaign)
    sync_campaign(campaign)  # granted already: no second call

    grant = QualificationGrant.objects.get()
    assert (grant.qualification_id, grant.worker.external_id, grant.granted) == (qualification.pk, "W1", True)
    assert operations(calls).count("associate_qualification_with_worker") == 1


def test_auto_approve_passing_approves_passing_reported_work_and_leaves_flagged_work(stub):
    campaign = published_mturk_campaign(images=1, auto_approve_passing=True)
    [hit] = hits_of(campaign)
    page_only = local_assignment(hit, "W3", "A3", status=AssignmentStatus.SUBMITTED)  # MTurk never reported it
    calls = record_calls(stub)
    stub_sync_listings(stub, [])
    stub_assignments(stub, hit, [remote("A1", "W1", hit), remote("A2", "W2", hit, answer=json_answer(SHOUTED))])
    stub.add_response("approve_assignment", {}, {"AssignmentId": "A1"})

    report = sync_campaign(campaign)

    found = records(hit)
    passing, flagged = found[("A1", "W1")], found[("A2", "W2")]
    assert operations(calls) == ["list_hits", "list_reviewable_hits", "list_assignments_for_hit", "approve_assignment"]
    assert (passing.status, passing.auto_approved) == (AssignmentStatus.APPROVED, False)
    assert flagged.status == AssignmentStatus.SUBMITTED
    assert Assignment.objects.get(pk=page_only.pk).status == AssignmentStatus.SUBMITTED
    assert (report.auto_approved_by_rules, report.flagged) == (1, [flagged.pk])


def test_an_unpayable_bonus_does_not_stop_the_sync(stub):
    campaign = published_mturk_campaign(images=1, auto_approve_passing=True)
    [hit] = hits_of(campaign)
    earlier = local_assignment(hit, "W9", "A9", status=AssignmentStatus.APPROVED, marketplace_status="Approved")
    bonus = Bonus.objects.create(assignment=earlier, amount=Decimal("5.00"), reason="Great", unique_token="bonus-z-1")
    calls = record_calls(stub)
    stub_sync_listings(stub, [])
    stub_assignments(stub, hit, [remote("A9", "W9", hit, "Approved"), remote("A1", "W1", hit)])
    stub_balance(stub, "1.00")  # too little: the bonus stays unpaid, retried next sync
    stub.add_response("approve_assignment", {}, {"AssignmentId": "A1"})

    report = sync_campaign(campaign)

    assert operations(calls) == ["list_hits", "list_reviewable_hits", "list_assignments_for_hit", "get_account_balance",
                                 "approve_assignment"]
    assert report.auto_approved_by_rules == 1
    assert Bonus.objects.get(pk=bonus.pk).paid is False


def test_celery_task_returns_the_report(stub):
    campaign = published_mturk_campaign(images=1)
    [hit] = hits_of(campaign)
    stub_sync_listings(stub, [])
    stub_assignments(stub, hit, [remote("A1", "W1", hit), remote("A2", "W2", hit, "Rejected", feedback="No.")])

    result = sync_marketplace.delay(campaign.pk).get()

    assert result == {
        "hits_checked": 1, "hits_unchanged": 0, "new_submissions": 2, "approved_elsewhere": 0,
        "rejected_elsewhere": 1, "returned": 0, "expired_hits": 0, "created_hits": 0, "auto_approved_by_rules": 0,
        "flagged": [],
    }


def test_sync_all_keeps_going_when_one_campaign_fails(stub, caplog):
    good = published_mturk_campaign(images=1)
    bad = published_mturk_campaign(images=1, hit_type_id="3TYPE00000000000000000000000BB", first_hit=2)
    [good_hit] = hits_of(good)
    calls = record_calls(stub)
    order = list(type(good).objects.exclude(status__in=("draft", "closed")).values_list("pk", flat=True))
    assert sorted(order) == sorted([good.pk, bad.pk])
    stub_hit_list(stub)  # the account's HITs are listed once for every campaign of the environment
    for pk in order:
        if pk == bad.pk:
            add_request_error(stub, "list_reviewable_hits", "This HIT type does not exist.",
                              "AWS.MechanicalTurk.HITTypeDoesNotExist",
                              {"HITTypeId": "3TYPE00000000000000000000000BB", "Status": "Reviewable",
                               "MaxResults": 100})
        else:
            stub_reviewable(stub, [])
            stub_assignments(stub, good_hit, [remote("A1", "W1", good_hit)])

    with caplog.at_level(logging.ERROR, logger="mturk.work.services.marketplace_sync"):
        total = sync_all()

    assert isinstance(total, SyncReport)
    assert (total.hits_checked, total.new_submissions) == (1, 1)
    assert Assignment.objects.get().hit_id == good_hit.pk
    assert operations(calls).count("list_assignments_for_hit") == 1
    assert operations(calls).count("list_hits") == 1
    assert f"sync of campaign {bad.pk} failed" in caplog.text


# ---- the account listing: HITs with nothing new cost no call ---------------------------------------

def test_hits_whose_counts_match_ours_are_skipped(stub):
    campaign = published_mturk_campaign(images=3)
    quiet, busy, unlisted = hits_of(campaign)
    local_assignment(quiet, "W1", "A1", status=AssignmentStatus.SUBMITTED, marketplace_status="Submitted")
    calls = record_calls(stub)
    stub_sync_listings(stub, [], listed=[
        listed_hit(quiet.external_id, max_assignments=2, available=1),  # 1 answered, 0 decided: as we know
        listed_hit(busy.external_id, max_assignments=2, available=1),  # 1 answered that we have not seen
    ])
    stub_assignments(stub, busy, [remote("A2", "W2", busy)])
    stub_assignments(stub, unlisted, [])  # not in the account's list: checked anyway

    report = sync_campaign(campaign)

    assert [params["HITId"] for name, params in calls if name == "list_assignments_for_hit"] == [
        busy.external_id, unlisted.external_id]
    assert (report.hits_checked, report.hits_unchanged, report.new_submissions) == (2, 1, 1)


def test_a_decision_made_on_the_marketplace_makes_the_hit_be_checked(stub):
    campaign = published_mturk_campaign(images=1)
    [hit] = hits_of(campaign)
    ours = local_assignment(hit, "W1", "A1", status=AssignmentStatus.SUBMITTED, marketplace_status="Submitted")
    stub_sync_listings(stub, [], listed=[listed_hit(hit.external_id, max_assignments=2, available=1, completed=1)])
    stub_assignments(stub, hit, [remote("A1", "W1", hit, "Approved")])

    report = sync_campaign(campaign)

    ours.refresh_from_db()
    assert (report.hits_checked, report.approved_elsewhere) == (1, 1)
    assert (ours.status, ours.auto_approved) == (AssignmentStatus.APPROVED, True)


def test_our_own_approval_is_counted_so_the_next_sync_skips_the_hit(stub):
    campaign = published_mturk_campaign(images=1)
    [hit] = hits_of(campaign)
    ours = local_assignment(hit, "W1", "A1", status=AssignmentStatus.SUBMITTED, marketplace_status="Submitted")
    stub.add_response("approve_assignment", {}, {"AssignmentId": "A1"})

    approve_assignment(ours)
    ours.refresh_from_db()
    assert ours.marketplace_status == "Approved"
    calls = record_calls(stub)
    stub_sync_listings(stub, [], listed=[listed_hit(hit.external_id, max_assignments=2, available=1, completed=1)])

    report = sync_campaign(campaign)

    assert operations(calls) == ["list_hits", "list_reviewable_hits"]
    assert (report.hits_checked, report.hits_unchanged) == (0, 1)


def test_a_reviewable_hit_is_checked_even_when_its_counts_match(stub):
    campaign = published_mturk_campaign(images=1)
    [hit] = hits_of(campaign)
    local_assignment(hit, "W1", "A1", status=AssignmentStatus.APPROVED, marketplace_status="Approved")
    stub_sync_listings(stub, [hit.external_id],
                       listed=[listed_hit(hit.external_id, max_assignments=1, completed=1)])
    stub_assignments(stub, hit, [remote("A1", "W1", hit, "Approved")])
    stub.add_response("update_hit_review_status", {}, {"HITId": hit.external_id, "Revert": False})

    report = sync_campaign(campaign)

    hit.refresh_from_db()
    assert (report.hits_checked, report.hits_unchanged, hit.marketplace_done) == (1, 0, True)
