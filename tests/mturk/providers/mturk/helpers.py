"""Builders for the exact MTurk requests and responses the marketplace tests stub, the stubbed pages and
errors, and a log of every call the client was asked to make.

The expected requests are written out literally (not built with the code under test), so a change in
what we send to MTurk fails a test.

The log matters because our `call` wrapper turns every BotoCoreError into a MarketplaceError, and the
Stubber's own complaints (an unexpected call, wrong parameters) are BotoCoreErrors: without the log a
stray call could be swallowed by the code under test."""
from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from botocore import xform_name
from botocore.stub import Stubber

from mturk.models import HIT
from mturk.work.tokens import preview_token

PREFIX = "t1"  # settings.MTURK_REQUEST_PREFIX in conftest
BASE_URL = "https://crowd.example.org"  # settings.PUBLIC_BASE_URL in conftest
EXPIRATION = datetime(2030, 1, 8, 12, 0, tzinfo=UTC)

# describe_image defaults (annotation/task_kinds/describe_image.py) and Campaign model defaults
TITLE = "Describe an image in one sentence"
DESCRIPTION = "Look at a picture and write one sentence that describes it."
DURATION = 600
AUTO_APPROVAL = 3 * 24 * 3600
LIFETIME = 7 * 24 * 3600

MASTERS_PRODUCTION = "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH"
MASTERS_SANDBOX = "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6"

HIT_ALREADY_EXISTS = "AWS.MechanicalTurk.HitAlreadyExists"
INVALID_ASSIGNMENT_STATE = "AWS.MechanicalTurk.InvalidAssignmentState"

ANSWERED = ["Submitted", "Approved", "Rejected"]  # the AssignmentStatuses we list
EXPIRE_NOW = datetime(2015, 1, 1, tzinfo=UTC)  # the past ExpireAt that expires a HIT at once


def hit_id(n: int) -> str:
    """A 30-character MTurk HIT id: upper-case letters and digits."""
    value = f"3HIT{n:026d}"
    assert len(value) == 30
    return value


def type_id(n: int) -> str:
    return f"3TYPE{n:025d}"


def qual_id(n: int) -> str:
    return f"3QUAL{n:025d}"


def token(hit: HIT) -> str:
    return f"{PREFIX}-hit-{hit.pk}"


def annotation(hit: HIT) -> str:
    return f"{PREFIX}:campaign:{hit.campaign_id}:hit:{hit.pk}"


def question(hit: HIT) -> str:
    """The ExternalQuestion for a HIT's task page, with `&` escaped exactly once."""
    return (
        '<ExternalQuestion xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
        '2006-07-14/ExternalQuestion.xsd">'
        f"<ExternalURL>{BASE_URL}/mt/task/?c={hit.campaign_id}&amp;h={preview_token(hit.pk)}</ExternalURL>"
        "<FrameHeight>0</FrameHeight>"
        "</ExternalQuestion>"
    )


def hit_type_request(*, reward: str = "0.10", title: str = TITLE, description: str = DESCRIPTION,
                     duration: int = DURATION, auto_approval: int = AUTO_APPROVAL, keywords: str | None = None,
                     requirements: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The create_hit_type request we expect (Keywords and QualificationRequirements only when set)."""
    params: dict[str, Any] = {
        "AutoApprovalDelayInSeconds": auto_approval,
        "AssignmentDurationInSeconds": duration,
        "Reward": reward,
        "Title": title,
        "Description": description,
    }
    if keywords is not None:
        params["Keywords"] = keywords
    if requirements is not None:
        params["QualificationRequirements"] = requirements
    return params


def hit_request(hit: HIT, hit_type: str, *, max_assignments: int = 3, lifetime: int = LIFETIME) -> dict[str, Any]:
    """The create_hit_with_hit_type request we expect for a HIT."""
    return {
        "HITTypeId": hit_type,
        "MaxAssignments": max_assignments,
        "LifetimeInSeconds": lifetime,
        "Question": question(hit),
        "RequesterAnnotation": annotation(hit),
        "UniqueRequestToken": token(hit),
    }


def hit_response(external: str, hit_type: str, *, expiration: datetime = EXPIRATION,
                 annotation_text: str | None = None, max_assignments: int = 3) -> dict[str, Any]:
    hit: dict[str, Any] = {
        "HITId": external, "HITTypeId": hit_type, "HITStatus": "Assignable", "MaxAssignments": max_assignments,
        "Expiration": expiration,
    }
    if annotation_text is not None:
        hit["RequesterAnnotation"] = annotation_text
    return {"HIT": hit}


def participation_request(scope: str) -> dict[str, Any]:
    return {
        "Name": f"{PREFIX} took part: {scope}",
        "QualificationTypeStatus": "Active",
        "Description": f"Granted after a first submission to {scope}; keeps a worker from repeating it.",
    }


def participation_response(qualification: str, scope: str) -> dict[str, Any]:
    return {"QualificationType": {"QualificationTypeId": qualification, "Name": f"{PREFIX} took part: {scope}",
                                  "QualificationTypeStatus": "Active"}}


def does_not_exist(qualification: str) -> dict[str, Any]:
    return {"QualificationTypeId": qualification, "Comparator": "DoesNotExist",
            "ActionsGuarded": "DiscoverPreviewAndAccept"}


def add_throttling(stub: Stubber, method: str, expected_params: dict[str, Any] | None = None) -> None:
    """Throttling arrives as an unmodelled ClientError."""
    stub.add_client_error(method, service_error_code="ThrottlingException", service_message="Rate exceeded",
                          http_status_code=400, expected_params=expected_params)


def add_request_error(stub: Stubber, method: str, message: str, turk_code: str,
                      expected_params: dict[str, Any] | None = None) -> None:
    """A modelled RequestError (validated by the Stubber against the error shape; do not retry; TurkErrorCode
    says why)."""
    stub.add_client_error(method, service_error_code="RequestError", service_message=message,
                          http_status_code=400, expected_params=expected_params,
                          modeled_fields={"Message": message, "TurkErrorCode": turk_code})


def add_already_exists(stub: Stubber, hit: HIT, hit_type: str, message: str) -> None:
    add_request_error(stub, "create_hit_with_hit_type", message, HIT_ALREADY_EXISTS,
                      expected_params=hit_request(hit, hit_type))


def stub_publication(stub: Stubber, hit: HIT, n: int, *, max_assignments: int = 3, **type_fields: Any) -> None:
    """Publishing a campaign of one HIT: MTurk creates HIT type type_id(n) for it (default settings unless
    `type_fields` for hit_type_request say otherwise) and then the HIT as hit_id(n)."""
    stub.add_response("create_hit_type", {"HITTypeId": type_id(n)}, hit_type_request(**type_fields))
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(n), type_id(n), max_assignments=max_assignments),
                      hit_request(hit, type_id(n), max_assignments=max_assignments))


def stub_sync_listings(stub: Stubber, hit_ids: list[str] | None = None, hit_type_id: str = type_id(1), *,
                       listed: list[dict[str, Any]] | None = None) -> None:
    """The two listings a campaign sync starts with: the account's HITs with their assignment counts
    (`listed`, see `listed_hit`; none listed: every HIT is checked), then the reviewable HITs of the HIT
    type (`hit_ids`)."""
    stub_hit_list(stub, listed)
    stub_reviewable(stub, hit_ids, hit_type_id)


def stub_reviewable(stub: Stubber, hit_ids: list[str] | None = None, hit_type_id: str = type_id(1)) -> None:
    stub.add_response(
        "list_reviewable_hits",
        {"NumResults": len(hit_ids or []), "HITs": [{"HITId": h, "HITTypeId": hit_type_id} for h in hit_ids or []]},
        {"HITTypeId": hit_type_id, "Status": "Reviewable", "MaxResults": 100},
    )


def stub_hit_list(stub: Stubber, listed: list[dict[str, Any]] | None = None) -> None:
    stub.add_response("list_hits", {"NumResults": len(listed or []), "HITs": listed or []}, {"MaxResults": 100})


def listed_hit(external_id: str, *, max_assignments: int, pending: int = 0, available: int = 0,
               completed: int = 0, hit_type_id: str = type_id(1)) -> dict[str, Any]:
    """A HIT as list_hits shows it: answered = max - pending - available, decided = completed."""
    return {"HITId": external_id, "HITTypeId": hit_type_id, "MaxAssignments": max_assignments,
            "NumberOfAssignmentsPending": pending, "NumberOfAssignmentsAvailable": available,
            "NumberOfAssignmentsCompleted": completed}


def stub_assignments(stub: Stubber, hit: HIT, assignments: list[dict[str, Any]], *,
                     token: str | None = None, next_token: str | None = None) -> None:
    """One page of list_assignments_for_hit, with the exact request our paginator sends."""
    expected: dict[str, Any] = {"HITId": hit.external_id, "AssignmentStatuses": ANSWERED, "MaxResults": 100}
    if token:
        expected["NextToken"] = token
    response: dict[str, Any] = {"NumResults": len(assignments), "Assignments": assignments}
    if next_token:
        response["NextToken"] = next_token
    stub.add_response("list_assignments_for_hit", response, expected)


def stub_get_assignment(stub: Stubber, assignment_id: str, status: str, worker_id: str = "W1",
                        hit: str = hit_id(1)) -> None:
    stub.add_response(
        "get_assignment",
        {"Assignment": {"AssignmentId": assignment_id, "WorkerId": worker_id, "HITId": hit,
                        "AssignmentStatus": status},
         "HIT": {"HITId": hit}},
        {"AssignmentId": assignment_id},
    )


def stub_balance(stub: Stubber, available: str) -> None:
    stub.add_response("get_account_balance", {"AvailableBalance": available}, {})


def record_calls(stub: Stubber) -> list[tuple[str, dict[str, Any]]]:
    """Every operation the stubbed client is asked for, as (snake_case name, params), in order, including
    calls answered with an error and calls the Stubber refuses (those surface as MarketplaceError in our
    code)."""
    calls: list[tuple[str, dict[str, Any]]] = []

    def remember(params: dict[str, Any], model: Any, **_: Any) -> None:
        calls.append((xform_name(model.name), dict(params)))

    stub.client.meta.events.register("provide-client-params.mturk.*", remember)
    return calls


def operations(calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    return [name for name, _ in calls]


def params_of(calls: list[tuple[str, dict[str, Any]]], operation: str) -> list[dict[str, Any]]:
    """The parameters of every `operation` (snake_case) request in the log, in order."""
    return [params for name, params in calls if name == operation]


# ---- the iframe task page ---------------------------------------------------------------------
def iframe_link(hit: HIT, worker_id: str, assignment_id: str, submit_to: str = "https://www.mturk.com") -> str:
    """The HIT's ExternalURL as MTurk opens it for an accepted assignment (the ids are not signed)."""
    query = {"c": hit.campaign_id, "h": preview_token(hit.pk), "assignmentId": assignment_id,
             "hitId": hit.external_id, "workerId": worker_id, "turkSubmitTo": submit_to}
    return "/mt/task/?" + urlencode(query)


def page_token(response: Any) -> str:
    """The signed assignment token a task page carries."""
    match = re.search(r'data-token="([^"]+)"', response.content.decode())
    assert match, "the task page carries no token"
    return match.group(1)
