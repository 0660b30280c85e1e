"""Approve, reject, bonus, block: rules, idempotency, and dataset records."""
from decimal import Decimal

import pytest

from annotation.models import Description
from mturk.services.review import (
    ReviewError,
    approve_assignment,
    approve_submitted,
    grant_bonus,
    reject_assignment,
    set_worker_blocked,
)
from mturk.states import AssignmentStatus, InvalidTransition
from mturk.work.services.assignments import assign_next_hit, new_local_worker
from tests.factories import GOOD_TEXT, make_campaign, submitted

pytestmark = pytest.mark.django_db


def test_approve_makes_one_description_and_is_idempotent():
    campaign = make_campaign(images=1)
    assignment = submitted(campaign)
    approve_assignment(assignment)
    approve_assignment(assignment)
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.APPROVED and assignment.decided_at
    description = Description.objects.get()
    assert (description.text, description.image_id, description.source) == (
        GOOD_TEXT, assignment.hit.items["image"], "crowd")


def test_reject_needs_feedback_and_changes_nothing_without_it():
    campaign = make_campaign(images=1)
    assignment = submitted(campaign)
    with pytest.raises(ReviewError, match="feedback"):
        reject_assignment(assignment, "   ")
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED
    reject_assignment(assignment, "The description is about another picture.")
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.REJECTED
    assert assignment.feedback == "The description is about another picture."
    assert Description.objects.count() == 0


def test_rejection_can_be_overridden_but_approval_is_final():
    campaign = make_campaign(images=1)
    assignment = submitted(campaign)
    reject_assignment(assignment, "too vague")
    approve_assignment(assignment)
    assert Description.objects.count() == 1
    with pytest.raises(InvalidTransition):
        reject_assignment(assignment, "changed my mind")


def test_unsubmitted_work_cannot_be_approved():
    campaign = make_campaign(images=1)
    assignment = assign_next_hit(campaign, new_local_worker())
    with pytest.raises(InvalidTransition, match="from 'accepted' to 'approved'"):
        approve_assignment(assignment)


def test_approve_submitted_with_checks_filter():
    campaign = make_campaign(images=2, assignments=1)
    clean = submitted(campaign)
    flagged = submitted(campaign, "dog dog dog dog dog dog dog dog dog dog")
    assert flagged.check_flags == ["repeated_words"]
    result = approve_submitted(campaign, passing_checks_only=True)
    assert (result.approved, result.flagged, result.failed) == (1, [flagged.pk], {})
    clean.refresh_from_db()
    flagged.refresh_from_db()
    assert (clean.status, flagged.status) == (AssignmentStatus.APPROVED, AssignmentStatus.SUBMITTED)


def test_bonus_rules():
    campaign = make_campaign(images=1)
    assignment = submitted(campaign)
    with pytest.raises(ReviewError, match="reason"):
        grant_bonus(assignment, Decimal("0.50"), "")
    first = grant_bonus(assignment, Decimal("0.50"), "Great detail")
    second = grant_bonus(assignment, Decimal("0.25"), "Even more")
    assert first.paid and first.unique_token != second.unique_token


def test_block_needs_a_reason():
    worker = new_local_worker()
    with pytest.raises(ReviewError):
        set_worker_blocked(worker, True, "")
    set_worker_blocked(worker, True, "spam")
    worker.refresh_from_db()
    assert worker.blocked and worker.block_reason == "spam"
