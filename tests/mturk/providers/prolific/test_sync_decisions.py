"""Submissions pulled from Prolific (every page, every status) and our decisions sent per submission:
approvals in bulk and read back, rejections with their category and message. Against the fake Prolific."""
from __future__ import annotations

import pytest

from mturk.models import HIT, Assignment
from mturk.providers.prolific.decisions import push_decisions
from mturk.providers.prolific.models import ProlificSubmission
from mturk.services.review import ReviewError, approve_assignment, approve_submitted, reject_assignment
from mturk.states import AssignmentStatus
from mturk.work.services.marketplace_sync import sync_campaign

from .study_helpers import WHY, published_campaign, study_of, tasks_of, work

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(prolific_fake, django_capture_on_commit_callbacks):
    return published_campaign(prolific_fake, images=30, assignments=1, tasks=1,
                              django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)


def test_the_sync_reads_every_page_and_records_submissions_nobody_brought_here(prolific_fake, campaign):
    prolific_fake.max_page_size = 7  # Prolific pages; a reader of the first page alone would miss most
    external = study_of(campaign).external_id
    for _ in range(23):
        prolific_fake.start(external)
    sync_campaign(campaign)
    assert ProlificSubmission.objects.filter(study__campaign=campaign, status="ACTIVE").count() == 23
    assert len(prolific_fake.received("GET", f"studies/{external}/submissions/")) >= 4


def test_returned_and_timed_out_sessions_give_their_task_back_at_once(prolific_fake, campaign):
    returned = work(prolific_fake, campaign, tasks=0, enter_code=False)
    timed_out = work(prolific_fake, campaign, tasks=0, enter_code=False)
    from mturk.providers.prolific.arrivals import next_task

    first, second = next_task(returned), next_task(timed_out)
    assert first is not None and second is not None
    taken = HIT.objects.filter(campaign=campaign).values_list("taken_slots", flat=True)
    assert sum(taken) == 2
    prolific_fake.return_submission(returned.submission_id)
    prolific_fake.time_out(timed_out.submission_id)
    sync_campaign(campaign)
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, second.status) == (AssignmentStatus.RETURNED, AssignmentStatus.EXPIRED)
    assert sum(HIT.objects.filter(campaign=campaign).values_list("taken_slots", flat=True)) == 0
    sync_campaign(campaign)  # again: nothing changes twice
    first.refresh_from_db()
    assert first.status == AssignmentStatus.RETURNED


def test_an_approval_made_on_prolific_is_recorded_without_calling_back(prolific_fake, campaign):
    done = work(prolific_fake, campaign)
    prolific_fake.set_submission_status(done.submission_id, "APPROVED")  # e.g. after 21 days unreviewed
    sync_campaign(campaign)
    [task] = tasks_of(done)
    assert task.status == AssignmentStatus.APPROVED and task.auto_approved
    assert prolific_fake.received("POST", "submissions/{id}/transition/") == []


def test_approvals_go_in_one_bulk_call_and_are_confirmed_by_reading_them_back(prolific_fake, campaign,
                                                                               django_capture_on_commit_callbacks):
    sessions = [work(prolific_fake, campaign) for _ in range(3)]
    sync_campaign(campaign)  # Prolific now reports them awaiting review
    with django_capture_on_commit_callbacks(execute=True):
        result = approve_submitted(campaign)
    assert result.approved == 3
    assert [sorted(ids) for ids in prolific_fake.bulk_approvals] == [sorted(s.submission_id for s in sessions)]
    assert prolific_fake.received("POST", "submissions/{id}/transition/") == []
    for session in sessions:
        assert prolific_fake.submission(session.submission_id).status == "APPROVED"
        session.refresh_from_db()
        assert session.decision == "approve" and session.decision_sent and session.status == "APPROVED"
    push_decisions(campaign)  # nothing left to send
    assert len(prolific_fake.bulk_approvals) == 1


def test_a_rejection_carries_its_category_and_message(prolific_fake, campaign, django_capture_on_commit_callbacks):
    session = work(prolific_fake, campaign)
    sync_campaign(campaign)
    [task] = tasks_of(session)
    with django_capture_on_commit_callbacks(execute=True):
        reject_assignment(task, WHY, category="low_effort")
    remote = prolific_fake.submission(session.submission_id)
    assert remote.status == "REJECTED" and remote.rejection_category == "LOW_EFFORT" and remote.message == WHY
    task.refresh_from_db()
    assert task.rejection_category == "LOW_EFFORT"
    with pytest.raises(ReviewError, match="cannot undo a rejection"):  # Prolific has no way back
        approve_assignment(task)
    task.refresh_from_db()
    assert task.status == AssignmentStatus.REJECTED


@pytest.mark.parametrize(("feedback", "category", "problem"), [
    ("Too short.", "LOW_EFFORT", "at least 100 characters"),
    (WHY, "", "rejection category"),
    (WHY, "SLOPPY", "rejection category"),
])
def test_a_rejection_prolific_would_refuse_is_refused_here_and_changes_nothing(prolific_fake, campaign, feedback,
                                                                              category, problem):
    session = work(prolific_fake, campaign)
    sync_campaign(campaign)
    [task] = tasks_of(session)
    calls = len(prolific_fake.calls)
    with pytest.raises(ReviewError, match=problem):
        reject_assignment(task, feedback, category=category)
    task.refresh_from_db()
    assert task.status == AssignmentStatus.SUBMITTED and task.feedback == ""
    assert len(prolific_fake.calls) == calls


def test_a_bundle_is_decided_once_all_its_tasks_are(prolific_fake, django_capture_on_commit_callbacks):
    campaign = published_campaign(prolific_fake, images=4, assignments=1, tasks=2,
                                  django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    session = work(prolific_fake, campaign)
    sync_campaign(campaign)
    good, bad = tasks_of(session)
    with django_capture_on_commit_callbacks(execute=True):
        reject_assignment(bad, WHY, category="LOW_EFFORT")
    assert prolific_fake.submission(session.submission_id).status == "AWAITING REVIEW"  # one task undecided
    with django_capture_on_commit_callbacks(execute=True):
        approve_assignment(good)
    # one good task in the bundle: the participant is paid for the submission
    assert prolific_fake.submission(session.submission_id).status == "APPROVED"
    assert Assignment.objects.get(pk=bad.pk).status == AssignmentStatus.REJECTED  # not in the dataset
