"""Optional MTurk event notifications through SQS: each event document handled once."""
from __future__ import annotations

import json

import boto3
import pytest
from botocore.stub import Stubber

from mturk.models import HIT, Assignment, MarketplaceEvent
from mturk.providers.mturk import notifications
from mturk.providers.mturk.events import EventReport, handle_document
from mturk.providers.mturk.tasks import poll_marketplace_events
from tests.factories import GOOD_TEXT

from .builders import hits_of, published_mturk_campaign, remote
from .helpers import hit_id, stub_assignments, type_id

pytestmark = pytest.mark.django_db
QUEUE = "https://sqs.us-east-1.amazonaws.com/123456789012/mturk-events"


@pytest.fixture
def sqs():
    client = boto3.client("sqs", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y")
    stubber = Stubber(client)
    notifications.set_sqs_client(client)
    with stubber:
        yield stubber
        stubber.assert_no_pending_responses()
    notifications.set_sqs_client(None)


@pytest.fixture
def live_hit() -> HIT:
    """The only HIT on MTurk: hit_id(1) of type type_id(1)."""
    (hit,) = hits_of(published_mturk_campaign(images=1))
    return hit


def document(doc_id: str, hit: str = hit_id(1)) -> dict:
    return {"EventDocId": doc_id, "SourceAccount": "123", "CustomerId": "A1", "EventDocVersion": "2014-08-15",
            "Events": [{"EventType": "AssignmentSubmitted", "EventTimestamp": "2026-09-01T10:00:00Z",
                        "HITId": hit, "AssignmentId": "ASG1", "HITTypeId": type_id(1)}]}


def stub_submission(stub, hit: HIT) -> None:
    """W1 submitted GOOD_TEXT as ASG1."""
    stub_assignments(stub, hit, [remote("ASG1", "W1", hit)])


def test_parse_unwraps_sns_and_refuses_other_messages():
    doc = document("D1")
    assert notifications.parse_event_document(json.dumps(doc)) == doc
    envelope = {"Type": "Notification", "MessageId": "m", "Message": json.dumps(doc)}
    assert notifications.parse_event_document(json.dumps(envelope)) == doc
    with pytest.raises(ValueError, match="EventDocId"):
        notifications.parse_event_document(json.dumps({"Events": []}))
    with pytest.raises(ValueError, match="not JSON"):
        notifications.parse_event_document("<xml/>")


def test_a_document_is_handled_once(stub, live_hit):
    stub_submission(stub, live_hit)
    report = EventReport()
    handle_document(document("D1"), report)
    handle_document(document("D1"), report)  # the same document delivered again: no second sync call
    assert (report.documents, report.duplicates, report.hits_synced, report.new_submissions) == (1, 1, 1, 1)
    stored = Assignment.objects.get(hit=live_hit)
    assert (stored.external_id, stored.worker.external_id, stored.answer) == ("ASG1", "W1", {"text": GOOD_TEXT})
    assert MarketplaceEvent.objects.filter(event_doc_id="D1").count() == 1


def test_poll_handles_deletes_and_drops_malformed_messages(settings, stub, sqs, live_hit):
    settings.MTURK_EVENTS_QUEUE_URL = QUEUE
    stub_submission(stub, live_hit)
    receive = {"QueueUrl": QUEUE, "MaxNumberOfMessages": 10, "WaitTimeSeconds": 0}
    sqs.add_response("receive_message", {"Messages": [
        {"MessageId": "1", "ReceiptHandle": "r1", "Body": json.dumps(document("D7"))},
        {"MessageId": "2", "ReceiptHandle": "r2", "Body": "not json"},
        {"MessageId": "3", "ReceiptHandle": "r3", "Body": json.dumps(document("D7"))},  # duplicate delivery
    ]}, receive)
    for handle in ("r1", "r2", "r3"):
        sqs.add_response("delete_message", {}, {"QueueUrl": QUEUE, "ReceiptHandle": handle})
    sqs.add_response("receive_message", {"Messages": []}, receive)
    result = poll_marketplace_events.delay().get()
    assert result == {"documents": 1, "duplicates": 1, "malformed": 1, "hits_synced": 1, "new_submissions": 1}
    assert Assignment.objects.filter(hit=live_hit, status="submitted").count() == 1


def test_an_unknown_hit_is_recorded_without_calls(stub):
    result = EventReport()
    handle_document(document("D9", hit="NOT-OURS"), result)
    assert (result.documents, result.hits_synced) == (1, 0)


def test_hit_types_send_events_to_the_queue_when_configured(stub):
    stub.add_response("update_notification_settings", {}, {
        "HITTypeId": "TYPE1", "Active": True,
        "Notification": {"Destination": QUEUE, "Transport": "SQS", "Version": "2006-05-05",
                         "EventTypes": notifications.EVENT_TYPES}})
    notifications.configure_hit_type("TYPE1", QUEUE, sandbox=False)
