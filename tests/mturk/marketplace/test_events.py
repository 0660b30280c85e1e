"""Optional MTurk event notifications through SQS: each event document handled once."""
from __future__ import annotations

import json
from datetime import UTC, datetime

import boto3
import pytest
from botocore.stub import Stubber

from mturk.models import HIT, Assignment, Campaign, MarketplaceEvent, MarketplaceHITType
from mturk.providers.mturk import notifications
from mturk.services.marketplace_events import EventReport, handle_document
from mturk.tasks import poll_marketplace_events
from tests.factories import GOOD_TEXT, make_campaign

pytestmark = pytest.mark.django_db
QUEUE = "https://sqs.us-east-1.amazonaws.com/123456789012/mturk-events"
NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd"


def answers_xml(text: str) -> str:
    return (f'<QuestionFormAnswers xmlns="{NS}"><Answer><QuestionIdentifier>answer</QuestionIdentifier>'
            f"<FreeText>{json.dumps({'text': text})}</FreeText></Answer></QuestionFormAnswers>")


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
    campaign = make_campaign(images=1, publish=False, assignments=2, provider="mturk", description="Describe")
    Campaign.objects.filter(pk=campaign.pk).update(status="active")
    MarketplaceHITType.objects.create(campaign=campaign, config_hash="x", external_id="TYPE1")
    HIT.objects.filter(campaign=campaign).update(status="published", external_id="HIT1", hit_type_id="TYPE1")
    return HIT.objects.select_related("campaign").get(campaign=campaign)


def document(doc_id: str, hit_id: str = "HIT1") -> dict:
    return {"EventDocId": doc_id, "SourceAccount": "123", "CustomerId": "A1", "EventDocVersion": "2014-08-15",
            "Events": [{"EventType": "AssignmentSubmitted", "EventTimestamp": "2026-09-01T10:00:00Z",
                        "HITId": hit_id, "AssignmentId": "ASG1", "HITTypeId": "TYPE1"}]}


def stub_submission(stub) -> None:
    stub.add_response("list_assignments_for_hit", {"Assignments": [{
        "AssignmentId": "ASG1", "WorkerId": "W1", "HITId": "HIT1", "AssignmentStatus": "Submitted",
        "AcceptTime": datetime(2026, 9, 1, 9, 50, tzinfo=UTC), "SubmitTime": datetime(2026, 9, 1, 10, tzinfo=UTC),
        "Answer": answers_xml(GOOD_TEXT)}]},
        {"HITId": "HIT1", "MaxResults": 100, "AssignmentStatuses": ["Submitted", "Approved", "Rejected"]})


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
    stub_submission(stub)
    report = EventReport()
    handle_document(document("D1"), report)
    handle_document(document("D1"), report)  # the same document delivered again: no second sync call
    assert (report.documents, report.duplicates, report.hits_synced, report.new_submissions) == (1, 1, 1, 1)
    stored = Assignment.objects.get(hit=live_hit)
    assert (stored.external_id, stored.worker.external_id, stored.answer) == ("ASG1", "W1", {"text": GOOD_TEXT})
    assert MarketplaceEvent.objects.filter(event_doc_id="D1").count() == 1


def test_poll_handles_deletes_and_drops_malformed_messages(settings, stub, sqs, live_hit):
    settings.MTURK_EVENTS_QUEUE_URL = QUEUE
    stub_submission(stub)
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
    handle_document(document("D9", hit_id="NOT-OURS"), result)
    assert (result.documents, result.hits_synced) == (1, 0)


def test_hit_types_send_events_to_the_queue_when_configured(stub):
    stub.add_response("update_notification_settings", {}, {
        "HITTypeId": "TYPE1", "Active": True,
        "Notification": {"Destination": QUEUE, "Transport": "SQS", "Version": "2006-05-05",
                         "EventTypes": notifications.EVENT_TYPES}})
    notifications.configure_hit_type("TYPE1", QUEUE, sandbox=False)
