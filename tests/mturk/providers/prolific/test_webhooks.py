"""Prolific webhooks: signature and timestamp checks, the receiver, storage once per X-Event-ID, and handling
that reads Prolific's current state (so duplicated and out-of-order deliveries end in the right state)."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import responses
from django.db import connection
from django.test import Client
from django.urls import reverse

from mturk.models import MarketplaceEvent, Worker
from mturk.providers.prolific import events as prolific_events
from mturk.providers.prolific.client import reset_client
from mturk.providers.prolific.events import handle_pending_events, parse_timestamp, store_event, verify_signature
from mturk.providers.prolific.models import ProlificStudy, ProlificSubmission
from tests.factories import make_campaign

pytestmark = pytest.mark.django_db
API = "https://api.prolific.test/api/v1/"
SECRET = "whsec-test-3c9f0a71"
URL = "/hooks/prolific/"


@pytest.fixture(autouse=True)
def prolific_settings(settings):
    settings.PROLIFIC_API_URL = API
    settings.PROLIFIC_TOKEN = "token-test"
    settings.PROLIFIC_WORKSPACE_ID = "W1"
    settings.PROLIFIC_WEBHOOK_SECRET = SECRET
    settings.PROLIFIC_WEBHOOK_TOLERANCE_SECONDS = 300
    reset_client()
    yield settings
    reset_client()


@pytest.fixture
def prolific() -> Iterator[responses.RequestsMock]:
    """Prolific's API; a call nobody registered fails the test (as a connection error)."""
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


def sign(body: bytes, timestamp: str, secret: str = SECRET) -> str:
    return base64.b64encode(hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()).decode()


def event_body(resource_id: str = "SUB1", status: str = "AWAITING REVIEW",
               event_type: str = "submission.status.change") -> bytes:
    payload = {"resource_id": resource_id, "event_type": event_type, "participant_id": "P1", "status": status}
    return json.dumps(payload, separators=(",", ":")).encode()  # compact: not what json.dumps() writes


def deliver(client: Client, body: bytes, event_id: str | None = "E1", *, timestamp: str | None = None,
            signature: str | None = None):
    stamp = timestamp if timestamp is not None else str(int(time.time()))
    headers = {"HTTP_X_PROLIFIC_REQUEST_TIMESTAMP": stamp,
               "HTTP_X_PROLIFIC_REQUEST_SIGNATURE": signature if signature is not None else sign(body, stamp)}
    if event_id is not None:
        headers["HTTP_X_EVENT_ID"] = event_id
    return client.post(URL, data=body, content_type="application/json", **headers)


@pytest.fixture
def submission() -> ProlificSubmission:
    """Participant P1's submission SUB1 in study S1, ACTIVE as far as we know."""
    campaign = make_campaign(images=1, publish=False, provider="prolific")
    study = ProlificStudy.objects.create(campaign=campaign, external_id="S1", status="ACTIVE")
    worker = Worker.objects.create(provider="prolific", external_id="P1")
    return ProlificSubmission.objects.create(study=study, submission_id="SUB1", worker=worker, status="ACTIVE")


def remote_submission(status: str) -> dict:
    """GET /submissions/{id}/ (the single shape)."""
    return {"id": "SUB1", "participant": "P1", "study_id": "S1", "status": status,
            "started_at": "2026-09-01T10:00:00Z", "completed_at": "2026-09-01T10:09:00Z", "entered_code": "C1"}


def submission_calls(mock: responses.RequestsMock) -> int:
    return sum(1 for call in mock.calls if call.request.url == f"{API}submissions/SUB1/")


# ---- the signature -------------------------------------------------------------------------------
def test_a_signature_of_the_raw_body_is_accepted_and_anything_else_refused():
    body, stamp = event_body(), str(int(time.time()))
    assert verify_signature(SECRET, stamp, body, sign(body, stamp))
    assert not verify_signature(SECRET, stamp, body, sign(body, stamp, secret="another-secret"))
    assert not verify_signature(SECRET, stamp, body.replace(b"AWAITING REVIEW", b"APPROVED"), sign(body, stamp))
    assert not verify_signature(SECRET, str(int(stamp) + 1), body, sign(body, stamp))  # the timestamp is signed
    assert not verify_signature(SECRET, stamp, body, "")
    assert not verify_signature(SECRET, "", body, sign(body, ""))
    assert not verify_signature("", stamp, body, sign(body, stamp, secret=""))


def test_a_signature_of_the_reserialised_json_is_accepted_too():
    """Prolific's documented example signs json.dumps(body) of the parsed body, not the bytes sent."""
    body, stamp = event_body(), str(int(time.time()))
    reserialised = json.dumps(json.loads(body)).encode()
    assert reserialised != body
    assert verify_signature(SECRET, stamp, body, sign(reserialised, stamp))
    assert not verify_signature(SECRET, stamp, body, sign(reserialised, stamp, secret="another-secret"))
    assert not verify_signature(SECRET, stamp, b"not json", sign(b"not json ", stamp))


def test_stale_and_future_timestamps_are_refused(settings):
    body, now = event_body(), 1_790_000_000
    tolerance = settings.PROLIFIC_WEBHOOK_TOLERANCE_SECONDS
    for offset, accepted in ((0, True), (-tolerance, True), (tolerance, True), (-tolerance - 1, False),
                             (tolerance + 1, False), (-86_400, False)):
        stamp = str(now + offset)
        assert verify_signature(SECRET, stamp, body, sign(body, stamp), now=now) is accepted, offset


def test_timestamps_in_seconds_milliseconds_and_iso_8601():
    assert parse_timestamp("1790000000") == 1_790_000_000
    assert parse_timestamp("1790000000.5") == 1_790_000_000.5
    assert parse_timestamp("1790000000000") == 1_790_000_000
    moment = datetime(2026, 9, 1, 10, 0, tzinfo=UTC)
    assert parse_timestamp("2026-09-01T10:00:00Z") == moment.timestamp()
    assert parse_timestamp("2026-09-01T12:00:00+02:00") == moment.timestamp()
    for bad in ("", "yesterday", "2026-09-01T10:00:00", "nan", "inf"):
        assert parse_timestamp(bad) is None, bad
    stamp = "2026-09-01T10:00:00Z"
    body = event_body()
    assert verify_signature(SECRET, stamp, body, sign(body, stamp), now=moment.timestamp() + 10)


# ---- the receiver ----------------------------------------------------------------------------------
def test_a_new_event_is_stored_and_its_handling_queued(client, django_capture_on_commit_callbacks, monkeypatch):
    queued: list[bool] = []
    monkeypatch.setattr("mturk.providers.prolific.tasks.prolific_handle_events.delay",
                        lambda *a, **k: queued.append(True))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = deliver(client, event_body(), "E1")
    assert response.status_code == 200 and response.json()["duplicate"] is False
    assert (len(callbacks), queued) == (1, [True])  # queued once the event is committed, not run in the request
    event = MarketplaceEvent.objects.get()
    assert (event.provider, event.event_doc_id, event.event_type, event.assignment_external_id,
            event.hit_external_id, event.handled_at) == ("prolific", "E1", "submission.status.change", "SUB1", "",
                                                         None)
    assert event.payload == json.loads(event_body())


def test_the_receiver_needs_no_csrf_token_and_only_takes_post(django_capture_on_commit_callbacks):
    strict = Client(enforce_csrf_checks=True)
    with django_capture_on_commit_callbacks():
        assert deliver(strict, event_body(), "E1").status_code == 200
    assert strict.get(URL).status_code == 405
    assert reverse("prolific-hooks") == URL


def test_without_a_secret_the_receiver_answers_503(client, settings):
    settings.PROLIFIC_WEBHOOK_SECRET = ""
    response = deliver(client, event_body(), "E1", signature=sign(event_body(), str(int(time.time())), secret=""))
    assert response.status_code == 503 and "PROLIFIC_WEBHOOK_SECRET" in response.json()["detail"]
    assert not MarketplaceEvent.objects.exists()


@pytest.mark.parametrize("case", ["missing", "forged", "other secret", "tampered", "stale", "future"])
def test_unverified_calls_are_refused_and_nothing_is_stored(client, case):
    body, now = event_body(), int(time.time())
    if case == "missing":
        response = deliver(client, body, signature="")
    elif case == "forged":
        response = deliver(client, body, signature=base64.b64encode(b"x" * 32).decode())
    elif case == "other secret":
        response = deliver(client, body, signature=sign(body, str(now), secret="not-the-secret"))
    elif case == "tampered":
        response = deliver(client, body.replace(b"AWAITING REVIEW", b"APPROVED"), signature=sign(body, str(now)))
    elif case == "stale":
        response = deliver(client, body, timestamp=str(now - 3600))
    else:
        response = deliver(client, body, timestamp=str(now + 3600))
    assert response.status_code == 401, response.content
    assert "Not a verified Prolific webhook call" in response.json()["detail"]
    assert not MarketplaceEvent.objects.exists()


def test_the_reserialised_signature_is_accepted_by_the_receiver(client, django_capture_on_commit_callbacks):
    body, stamp = event_body(), str(int(time.time()))
    with django_capture_on_commit_callbacks():
        response = deliver(client, body, "E1", timestamp=stamp, signature=sign(json.dumps(json.loads(body)).encode(),
                                                                               stamp))
    assert response.status_code == 200
    assert MarketplaceEvent.objects.filter(event_doc_id="E1").exists()


@pytest.mark.parametrize("body, event_id, message", [
    (b"{not json", "E1", "not JSON"),
    (b"[1, 2]", "E1", "not a JSON object"),
    (event_body(), None, "X-Event-ID is missing"),
    (event_body(), "E" * 101, "longer than 100"),
    (json.dumps({"event_type": "submission.status.change", "resource_id": 7}).encode(), "E1", "resource_id"),
])
def test_malformed_events_get_400_and_nothing_is_stored(client, body, event_id, message):
    response = deliver(client, body, event_id)
    assert response.status_code == 400 and message in response.json()["detail"]
    assert not MarketplaceEvent.objects.exists()


def test_an_oversized_body_is_refused(client):
    body = json.dumps({"resource_id": "SUB1", "event_type": "x", "padding": "y" * 70_000}).encode()
    assert deliver(client, body, "E1").status_code == 413
    assert not MarketplaceEvent.objects.exists()


def test_a_duplicate_event_is_stored_once_and_handled_once(client, submission, prolific,
                                                           django_capture_on_commit_callbacks):
    """Prolific redelivers with the same X-Event-ID: the second call is acknowledged and changes nothing."""
    prolific.get(f"{API}submissions/SUB1/", json=remote_submission("AWAITING REVIEW"))
    with django_capture_on_commit_callbacks(execute=True) as first:
        assert deliver(client, event_body(), "E1").json() == {"detail": "Received.", "duplicate": False}
    with django_capture_on_commit_callbacks(execute=True) as second:
        answer = deliver(client, event_body(), "E1")
    assert answer.status_code == 200 and answer.json() == {"detail": "Already received.", "duplicate": True}
    assert (len(first), len(second)) == (1, 0)  # the copy queues nothing
    assert MarketplaceEvent.objects.filter(event_doc_id="E1").count() == 1
    assert MarketplaceEvent.objects.get().handled_at is not None
    assert submission_calls(prolific) == 1
    submission.refresh_from_db()
    assert submission.status == "AWAITING REVIEW"
    handle_pending_events()  # a later run finds nothing to do
    assert submission_calls(prolific) == 1


def test_store_event_deduplicates_on_the_event_id(django_capture_on_commit_callbacks):
    payload = json.loads(event_body())
    with django_capture_on_commit_callbacks() as callbacks:
        assert store_event("E9", payload) is True
        assert store_event("E9", {**payload, "status": "APPROVED"}) is False
    assert len(callbacks) == 1
    assert MarketplaceEvent.objects.get(event_doc_id="E9").payload["status"] == "AWAITING REVIEW"


# ---- handling ----------------------------------------------------------------------------------------
def test_events_out_of_order_end_in_prolific_s_current_state(submission, prolific,
                                                             django_capture_on_commit_callbacks):
    """The newer event (AWAITING REVIEW) is handled first; the older one (ACTIVE) arrives late. Handling reads
    the submission from Prolific each time, so the late event does not take the status back."""
    prolific.get(f"{API}submissions/SUB1/", json=remote_submission("AWAITING REVIEW"))
    with django_capture_on_commit_callbacks():
        store_event("E2", json.loads(event_body(status="AWAITING REVIEW")))
    assert handle_pending_events().handled == 1
    with django_capture_on_commit_callbacks():
        store_event("E1", json.loads(event_body(status="ACTIVE")))
    report = handle_pending_events()
    assert (report.handled, report.submissions_synced) == (1, 1)
    submission.refresh_from_db()
    assert submission.status == "AWAITING REVIEW"
    assert submission_calls(prolific) == 2
    assert not MarketplaceEvent.objects.filter(handled_at__isnull=True).exists()


def test_a_burst_about_one_submission_is_answered_by_one_read(submission, prolific,
                                                              django_capture_on_commit_callbacks):
    prolific.get(f"{API}submissions/SUB1/", json=remote_submission("APPROVED"))
    with django_capture_on_commit_callbacks():
        for event_id, status in (("E3", "APPROVED"), ("E1", "ACTIVE"), ("E2", "AWAITING REVIEW")):
            store_event(event_id, json.loads(event_body(status=status)))
    report = handle_pending_events()
    assert (report.handled, report.submissions_synced) == (3, 1)
    assert submission_calls(prolific) == 1
    submission.refresh_from_db()
    assert submission.status == "APPROVED"


def test_a_study_event_refreshes_the_study(submission, prolific, django_capture_on_commit_callbacks):
    prolific.get(f"{API}studies/S1/", json={"id": "S1", "status": "PAUSED", "total_available_places": 0,
                                            "places_taken": 0})
    with django_capture_on_commit_callbacks():
        store_event("E1", {"resource_id": "S1", "event_type": "study.status.change", "status": "ACTIVE",
                           "metadata": {}})
    report = handle_pending_events()
    assert (report.handled, report.studies_refreshed) == (1, 1)
    assert ProlificStudy.objects.get(external_id="S1").status == "PAUSED"


def test_other_event_types_are_marked_handled_without_a_call(prolific, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks():
        store_event("E1", {"resource_id": "S1", "event_type": "study.progress.change"})
        store_event("E2", {"event_type": "submission.status.change"})  # no resource to read
    report = handle_pending_events()
    assert (report.handled, report.ignored) == (2, 2)
    assert len(prolific.calls) == 0
    assert not MarketplaceEvent.objects.filter(handled_at__isnull=True).exists()


def test_a_submission_of_another_study_is_handled_and_changes_nothing(submission, prolific,
                                                                      django_capture_on_commit_callbacks):
    prolific.get(f"{API}submissions/SUB2/", json={**remote_submission("APPROVED"), "id": "SUB2",
                                                  "study_id": "NOT-OURS", "participant": "P9"})
    with django_capture_on_commit_callbacks():
        store_event("E1", json.loads(event_body(resource_id="SUB2")))
    assert handle_pending_events().handled == 1
    assert not ProlificSubmission.objects.filter(submission_id="SUB2").exists()
    assert not Worker.objects.filter(external_id="P9").exists()


def test_while_prolific_is_unreachable_events_stay_pending(submission, prolific,
                                                           django_capture_on_commit_callbacks):
    prolific.get(f"{API}submissions/SUB1/", status=503, json={"message": "down", "detail": "maintenance"})
    with django_capture_on_commit_callbacks():
        store_event("E1", json.loads(event_body()))
        store_event("E2", {"resource_id": "S1", "event_type": "study.status.change"})
    report = handle_pending_events()
    assert (report.handled, report.deferred) == (0, 2)
    assert "stopped" in report.problems[0]
    assert MarketplaceEvent.objects.filter(handled_at__isnull=True).count() == 2
    submission.refresh_from_db()
    assert submission.status == "ACTIVE"

    prolific.replace(responses.GET, f"{API}submissions/SUB1/", json=remote_submission("AWAITING REVIEW"))
    prolific.get(f"{API}studies/S1/", json={"id": "S1", "status": "ACTIVE"})
    assert handle_pending_events().handled == 2  # the next run (the periodic sync) handles them
    submission.refresh_from_db()
    assert submission.status == "AWAITING REVIEW"


def test_a_refused_read_is_reported_and_the_event_not_retried_forever(submission, prolific,
                                                                      django_capture_on_commit_callbacks):
    prolific.get(f"{API}submissions/SUB1/", status=400,
                 json={"error": {"status": 400, "title": "Bad request", "detail": "invalid id"}})
    with django_capture_on_commit_callbacks():
        store_event("E1", json.loads(event_body()))
    report = handle_pending_events()
    assert (report.handled, report.failed) == (1, 1)
    assert "invalid id" in report.problems[0]
    submission.refresh_from_db()
    assert submission.status == "ACTIVE"


def test_an_unexpected_error_leaves_the_event_pending_and_the_others_go_on(submission, prolific, monkeypatch,
                                                                           django_capture_on_commit_callbacks):
    prolific.get(f"{API}submissions/SUB1/", json=remote_submission("AWAITING REVIEW"))
    real = prolific_events.handle_resource

    def broken_for_studies(event_type, resource_id, report):
        if event_type == "study.status.change":
            raise RuntimeError("bug")
        real(event_type, resource_id, report)

    monkeypatch.setattr(prolific_events, "handle_resource", broken_for_studies)
    with django_capture_on_commit_callbacks():
        store_event("E1", {"resource_id": "S1", "event_type": "study.status.change"})
        store_event("E2", json.loads(event_body()))
    report = handle_pending_events()
    assert (report.handled, report.deferred) == (1, 1)
    assert list(MarketplaceEvent.objects.filter(handled_at__isnull=True).values_list("event_doc_id", flat=True)) \
        == ["E1"]
    submission.refresh_from_db()
    assert submission.status == "AWAITING REVIEW"


def test_the_task_handles_pending_events(submission, prolific, django_capture_on_commit_callbacks):
    from mturk.providers.prolific.tasks import prolific_handle_events

    prolific.get(f"{API}submissions/SUB1/", json=remote_submission("RETURNED"))
    with django_capture_on_commit_callbacks():
        store_event("E1", json.loads(event_body(status="RETURNED")))
    result = prolific_handle_events.delay().get()
    assert (result["handled"], result["submissions_synced"]) == (1, 1)
    submission.refresh_from_db()
    assert submission.status == "RETURNED"


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL")
def test_an_event_another_job_is_handling_is_skipped(submission, prolific, monkeypatch):
    """Two jobs never handle one event at once: a row locked by another job is skipped, not waited for."""
    from django.db import connections, transaction

    monkeypatch.setattr("mturk.providers.prolific.tasks.prolific_handle_events.delay",
                        lambda *a, **k: None)  # no job of its own
    prolific.get(f"{API}submissions/SUB1/", json=remote_submission("AWAITING REVIEW"))
    store_event("E1", json.loads(event_body()))
    locked, release = threading.Event(), threading.Event()

    def other_job() -> None:
        try:
            with transaction.atomic():
                list(MarketplaceEvent.objects.select_for_update().filter(event_doc_id="E1"))
                locked.set()
                release.wait(30)
        finally:
            connections.close_all()

    holder = threading.Thread(target=other_job)
    holder.start()
    try:
        assert locked.wait(30)
        assert handle_pending_events().handled == 0
        assert submission_calls(prolific) == 0
    finally:
        release.set()
        holder.join()
    assert handle_pending_events().handled == 1
    submission.refresh_from_db()
    assert submission.status == "AWAITING REVIEW"
