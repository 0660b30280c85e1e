"""The submission endpoint: validation, isolation, idempotency, and races (on PostgreSQL)."""
import threading
from datetime import timedelta
from unittest import mock

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from mturk.models import Assignment
from mturk.states import AssignmentStatus
from mturk.work.tokens import assignment_token, preview_token
from tests.factories import GOOD_TEXT, make_campaign
from tests.worker_flow import start_task, submit

pytestmark = pytest.mark.django_db


def answered_count() -> int:
    return Assignment.objects.exclude(answer=None).count()


def test_valid_answer_is_stored_once_and_next_task_offered(client):
    campaign = make_campaign(images=2)
    token = start_task(client, campaign)
    response = submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["status"] == "stored"
    assignment = Assignment.objects.get(pk=body["assignment"])
    assert assignment.status == AssignmentStatus.SUBMITTED
    assert assignment.answer == {"text": GOOD_TEXT}
    assert assignment.time_on_task is not None
    next_page = client.get(body["next_url"])
    assert next_page.status_code == 200 and "Start next task" in next_page.content.decode()
    started = client.post(body["next_url"])
    assert started.status_code == 303 and "/task/?t=" in started["Location"]
    assert Assignment.objects.filter(worker=assignment.worker).count() == 2


def test_double_submit_stores_one_answer(client):
    campaign = make_campaign(images=1)
    token = start_task(client, campaign)
    first = submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
    second = submit(client, {"token": token, "answer": {"text": GOOD_TEXT + " Again and again."}})
    assert (first.status_code, second.status_code) == (201, 200)
    assert second.json()["status"] == "already_stored"
    assert answered_count() == 1
    assert Assignment.objects.get().answer == {"text": GOOD_TEXT}


@pytest.mark.parametrize(
    ("raw", "status", "message"),
    [
        (b"{not json", 400, "The answer was refused: malformed JSON"),
        (b"[1, 2]", 400, "Expected a JSON object"),
        (b'{"token": "x", "answer": {}, "extra": 1}', 400, "Unknown field(s): extra"),
        (b'{"token": "x"}', 400, "'answer' field is missing"),
    ],
)
def test_malformed_bodies_are_refused_with_a_message(client, raw, status, message):
    make_campaign(images=1)
    response = submit(client, None, raw=raw)
    assert response.status_code == status
    assert message in response.json()["error"]
    assert answered_count() == 0


def test_wrong_content_type_is_refused(client):
    response = client.post(reverse("task-submit"), data={"token": "x"})
    assert response.status_code == 415
    assert "JSON" in response.json()["error"]


def test_unknown_answer_field_is_refused(client):
    campaign = make_campaign(images=1)
    token = start_task(client, campaign)
    response = submit(client, {"token": token, "answer": {"text": GOOD_TEXT, "score": 5}})
    assert response.status_code == 400
    assert response.json()["fields"] == {"score": ["Unknown field."]}
    assert answered_count() == 0


def test_too_short_text_is_refused_with_the_count(client):
    campaign = make_campaign(images=1)
    token = start_task(client, campaign)
    response = submit(client, {"token": token, "answer": {"text": "A dog on a beach."}})
    assert response.status_code == 400
    assert response.json()["fields"]["text"] == ["Please describe the image in at least 8 words (you wrote 5)."]
    assert answered_count() == 0
    assert Assignment.objects.get().status == AssignmentStatus.ACCEPTED


def test_min_words_follows_the_campaign_option(client):
    campaign = make_campaign(images=1, options={"min_words": 3})
    token = start_task(client, campaign)
    assert submit(client, {"token": token, "answer": {"text": "A dog runs."}}).status_code == 201


def test_answer_must_be_an_object(client):
    campaign = make_campaign(images=1)
    token = start_task(client, campaign)
    response = submit(client, {"token": token, "answer": "just text"})
    assert response.status_code == 400
    assert answered_count() == 0


def test_forged_token_is_refused(client):
    campaign = make_campaign(images=1)
    token = start_task(client, campaign)
    forged = token[:-3] + ("AAA" if not token.endswith("AAA") else "BBB")
    response = submit(client, {"token": forged, "answer": {"text": GOOD_TEXT}})
    assert response.status_code == 403
    assert "not valid" in response.json()["error"]
    assert answered_count() == 0


def test_expired_token_is_refused(client, settings):
    campaign = make_campaign(images=1)
    token = start_task(client, campaign)
    later = __import__("time").time() + settings.WORKER_TOKEN_MAX_AGE + 60
    with mock.patch("django.core.signing.time.time", return_value=later):
        response = submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
    assert response.status_code == 403
    assert "expired" in response.json()["error"]
    assert answered_count() == 0


def test_preview_cannot_submit(client):
    campaign = make_campaign(images=1)
    hit = campaign.hits.get()
    page = client.get(reverse("task-page") + f"?preview={preview_token(hit.pk)}")
    assert page.status_code == 200
    assert b"Preview" in page.content and b'id="submit-button"' not in page.content
    response = submit(client, {"token": preview_token(hit.pk), "answer": {"text": GOOD_TEXT}})
    assert response.status_code == 403
    assert Assignment.objects.count() == 0


def test_worker_cannot_touch_another_workers_assignment(client):
    campaign = make_campaign(images=2)
    start_task(client, campaign)
    start_task(Client(), campaign)  # another browser: another worker
    theirs = Assignment.objects.order_by("-pk").first()
    # A token for their assignment carrying my identity (as a worker would have to forge it) is refused.
    my_worker = Assignment.objects.order_by("pk").first().worker.external_id
    crafted = assignment_token(theirs.pk, my_worker)
    response = submit(client, {"token": crafted, "answer": {"text": GOOD_TEXT}})
    assert response.status_code == 403
    assert "another worker" in response.json()["error"]
    page = client.get(reverse("task-page") + f"?t={crafted}")
    assert page.status_code == 403
    assert answered_count() == 0


def test_expired_assignment_cannot_be_submitted(client):
    campaign = make_campaign(images=1)
    token = start_task(client, campaign)
    Assignment.objects.update(status=AssignmentStatus.EXPIRED)
    response = submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
    assert response.status_code == 409
    assert "expired" in response.json()["error"]


@pytest.mark.parametrize(("overdue", "stored"), [(10, True), (45, False)])
def test_an_answer_after_the_deadline_is_taken_only_within_the_grace(client, overdue, stored):
    """Past its deadline (and the grace for a slow network) a task not yet marked expired refuses its answer."""
    campaign = make_campaign(images=1)
    token = start_task(client, campaign)
    Assignment.objects.update(deadline=timezone.now() - timedelta(seconds=overdue))
    response = submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
    if stored:
        assert response.status_code == 201
        assert answered_count() == 1
    else:
        assert response.status_code == 409
        assert "time for this task ran out" in response.json()["error"]
        assert answered_count() == 0
        assert Assignment.objects.get().status == AssignmentStatus.ACCEPTED  # the expiry gives the slot back


def test_an_expired_assignment_with_an_invalid_answer_is_told_about_the_answer_first(client):
    campaign = make_campaign(images=1)
    token = start_task(client, campaign)
    Assignment.objects.update(status=AssignmentStatus.EXPIRED)
    response = submit(client, {"token": token, "answer": {"text": "Too short."}})
    assert response.status_code == 400
    assert "at least 8 words" in response.json()["fields"]["text"][0]


def statements(queries) -> list[str]:
    return [query["sql"] for query in queries]


def test_a_submission_reads_and_locks_its_assignment_in_one_statement(client, django_assert_num_queries):
    """The assignment with its HIT, campaign and worker, locked, in one SELECT; describe_image's answer is
    validated without building the page payload (no image query). Then the UPDATE; the transaction's
    savepoint and its release make the 4."""
    campaign = make_campaign(images=2)
    token = start_task(client, campaign)
    with django_assert_num_queries(4) as captured:
        assert submit(client, {"token": token, "answer": {"text": GOOD_TEXT}}).status_code == 201
    selects = [sql for sql in statements(captured) if sql.startswith("SELECT")]
    assert len(selects) == 1
    assert "mturk_campaign" in selects[0] and "mturk_worker" in selects[0]
    if connection.vendor == "postgresql":
        assert selects[0].endswith('FOR UPDATE OF "mturk_assignment"')
    assert not any("annotation_image" in sql for sql in statements(captured))
    assert [sql.split()[0] for sql in statements(captured) if not sql.startswith(("SAVEPOINT", "RELEASE"))] == [
        "SELECT", "UPDATE"]


def test_a_repeated_submission_costs_one_select(client, django_assert_num_queries):
    campaign = make_campaign(images=1)
    token = start_task(client, campaign)
    submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
    with django_assert_num_queries(3) as captured:
        assert submit(client, {"token": token, "answer": {"text": GOOD_TEXT}}).status_code == 200
    assert [sql.split()[0] for sql in statements(captured)] == ["SAVEPOINT", "SELECT", "RELEASE"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks and real concurrency need PostgreSQL")
def test_concurrent_submissions_store_exactly_one_answer():
    from django.db import connections
    from django.test import Client

    campaign = make_campaign(images=1)
    token = start_task(Client(), campaign)
    barrier = threading.Barrier(8)
    statuses: list[int] = []

    def worker(n: int) -> None:
        try:
            barrier.wait()
            response = submit(Client(), {"token": token, "answer": {"text": f"{GOOD_TEXT} Variant {n}."}})
            statuses.append(response.status_code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200] * 7 + [201]
    assignment = Assignment.objects.get()
    assert assignment.status == AssignmentStatus.SUBMITTED
    assert assignment.answer["text"].startswith(GOOD_TEXT)
