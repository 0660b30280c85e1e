"""Builders for the exact MTurk requests and responses the marketplace tests stub.

The expected requests are written out literally (not built with the code under test), so a change in
what we send to MTurk fails a test."""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from botocore.stub import Stubber

from mturk.models import HIT
from mturk.tokens import preview_token

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


def add_throttling(stub: Stubber, method: str) -> None:
    stub.add_client_error(method, service_error_code="ThrottlingException", service_message="Rate exceeded",
                          http_status_code=400)


def add_request_error(stub: Stubber, method: str, message: str, turk_code: str,
                      expected_params: dict[str, Any] | None = None) -> None:
    """A modelled RequestError (validated by the Stubber against the error shape)."""
    stub.add_client_error(method, service_error_code="RequestError", service_message=message,
                          http_status_code=400, expected_params=expected_params,
                          modeled_fields={"Message": message, "TurkErrorCode": turk_code})


def add_already_exists(stub: Stubber, hit: HIT, hit_type: str, message: str) -> None:
    add_request_error(stub, "create_hit_with_hit_type", message, HIT_ALREADY_EXISTS,
                      expected_params=hit_request(hit, hit_type))


def record_requests(stub: Stubber, operation: str) -> list[dict[str, Any]]:
    """Every request the client sends for `operation` (e.g. "CreateHITWithHITType"), in order, including the
    ones answered with an error."""
    seen: list[dict[str, Any]] = []

    def remember(params: dict[str, Any], **_: Any) -> None:
        seen.append(dict(params))

    stub.client.meta.events.register(f"before-parameter-build.mturk.{operation}", remember)
    return seen
