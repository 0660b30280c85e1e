"""Sending our review decisions to Prolific, where a decision is made per submission (a bundle of tasks).

Our researchers decide per task, as with every provider. Once every answered task of a submission is decided
and Prolific awaits our review, the submission's decision is stored (approve if any of its tasks was
approved, so the participant is paid for the bundle; reject only if all were, with their messages and the
first category), then sent: approvals together through bulk-approve (one call for many submissions),
rejections one by one. Prolific documents transitions as idempotent and bulk approval as asynchronous, so
sending again is harmless and what counts is what Prolific reports back: the submission's status, read
after sending and by every sync, marks the decision as sent."""
from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import Count, F, Q

from ...jobs import send_after_commit
from ...models import Assignment, Campaign
from ...states import AssignmentStatus
from ..base import ProviderError
from .models import ProlificSubmission, SubmissionDecision
from .studies import provider
from .sync import reconcile_submission

log = logging.getLogger(__name__)
PUSH_DECISIONS = "mturk.tasks.prolific_push_decisions"  # the task that sends a campaign's decisions
AWAITING_REVIEW = "AWAITING REVIEW"
BULK_SIZE = 200


def before_decision(assignment: Assignment, override_rejection: bool) -> None:
    """Refuse what Prolific cannot do: undoing a rejection it has already been sent."""
    if not override_rejection:
        return
    submission = ProlificSubmission.objects.filter(submission_id=assignment.external_id).first()
    if submission is not None and (submission.status == "REJECTED" or (
            submission.decision == SubmissionDecision.REJECT and submission.decision_sent)):
        raise ProviderError("Prolific has already rejected this submission and cannot undo a rejection; "
                            "pay the participant with a bonus instead")


def queue_push(campaign: Campaign) -> None:
    send_after_commit(PUSH_DECISIONS, campaign.pk)


def settle_decisions(campaign: Campaign) -> int:
    """Store the decision of each submission awaiting review whose answered tasks are all decided."""
    tasks = Q(worker__assignments__hit__campaign=campaign, worker__assignments__confirmed=True)
    same_session = tasks & Q(worker__assignments__external_id=F("submission_id"))  # this session's tasks
    ready = (ProlificSubmission.objects.filter(study__campaign=campaign, status=AWAITING_REVIEW,
                                               decision=SubmissionDecision.NONE)
             .annotate(undecided=Count("worker__assignments", filter=same_session & Q(
                 worker__assignments__status=AssignmentStatus.SUBMITTED)),
                       answered=Count("worker__assignments", filter=same_session & Q(
                           worker__assignments__status__in=(AssignmentStatus.APPROVED, AssignmentStatus.REJECTED))))
             .filter(undecided=0, answered__gt=0))
    settled = 0
    for submission in ready:
        decided = list(Assignment.objects.filter(hit__campaign=campaign, worker_id=submission.worker_id,
                                                 external_id=submission.submission_id, confirmed=True,
                                                 status__in=(AssignmentStatus.APPROVED, AssignmentStatus.REJECTED))
                       .order_by("pk").values_list("status", "feedback", "rejection_category"))
        with transaction.atomic():
            locked = ProlificSubmission.objects.select_for_update().get(pk=submission.pk)
            if locked.decision:
                continue
            if any(status == AssignmentStatus.APPROVED for status, _, _ in decided):
                locked.decision = SubmissionDecision.APPROVE
            else:
                locked.decision = SubmissionDecision.REJECT
                locked.decision_message = "\n\n".join(dict.fromkeys(text for _, text, _ in decided if text))
                locked.rejection_category = next((c for _, _, c in decided if c), "OTHER")
            locked.save(update_fields=["decision", "decision_message", "rejection_category", "updated_at"])
            settled += 1
    return settled


def push_decisions(campaign: Campaign) -> int:
    """Settle, then send every stored decision Prolific has not reported back yet; returns how many were sent."""
    settle_decisions(campaign)
    crowd = provider()
    pending = ProlificSubmission.objects.select_related("study__campaign").filter(
        study__campaign=campaign, decision_sent=False, status=AWAITING_REVIEW).exclude(decision="").order_by("pk")
    approvals = [s for s in pending if s.decision == SubmissionDecision.APPROVE]
    rejections = [s for s in pending if s.decision == SubmissionDecision.REJECT]
    for start in range(0, len(approvals), BULK_SIZE):
        chunk = approvals[start:start + BULK_SIZE]
        if len(chunk) == 1:
            crowd.transition_submission(chunk[0].submission_id, "APPROVE")
        else:
            crowd.bulk_approve([s.submission_id for s in chunk])
    for submission in rejections:
        crowd.transition_submission(submission.submission_id, "REJECT", submission.decision_message,
                                    submission.rejection_category)
    for submission in approvals + rejections:  # read back: bulk approval is asynchronous
        remote = crowd.read_submission(submission.submission_id)
        if remote is not None:
            reconcile_submission(submission.study, remote)
    return len(approvals) + len(rejections)
