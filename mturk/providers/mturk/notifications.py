"""MTurk event notifications (optional): HIT types send events to an SQS queue (or an SNS topic
subscribed by one); a periodic job reads the queue and syncs the HITs the events name.

The periodic sync stays the source of truth; events only make new work show up sooner."""
from __future__ import annotations

import json
import threading
from typing import Any

import boto3
from django.conf import settings

from .client import call, get_client

EVENT_TYPES = ["AssignmentSubmitted", "AssignmentReturned", "AssignmentAbandoned", "AssignmentApproved",
               "AssignmentRejected", "HITReviewable", "HITExpired"]
NOTIFICATION_VERSION = "2006-05-05"

_sqs: Any = None
_lock = threading.Lock()


def configure_hit_type(hit_type_id: str, destination: str, sandbox: bool, transport: str = "SQS") -> None:
    """Send a HIT type's assignment and HIT events to an SQS queue URL or an SNS topic ARN."""
    call(get_client(sandbox), "update_notification_settings", HITTypeId=hit_type_id, Active=True,
         Notification={"Destination": destination, "Transport": transport, "Version": NOTIFICATION_VERSION,
                       "EventTypes": EVENT_TYPES})


def get_sqs_client() -> Any:
    global _sqs
    with _lock:
        if _sqs is None:
            _sqs = boto3.client("sqs", region_name=settings.MTURK_EVENTS_REGION)
        return _sqs


def set_sqs_client(client: Any) -> None:
    global _sqs
    with _lock:
        _sqs = client


def parse_event_document(body: str) -> dict[str, Any]:
    """An MTurk event document, unwrapped from an SNS envelope if the queue is subscribed to a topic.
    Raises ValueError on anything else."""
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if isinstance(data, dict) and data.get("Type") == "Notification" and isinstance(data.get("Message"), str):
        return parse_event_document(data["Message"])
    if not isinstance(data, dict) or not data.get("EventDocId") or not isinstance(data.get("Events"), list):
        raise ValueError("not an MTurk event document (EventDocId and Events are required)")
    return data


def receive(queue_url: str, wait_seconds: int = 0) -> list[dict[str, Any]]:
    response = get_sqs_client().receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10,
                                                WaitTimeSeconds=wait_seconds)
    return response.get("Messages", [])


def delete(queue_url: str, receipt_handle: str) -> None:
    get_sqs_client().delete_message(QueueUrl=queue_url, ReceiptHandle=receipt_handle)
