"""A Prolific participant arriving on our study link, doing a bundle of tasks, and being sent back.

Prolific opens the study's external URL with PROLIFIC_PID, STUDY_ID and SESSION_ID (the submission id). Those
ids are not signed: the session is confirmed by reading the submission from Prolific's API (it must exist,
belong to that participant and that study, and be ACTIVE or RESERVED) before anything is stored; a session
Prolific does not confirm stores nothing. The confirmed session is stored as a ProlificSubmission, and each of
its tasks is an ordinary confirmed Assignment with `external_id` = the submission id, given out by
services.assignments (eligibility, album groups across stages, per-worker limits and slot counters all apply).

A session is a bundle of `Campaign.tasks_per_submission` tasks. When it is done (or no task is left for the
participant after at least one answer) the participant is sent back to Prolific's completion URL with the
study's completion code, which is only handed out once an answer of the session is stored."""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlencode

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone

from ...models import Assignment, Campaign
from ...states import ANSWERED, AssignmentStatus
from ...work.services.assignments import (
    NoTaskAvailable,
    assign_next_hit,
    expire_stale_assignments,
    get_or_create_worker,
)
from ...work.tokens import session_token
from ..registry import get_provider
from .client import ProlificAuthError, ProlificError, ProlificUnavailable
from .models import ProlificStudy, ProlificSubmission
from .payloads import moment, normalised_status

if TYPE_CHECKING:
    from .provider import ProlificProvider

log = logging.getLogger(__name__)

PROLIFIC_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")  # Prolific's ids are 24 hex digits; be lenient, never unsafe
STARTABLE = ("ACTIVE", "RESERVED")  # a session Prolific has given a place to
ENDED = ("RETURNED", "TIMED-OUT", "SCREENED OUT", "REJECTED")  # a session that may no longer work
RETURN_HINT = ("Please return the study on Prolific (the “Return” button on Prolific's study page), "
               "so that your place goes to another participant.")


@dataclass
class ArrivalRefused(Exception):
    """The participant cannot (or can no longer) work in this session. `message` is for the participant."""

    status_code: int
    title: str
    message: str

    def __str__(self) -> str:
        return self.message


def check_ids(pid: str, study_id: str, session_id: str) -> None:
    """The three ids Prolific puts into the study URL, present and well-formed (ArrivalRefused 400 otherwise)."""
    missing = [name for name, value in (("PROLIFIC_PID", pid), ("STUDY_ID", study_id), ("SESSION_ID", session_id))
               if not value]
    if missing:
        raise ArrivalRefused(400, "Link not valid",
                             f"This link is missing {', '.join(missing)}. Please open the study from Prolific.")
    if not all(PROLIFIC_ID.fullmatch(value) for value in (pid, study_id, session_id)):
        raise ArrivalRefused(400, "Link not valid",
                             "This link has a malformed PROLIFIC_PID, STUDY_ID or SESSION_ID. "
                             "Please open the study from Prolific.")


def study_of(campaign: Campaign, study_id: str) -> ProlificStudy:
    """The campaign's study, which must be the one the link names (ArrivalRefused otherwise).
    Read with the campaign when it was fetched with select_related("prolific_study")."""
    if campaign.provider != "prolific":
        raise ArrivalRefused(404, "Study not found", "This study does not exist.")
    study: ProlificStudy | None = getattr(campaign, "prolific_study", None)
    if study is None or not study.external_id:
        raise ArrivalRefused(404, "Study not open", "This study is not open yet. Please try again later.")
    if study.external_id != study_id:
        raise ArrivalRefused(403, "Link not valid", "This link does not belong to this study.")
    return study


def _forged() -> ArrivalRefused:
    return ArrivalRefused(403, "Session not confirmed",
                          "Prolific does not confirm this session for this study. "
                          "Please open the study from your Prolific account.")


def _check_not_ended(submission: ProlificSubmission) -> None:
    if submission.status in ENDED:
        raise ArrivalRefused(410, "Session ended",
                             f"This Prolific session has ended ({submission.status.lower()}) and can no longer be "
                             "worked on. To take part again, start the study again from Prolific.")


def _read_remote(session_id: str) -> dict[str, Any] | None:
    provider = cast("ProlificProvider", get_provider("prolific"))
    try:
        return provider.read_submission(session_id)
    except ProlificUnavailable as exc:
        log.warning("Prolific did not answer for submission %s: %s", session_id, exc)
        raise ArrivalRefused(503, "Please try again",
                             "Prolific could not confirm your session, try again in a moment.") from None
    except ProlificAuthError as exc:  # our token or workspace is wrong: not the participant's fault
        log.error("Prolific refused our token reading submission %s: %s", session_id, exc)
        raise ArrivalRefused(503, "Please try again",
                             "Prolific could not confirm your session, try again in a moment.") from None
    except ProlificError as exc:  # another 4xx: Prolific does not know this id
        log.info("Prolific refused submission %s: %s", session_id, exc)
        raise _forged() from None


def start_session(campaign: Campaign, pid: str, study_id: str, session_id: str) -> ProlificSubmission:
    """The confirmed session the participant works in: found, or read from Prolific and stored.

    Nothing is stored unless Prolific confirms the session (exists, this participant, this study, ACTIVE or
    RESERVED). A stored session of another participant or study is refused. Raises ArrivalRefused."""
    check_ids(pid, study_id, session_id)
    study = study_of(campaign, study_id)
    known = ProlificSubmission.objects.select_related("worker", "study").filter(submission_id=session_id).first()
    if known is not None:
        if known.worker.provider != "prolific" or known.worker.external_id != pid or known.study_id != study.pk:
            raise _forged()
        _check_not_ended(known)
        return known
    remote = _read_remote(session_id)
    if remote is None or not isinstance(remote, dict):
        raise _forged()
    participant = str(remote.get("participant") or remote.get("participant_id") or "")
    remote_study = str(remote.get("study_id") or remote.get("study") or "")
    if participant != pid or remote_study != study.external_id or str(remote.get("id") or session_id) != session_id:
        raise _forged()
    status = normalised_status(remote.get("status"))
    if status not in STARTABLE:
        raise ArrivalRefused(410, "Session not active",
                             f"Prolific reports this session as {status.lower() or 'unknown'}, so it cannot be "
                             "worked on. To take part, start the study again from Prolific.")
    try:
        with transaction.atomic():
            worker = get_or_create_worker("prolific", pid)
            return ProlificSubmission.objects.create(
                study=study, submission_id=session_id, worker=worker, status=status,
                started_at=moment(remote.get("started_at")))
    except IntegrityError:  # the same session arrived twice at once (two tabs, a double click)
        stored = ProlificSubmission.objects.select_related("worker").get(submission_id=session_id)
        if stored.worker.external_id != pid or stored.study_id != study.pk:
            raise _forged() from None
        return stored


def session_tasks(submission: ProlificSubmission) -> QuerySet[Assignment]:
    """The session's assignments (read through the (external_id, worker) index)."""
    return Assignment.objects.filter(external_id=submission.submission_id, worker_id=submission.worker_id,
                                     confirmed=True)


def answered_count(submission: ProlificSubmission) -> int:
    return session_tasks(submission).filter(status__in=ANSWERED).count()


def open_task(submission: ProlificSubmission) -> Assignment | None:
    """The session's accepted, not yet overdue task, if any (takes nothing)."""
    return (session_tasks(submission).filter(status=AssignmentStatus.ACCEPTED, deadline__gt=timezone.now())
            .select_related("worker").order_by("accepted_at").first())


def bundle_done(submission: ProlificSubmission, campaign: Campaign, answered: int) -> bool:
    """No further task for this session: it answered its whole bundle, it was sent back already, or Prolific
    no longer counts it as in progress (e.g. the participant entered the code: AWAITING REVIEW)."""
    return answered > 0 and (answered >= campaign.tasks_per_submission or submission.finished_at is not None
                             or submission.status not in STARTABLE)


def next_task(submission: ProlificSubmission) -> Assignment | None:
    """The session's open task, else its next task (while it has answered fewer than the bundle's size).

    None: the bundle is done, or no task is left for the participant after at least one answer (they are
    sent back with the code). No task at all: ArrivalRefused asking the participant to return the study."""
    campaign = submission.study.campaign
    expire_stale_assignments(campaign)  # committed first (see services.assignments.start_local_task)
    with transaction.atomic():
        # One take at a time per session, so two tabs cannot take more than the bundle's size.
        fresh = ProlificSubmission.objects.select_for_update().only("finished_at", "status").get(pk=submission.pk)
        submission.finished_at, submission.status = fresh.finished_at, fresh.status
        _check_not_ended(submission)
        answered = answered_count(submission)
        if bundle_done(submission, campaign, answered):
            return None
        if submission.status not in STARTABLE:
            raise ArrivalRefused(410, "Session not active",
                                 f"Prolific reports this session as {submission.status.lower()}, so it cannot be "
                                 "worked on. To take part, start the study again from Prolific.")
        try:
            return assign_next_hit(campaign, submission.worker, expire=False, external_id=submission.submission_id)
        except NoTaskAvailable as exc:
            if answered:
                return None
            raise ArrivalRefused(409, "No task for you", f"{exc} {RETURN_HINT}") from None


def completion_url(study: ProlificStudy) -> str:
    return f"{settings.PROLIFIC_COMPLETE_URL}?{urlencode({'cc': study.completion_code})}"


def finish(submission: ProlificSubmission) -> str:
    """The participant is sent back: `finished_at` stored (the first time), the completion URL returned.

    Only once an answer of the session is stored (ArrivalRefused 409 otherwise)."""
    _check_not_ended(submission)
    if not session_tasks(submission).filter(status__in=ANSWERED).exists():
        raise ArrivalRefused(409, "No answer yet",
                             "You have not submitted a task in this session yet, so there is no completion code. "
                             "Please do a task first.")
    if submission.finished_at is None:
        now = timezone.now()
        if ProlificSubmission.objects.filter(pk=submission.pk, finished_at__isnull=True).update(finished_at=now):
            submission.finished_at = now
        else:  # another request finished it first
            submission.refresh_from_db(fields=["finished_at"])
    return completion_url(submission.study)


def continue_url(submission_id: str, participant_id: str) -> str:
    """The session's signed continue link (its next task, or the completion page when the bundle is done)."""
    return f"{reverse('prolific-continue')}?{urlencode({'s': session_token(submission_id, participant_id)})}"

