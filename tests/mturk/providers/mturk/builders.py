"""Builders for the offline MTurk tests: MTurk campaigns set up through the ORM (a draft, or one already
published so there are no publish calls to stub), our records of their assignments, and MTurk-shaped
assignment dicts with QuestionFormAnswers XML.

The requests and responses the tests stub, and the log of calls made, are in helpers.py."""
from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any
from xml.sax.saxutils import escape

from django.utils import timezone

from mturk.models import HIT, Assignment, Campaign, MarketplaceHITType, Worker
from mturk.states import AssignmentStatus, CampaignStatus, HITStatus
from tests.factories import GOOD_TEXT, make_campaign

from .helpers import EXPIRATION, hit_id, type_id

# Written out, not imported from the code under test, so a wrong namespace there fails a test.
ANSWERS_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd"


# ---- campaigns -------------------------------------------------------------------------------
def mturk_campaign(images: int = 2, assignments: int = 2, **fields: Any) -> Campaign:
    """A draft MTurk campaign."""
    return make_campaign(images=images, publish=False, assignments=assignments, provider="mturk", **fields)


def published_mturk_campaign(images: int = 2, *, assignments: int = 2, hit_type_id: str = type_id(1),
                             first_hit: int = 1, **fields: Any) -> Campaign:
    """An active production MTurk campaign whose HITs are on MTurk (set through the ORM, nothing stubbed):
    in position order they are hit_id(first_hit), hit_id(first_hit + 1), ... under `hit_type_id`, expiring
    at EXPIRATION."""
    campaign = mturk_campaign(images=images, assignments=assignments, **fields)
    now = timezone.now()
    Campaign.objects.filter(pk=campaign.pk).update(status=CampaignStatus.ACTIVE, published_at=now,
                                                   sandbox=False, external_id=hit_type_id)
    MarketplaceHITType.objects.create(campaign=campaign, config_hash=f"config-{campaign.pk}",
                                      external_id=hit_type_id)
    for n, hit in enumerate(hits_of(campaign), first_hit):
        HIT.objects.filter(pk=hit.pk).update(
            status=HITStatus.PUBLISHED, external_id=hit_id(n), hit_type_id=hit_type_id,
            published_at=now, expires_at=EXPIRATION)
    campaign.refresh_from_db()
    return campaign


def hits_of(campaign: Campaign) -> list[HIT]:
    return list(campaign.hits.order_by("position", "id"))


def state(campaign: Campaign) -> tuple:
    """What publishing changes on a campaign and its HITs, to compare before and after."""
    campaign.refresh_from_db()
    return (campaign.status, campaign.sandbox, campaign.provider, campaign.published_at,
            sorted(campaign.hits.values_list("pk", "status", "external_id", "published_at")))


# ---- our records -----------------------------------------------------------------------------
def worker(external_id: str, provider: str = "mturk") -> Worker:
    found, _ = Worker.objects.get_or_create(provider=provider, external_id=external_id)
    return found


def local_assignment(hit: HIT, worker_id: str, assignment_id: str = "", *,
                     status: str = AssignmentStatus.ACCEPTED, text: str | None = None,
                     marketplace_status: str = "", check_flags: list[str] | None = None,
                     accepted_ago: timedelta = timedelta(minutes=5), confirmed: bool | None = None) -> Assignment:
    """Our record of an MTurk assignment, written straight to the database: confirmed when the marketplace
    reported it (`marketplace_status` set), unless `confirmed` says otherwise."""
    accepted = timezone.now() - accepted_ago
    answered = status in (AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED, AssignmentStatus.REJECTED)
    answer = {"text": text or GOOD_TEXT} if answered or text else None
    submitted = accepted + timedelta(minutes=1) if answered else None
    return Assignment.objects.create(
        hit=hit, worker=worker(worker_id), external_id=assignment_id, status=status, answer=answer,
        check_flags=check_flags or [], marketplace_status=marketplace_status, accepted_at=accepted,
        confirmed=bool(marketplace_status) if confirmed is None else confirmed,
        deadline=accepted + timedelta(seconds=hit.campaign.time_limit_seconds),
        submitted_at=submitted, time_on_task=submitted - accepted if submitted else None,
    )


def reported(hit: HIT, worker_id: str, assignment_id: str, text: str = GOOD_TEXT, flags: tuple[str, ...] = (),
             marketplace_status: str = "Submitted") -> Assignment:
    """A submission the marketplace has reported (as a sync stores it)."""
    return local_assignment(hit, worker_id, assignment_id, status=AssignmentStatus.SUBMITTED, text=text,
                            marketplace_status=marketplace_status, check_flags=list(flags))


# ---- MTurk documents -------------------------------------------------------------------------
def answers_xml(fields: dict[str, str]) -> str:
    """QuestionFormAnswers XML as MTurk returns it for the fields our page posted."""
    body = "".join(
        f"<Answer><QuestionIdentifier>{escape(name)}</QuestionIdentifier><FreeText>{escape(value)}</FreeText></Answer>"
        for name, value in fields.items()
    )
    return (f'<?xml version="1.0" encoding="ASCII"?>'
            f'<QuestionFormAnswers xmlns="{ANSWERS_NS}">{body}</QuestionFormAnswers>')


def json_answer(text: str = GOOD_TEXT) -> str:
    """The `answer` form field our task page posts: the answer as JSON."""
    return answers_xml({"answer": json.dumps({"text": text})})


def remote(assignment_id: str, worker_id: str, hit: HIT, status: str = "Submitted", *,
           answer: str | None = None, feedback: str = "", accepted: datetime | None = None,
           submitted: datetime | None = None) -> dict[str, Any]:
    """One assignment in a list_assignments_for_hit page."""
    now = timezone.now()
    accepted = accepted or now - timedelta(minutes=4)
    data: dict[str, Any] = {
        "AssignmentId": assignment_id,
        "WorkerId": worker_id,
        "HITId": hit.external_id,
        "AssignmentStatus": status,
        "AcceptTime": accepted,
        "SubmitTime": submitted or accepted + timedelta(minutes=2),
        "AutoApprovalTime": now + timedelta(days=3),
        "Deadline": accepted + timedelta(seconds=hit.campaign.time_limit_seconds),
        "Answer": json_answer() if answer is None else answer,
    }
    if status == "Approved":
        data["ApprovalTime"] = now - timedelta(minutes=1)
    if status == "Rejected":
        data["RejectionTime"] = now - timedelta(minutes=1)
    if feedback:
        data["RequesterFeedback"] = feedback
    return data
