"""Builders for the offline MTurk tests: a published MTurk campaign set up through the ORM (no publish
calls to stub), MTurk-shaped assignment dicts with QuestionFormAnswers XML, stubbed pages and errors,
and a log of every call the client was asked to make.

The log matters because our `call` wrapper turns every BotoCoreError into a MarketplaceError, and the
Stubber's own complaints (an unexpected call, wrong parameters) are BotoCoreErrors: without the log a
stray call could be swallowed by the code under test."""
from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any
from xml.sax.saxutils import escape

from botocore import xform_name
from botocore.stub import Stubber
from django.utils import timezone

from mturk.models import HIT, Assignment, Campaign, MarketplaceHITType, Worker
from mturk.providers.mturk.documents import ANSWERS_NS
from mturk.providers.mturk.provider import ANSWERED_STATUSES
from mturk.states import AssignmentStatus, CampaignStatus, HITStatus
from tests.factories import GOOD_TEXT, make_campaign

TURK_ERROR = "AWS.MechanicalTurk.InvalidAssignmentState"
HIT_TYPE_ID = "3TYPE00000000000000000000000AA"


def hit_external_id(hit: HIT) -> str:
    """A 30-character MTurk-style HIT id derived from our pk."""
    return f"3HIT{hit.pk:026d}"


def published_mturk_campaign(images: int = 2, *, assignments: int = 3, hit_type_id: str = HIT_TYPE_ID,
                             expires_in: timedelta = timedelta(days=1), **fields: Any) -> Campaign:
    """An active production MTurk campaign whose HITs are on MTurk (set through the ORM, nothing stubbed)."""
    campaign = make_campaign(images=images, publish=False, assignments=assignments, provider="mturk",
                             description="Describe", **fields)
    now = timezone.now()
    Campaign.objects.filter(pk=campaign.pk).update(status=CampaignStatus.ACTIVE, published_at=now,
                                                   sandbox=False, external_id=hit_type_id)
    MarketplaceHITType.objects.create(campaign=campaign, config_hash=f"config-{campaign.pk}",
                                      external_id=hit_type_id)
    for hit in campaign.hits.all():
        HIT.objects.filter(pk=hit.pk).update(
            status=HITStatus.PUBLISHED, external_id=hit_external_id(hit), hit_type_id=hit_type_id,
            published_at=now, expires_at=now + expires_in)
    campaign.refresh_from_db()
    return campaign


def hits_of(campaign: Campaign) -> list[HIT]:
    return list(campaign.hits.order_by("position", "id"))


def worker(external_id: str, provider: str = "mturk") -> Worker:
    found, _ = Worker.objects.get_or_create(provider=provider, external_id=external_id)
    return found


def local_assignment(hit: HIT, worker_id: str, assignment_id: str = "", *,
                     status: str = AssignmentStatus.ACCEPTED, text: str | None = None,
                     marketplace_status: str = "", check_flags: list[str] | None = None,
                     accepted_ago: timedelta = timedelta(minutes=5)) -> Assignment:
    """Our record of an MTurk assignment, written straight to the database."""
    accepted = timezone.now() - accepted_ago
    answered = status in (AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED, AssignmentStatus.REJECTED)
    answer = {"text": text or GOOD_TEXT} if answered or text else None
    return Assignment.objects.create(
        hit=hit, worker=worker(worker_id), external_id=assignment_id, status=status, answer=answer,
        check_flags=check_flags or [], marketplace_status=marketplace_status, accepted_at=accepted,
        deadline=accepted + timedelta(seconds=hit.campaign.time_limit_seconds),
        submitted_at=accepted + timedelta(minutes=1) if answered else None,
    )


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


# ---- stubbed calls ---------------------------------------------------------------------------
def stub_reviewable(stub: Stubber, hit_ids: list[str] | None = None, hit_type_id: str = HIT_TYPE_ID) -> None:
    stub.add_response(
        "list_reviewable_hits",
        {"NumResults": len(hit_ids or []), "HITs": [{"HITId": h, "HITTypeId": hit_type_id} for h in hit_ids or []]},
        {"HITTypeId": hit_type_id, "Status": "Reviewable", "MaxResults": 100},
    )


def stub_assignments(stub: Stubber, hit: HIT, assignments: list[dict[str, Any]], *,
                     token: str | None = None, next_token: str | None = None) -> None:
    """One page of list_assignments_for_hit, with the exact request our paginator sends."""
    expected: dict[str, Any] = {"HITId": hit.external_id, "AssignmentStatuses": ANSWERED_STATUSES, "MaxResults": 100}
    if token:
        expected["NextToken"] = token
    response: dict[str, Any] = {"NumResults": len(assignments), "Assignments": assignments}
    if next_token:
        response["NextToken"] = next_token
    stub.add_response("list_assignments_for_hit", response, expected)


def stub_request_error(stub: Stubber, operation: str, message: str, turk_code: str = TURK_ERROR,
                       expected_params: dict[str, Any] | None = None) -> None:
    """MTurk's modelled RequestError (do not retry; TurkErrorCode says why)."""
    stub.add_client_error(operation, service_error_code="RequestError", service_message=message,
                          modeled_fields={"Message": message, "TurkErrorCode": turk_code},
                          expected_params=expected_params)


def stub_throttled(stub: Stubber, operation: str, expected_params: dict[str, Any] | None = None) -> None:
    """Throttling arrives as an unmodelled ClientError."""
    stub.add_client_error(operation, service_error_code="ThrottlingException", service_message="Rate exceeded",
                          expected_params=expected_params)


def stub_get_assignment(stub: Stubber, assignment_id: str, status: str, worker_id: str = "W1",
                        hit_id: str = "3HIT00000000000000000000000001") -> None:
    stub.add_response(
        "get_assignment",
        {"Assignment": {"AssignmentId": assignment_id, "WorkerId": worker_id, "HITId": hit_id,
                        "AssignmentStatus": status},
         "HIT": {"HITId": hit_id}},
        {"AssignmentId": assignment_id},
    )


def stub_balance(stub: Stubber, available: str) -> None:
    stub.add_response("get_account_balance", {"AvailableBalance": available}, {})


def record_calls(stub: Stubber) -> list[tuple[str, dict[str, Any]]]:
    """Every operation the stubbed client is asked for, as (snake_case name, params), in order, including
    calls the Stubber refuses (those surface as MarketplaceError in our code)."""
    calls: list[tuple[str, dict[str, Any]]] = []

    def remember(params: dict[str, Any], model: Any, **_: Any) -> None:
        calls.append((xform_name(model.name), dict(params)))

    stub.client.meta.events.register("provide-client-params.mturk.*", remember)
    return calls


def operations(calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    return [name for name, _ in calls]
