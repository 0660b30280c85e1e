"""Pulling a Prolific study's submissions into our records, safely repeatable (the periodic sync, the webhook
handler and the decision job all end here).

A submission is reconciled on (study, participant, submission id): the submission id is the SESSION_ID our
page was opened with and the external_id of every assignment of that session. Prolific's statuses map onto
our assignments: RETURNED, TIMED-OUT and SCREENED OUT give the session's unanswered task back (its slot is
free at once); APPROVED and REJECTED decided on Prolific (by a person on Prolific's site, or by its automatic
approval after 21 days) are recorded without being sent back; AWAITING REVIEW is the researcher's turn."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from ...models import Assignment, Campaign
from ...states import AssignmentStatus
from ...work.services.assignments import get_or_create_worker
from ...work.services.slots import store_taken_slots
from .models import ProlificStudy, ProlificSubmission
from .payloads import moment, normalised_status
from .studies import ensure_study, provider

log = logging.getLogger(__name__)
GIVES_BACK = {"RETURNED": AssignmentStatus.RETURNED, "TIMED-OUT": AssignmentStatus.EXPIRED,
              "SCREENED OUT": AssignmentStatus.RETURNED, "REJECTED": AssignmentStatus.RETURNED}
DECIDED = {"APPROVED": "approve", "REJECTED": "reject"}


@dataclass
class StudySyncReport:
    submissions: int = 0
    changed: int = 0
    released: int = 0  # unanswered tasks given back (returned, timed out, screened out)
    approved_on_prolific: int = 0
    rejected_on_prolific: int = 0
    unknown: list[str] = field(default_factory=list)  # submissions of participants who never reached our page


def _participant(remote: dict[str, Any]) -> str:
    """The list shape says participant_id, the single shape participant."""
    return str(remote.get("participant_id") or remote.get("participant") or "")


def reconcile_submission(study: ProlificStudy, remote: dict[str, Any],
                         report: StudySyncReport | None = None) -> ProlificSubmission | None:
    """Bring our records of one submission (either of Prolific's shapes) up to date. Idempotent."""
    report = report if report is not None else StudySyncReport()
    submission_id, participant = str(remote.get("id") or ""), _participant(remote)
    status = normalised_status(remote.get("status"))
    if not submission_id or not participant or not status:
        log.warning("ignoring a Prolific submission without id, participant or status: %s", remote)
        return None
    report.submissions += 1
    campaign = study.campaign
    with transaction.atomic():
        worker = get_or_create_worker("prolific", participant)
        record, created = ProlificSubmission.objects.select_for_update().get_or_create(
            submission_id=submission_id,
            defaults={"study": study, "worker": worker, "status": status,
                      "started_at": moment(remote.get("started_at"))})
        if record.worker_id != worker.pk or record.study_id != study.pk:
            log.warning("Prolific submission %s is stored for another participant or study; not changed",
                        submission_id)
            return record
        if created:
            report.unknown.append(submission_id)
        completed = moment(remote.get("completed_at"))
        if not created and record.status == status and (completed is None or record.completed_at == completed):
            return record
        report.changed += 1
        record.status = status
        record.completed_at = completed or record.completed_at
        if record.decision and DECIDED.get(status) == record.decision:
            record.decision_sent = True
        record.save()
        tasks = Assignment.objects.filter(hit__campaign=campaign, worker=worker, external_id=submission_id,
                                          confirmed=True)
        if status in GIVES_BACK:
            open_ones = list(tasks.filter(status=AssignmentStatus.ACCEPTED).values_list("pk", "hit_id"))
            if open_ones:
                Assignment.objects.filter(pk__in=[pk for pk, _ in open_ones]).update(status=GIVES_BACK[status])
                store_taken_slots(sorted({hit for _, hit in open_ones}))
                report.released += len(open_ones)
        answered = list(tasks.filter(status=AssignmentStatus.SUBMITTED).order_by("pk"))
    _record_decision_made_on_prolific(record, status, answered, report)
    return record


def _record_decision_made_on_prolific(record: ProlificSubmission, status: str, answered: list[Assignment],
                                      report: StudySyncReport) -> None:
    from ...services.review import approve_assignment, reject_assignment

    if status == "APPROVED":
        for assignment in answered:
            approve_assignment(assignment, "Approved on Prolific.", on_marketplace=False)
            report.approved_on_prolific += 1
    elif status == "REJECTED":
        for assignment in answered:
            reject_assignment(assignment, "Rejected on Prolific.", on_marketplace=False)
            report.rejected_on_prolific += 1


def sync_submission_by_id(submission_id: str) -> bool:
    """Read one submission from Prolific and reconcile it (webhooks). False: not a submission of our studies."""
    remote = provider().read_submission(submission_id)
    if remote is None:
        return False
    study = ProlificStudy.objects.select_related("campaign").filter(
        external_id=str(remote.get("study_id") or remote.get("study") or "")).first()
    if study is None:
        known = ProlificSubmission.objects.select_related("study__campaign").filter(submission_id=submission_id).first()
        study = known.study if known is not None else None
    if study is None:
        return False
    return reconcile_submission(study, remote) is not None


def refresh_study(study_external_id: str) -> bool:
    """Read one study from Prolific and bring the campaign's study in step (webhooks)."""
    study = ProlificStudy.objects.select_related("campaign").filter(external_id=study_external_id).first()
    if study is None:
        return False
    ensure_study(study.campaign)
    return True


def sync_study(campaign: Campaign) -> StudySyncReport:
    """The periodic sync of one prolific campaign: the study in step, every submission (all pages), then the
    decisions and bonuses waiting to be sent."""
    from .bonuses import reconcile_bonuses
    from .decisions import push_decisions

    report = StudySyncReport()
    study = ProlificStudy.objects.filter(campaign=campaign).first()
    listing: list[dict[str, Any]] = []
    if study is not None and study.external_id:  # submissions first: returns free slots before the study is sized
        listing = list(provider().list_submissions(study.external_id))
        for remote in listing:
            reconcile_submission(study, remote, report)
    study = ensure_study(campaign)
    if not study.external_id:
        return report
    push_decisions(campaign)
    reconcile_bonuses(campaign, listing)
    return report
