"""A Prolific participant arriving with PROLIFIC_PID, STUDY_ID and SESSION_ID, doing a bundle of tasks, and
being sent back to Prolific with the completion code.

Prolific's GET /submissions/{id}/ is answered by `responses` in its documented single-submission shape; any
other request to Prolific fails the test (responses raises on an unregistered URL)."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
import responses
from django.db import connection
from django.urls import reverse

from mturk.models import Assignment, Worker
from mturk.providers.prolific.arrivals import ArrivalRefused, finish, next_task, start_session
from mturk.providers.prolific.client import reset_client
from mturk.providers.prolific.models import ProlificSubmission
from mturk.states import ANSWERED, SLOT_HOLDING, AssignmentStatus
from mturk.work.services.assignments import submit_answer
from tests.factories import GOOD_TEXT
from tests.queries import queries_for
from tests.worker_flow import submit, token_of

from .arrival_helpers import (
    OTHER_PID,
    OTHER_STUDY,
    PID,
    SESSION,
    STUDY,
    prolific_campaign,
    remote_submission,
    study_link,
)

pytestmark = pytest.mark.django_db

API = "https://api.prolific.test/api/v1/"
COMPLETE = "https://app.prolific.com/submissions/complete"


@pytest.fixture(autouse=True)
def prolific_settings(settings):
    settings.PROLIFIC_API_URL = API
    settings.PROLIFIC_TOKEN = "test-token"
    settings.PROLIFIC_MAX_ATTEMPTS = 1  # a 5xx is not retried here: "Prolific down" at once
    settings.PROLIFIC_RETRY_BASE_SECONDS = 0
    settings.PROLIFIC_COMPLETE_URL = COMPLETE
    reset_client()
    yield settings
    reset_client()


@pytest.fixture
def prolific() -> Iterator[responses.RequestsMock]:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


def answers_with(prolific: responses.RequestsMock, session: str = SESSION, **fields: str) -> None:
    prolific.add(responses.GET, f"{API}submissions/{session}/", json=remote_submission(session, **fields))


def press_start(client, campaign, pid: str = PID, study: str = STUDY, session: str = SESSION,
                remote_addr: str = "127.0.0.1"):
    """The start page's form: a POST of the three ids to the study link."""
    return client.post(study_link(campaign, pid, study, session).split("?")[0],
                       {"PROLIFIC_PID": pid, "STUDY_ID": study, "SESSION_ID": session}, REMOTE_ADDR=remote_addr)


def nothing_stored() -> bool:
    return not (ProlificSubmission.objects.exists() or Worker.objects.exists() or Assignment.objects.exists())


def answer(client, token: str):
    response = submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
    assert response.status_code == 201, response.content
    return response.json()


# ---- arrival -------------------------------------------------------------------------------------
def test_get_shows_the_start_page_and_takes_nothing_nor_asks_prolific(client, prolific):
    campaign = prolific_campaign(tasks=3, time_limit_seconds=600)
    for _ in range(50):
        page = client.get(study_link(campaign))
        assert page.status_code == 200
    assert len(prolific.calls) == 0
    assert nothing_stored()
    html = page.content.decode()
    assert 'id="start-task"' in html and ">Start task</button>" in html and 'method="post"' in html
    for name, value in (("PROLIFIC_PID", PID), ("STUDY_ID", STUDY), ("SESSION_ID", SESSION)):
        assert f'name="{name}" value="{value}"' in html
    assert "<dd>3</dd>" in html and "10 min per task" in html
    assert page.cookies == {} and page["Cache-Control"].startswith("max-age=0")


def test_an_arrival_confirmed_by_prolific_gets_a_task(client, prolific):
    campaign = prolific_campaign(tasks=3)
    answers_with(prolific)
    response = press_start(client, campaign)
    assert response.status_code == 303 and response["Location"].startswith(reverse("task-page") + "?t=")
    assert len(prolific.calls) == 1
    call = prolific.calls[0].request
    assert call.headers["Authorization"] == "Token test-token"
    submission = ProlificSubmission.objects.get()
    assert (submission.submission_id, submission.study.campaign_id, submission.status) == (SESSION, campaign.pk,
                                                                                            "ACTIVE")
    assert (submission.worker.provider, submission.worker.external_id) == ("prolific", PID)
    assert submission.started_at is not None and submission.finished_at is None
    assignment = Assignment.objects.get()
    assert (assignment.external_id, assignment.confirmed, assignment.worker_id) == (SESSION, True,
                                                                                    submission.worker_id)
    assert assignment.hit.taken_slots == 1
    page = client.get(response["Location"])
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="task-form"' in html and 'id="return-task"' not in html  # returned on Prolific, not here
    # Pressing "Start task" again (reload, second tab) gives the same task and asks Prolific nothing more.
    again = press_start(client, campaign)
    assert again.status_code == 303 and token_of(again) and Assignment.objects.count() == 1
    assert len(prolific.calls) == 1


def test_a_reserved_session_may_start(client, prolific):
    campaign = prolific_campaign()
    answers_with(prolific, status="RESERVED")
    assert press_start(client, campaign).status_code == 303
    assert ProlificSubmission.objects.get().status == "RESERVED"


@pytest.mark.parametrize("case", ["unknown", "other participant", "other study", "returned"])
def test_a_session_prolific_does_not_confirm_is_refused_and_nothing_stored(client, prolific, case):
    campaign = prolific_campaign()
    url = f"{API}submissions/{SESSION}/"
    if case == "unknown":
        prolific.add(responses.GET, url, status=404, json={"error": {
            "status": 404, "title": "Not found", "error_code": 140101, "detail": "No Submission matches the query.",
            "additional_information": ""}})
    elif case == "other participant":
        answers_with(prolific, participant=OTHER_PID)
    elif case == "other study":
        answers_with(prolific, study=OTHER_STUDY)
    else:
        answers_with(prolific, status="RETURNED")
    response = press_start(client, campaign)
    assert response.status_code == (410 if case == "returned" else 403)
    html = response.content.decode()
    assert ("start the study again from Prolific" if case == "returned"
            else "Prolific does not confirm this session") in html
    assert len(prolific.calls) == 1
    assert nothing_stored()


def test_a_known_session_of_another_participant_is_refused_without_asking_prolific(client, prolific):
    campaign = prolific_campaign()
    answers_with(prolific)
    assert press_start(client, campaign).status_code == 303
    forged = press_start(client, campaign, pid=OTHER_PID)
    assert forged.status_code == 403 and "Prolific does not confirm this session" in forged.content.decode()
    assert len(prolific.calls) == 1
    assert list(Worker.objects.values_list("external_id", flat=True)) == [PID]
    assert Assignment.objects.count() == 1


@pytest.mark.parametrize("failure", ["503", "connection"])
def test_prolific_down_answers_503_and_stores_nothing(client, prolific, failure):
    campaign = prolific_campaign()
    url = f"{API}submissions/{SESSION}/"
    if failure == "503":
        prolific.add(responses.GET, url, status=503, json={"message": "Service unavailable", "detail": "maintenance"})
    else:
        prolific.add(responses.GET, url, body=requests.exceptions.ConnectionError("connection refused"))
    response = press_start(client, campaign)
    assert response.status_code == 503 and response["Retry-After"]
    assert "Prolific could not confirm your session, try again in a moment." in response.content.decode()
    assert nothing_stored()
    # Once Prolific answers again, the same press works.
    prolific.replace(responses.GET, url, json=remote_submission())
    assert press_start(client, campaign).status_code == 303
    assert ProlificSubmission.objects.count() == 1


@pytest.mark.parametrize(("query", "status", "message"), [
    ({"SESSION_ID": ""}, 400, "missing SESSION_ID"),
    ({"SESSION_ID": "{{%SESSION_ID%}}"}, 400, "malformed"),
    ({"PROLIFIC_PID": "x" * 101}, 400, "malformed"),
    ({"STUDY_ID": OTHER_STUDY}, 403, "does not belong to this study"),
])
def test_bad_ids_are_refused_on_get_and_post(client, prolific, query, status, message):
    campaign = prolific_campaign()
    ids = {"pid": PID, "study": STUDY, "session": SESSION}
    names = {"PROLIFIC_PID": "pid", "STUDY_ID": "study", "SESSION_ID": "session"}
    ids.update({names[key]: value for key, value in query.items()})
    page = client.get(study_link(campaign, **ids))
    pressed = press_start(client, campaign, **ids)
    for response in (page, pressed):
        assert response.status_code == status and message in response.content.decode()
    assert len(prolific.calls) == 0 and nothing_stored()


def test_a_bad_campaign_token_or_a_campaign_of_another_provider_is_refused(client):
    local = prolific_campaign()
    local.provider = "local"
    local.save(update_fields=["provider"])
    assert client.get(study_link(local)).status_code == 404
    bad = client.get(reverse("prolific-entry", kwargs={"token": "forged"}) + "?PROLIFIC_PID=a&STUDY_ID=b&SESSION_ID=c")
    assert bad.status_code == 400


def test_arrivals_are_rate_limited_per_client(client, prolific, settings):
    settings.ARRIVAL_RATE = "2/m"
    campaign = prolific_campaign(images=6)
    for n in range(3):
        answers_with(prolific, session=f"{SESSION[:-1]}{n}", participant=f"{PID[:-1]}{n}")
    for _ in range(5):
        assert client.get(study_link(campaign)).status_code == 200  # GETs are not counted
    codes = [press_start(client, campaign, pid=f"{PID[:-1]}{n}", session=f"{SESSION[:-1]}{n}").status_code
             for n in range(3)]
    assert codes == [303, 303, 429]
    assert ProlificSubmission.objects.count() == 2
    other_client = press_start(client, campaign, pid=f"{PID[:-1]}2", session=f"{SESSION[:-1]}2",
                               remote_addr="10.0.0.9")
    assert other_client.status_code == 303


# ---- the bundle and the completion -------------------------------------------------------------
def test_a_bundle_of_three_gives_three_tasks_then_the_completion_page(client, prolific):
    campaign = prolific_campaign(images=5, tasks=3)
    answers_with(prolific)
    location = press_start(client, campaign)["Location"]
    code = campaign.prolific_study.completion_code
    seen_hits = set()
    for number in (1, 2, 3):
        token = parse_qs(urlsplit(location).query)["t"][0]
        assert client.get(location).status_code == 200
        body = answer(client, token)
        assert body["follow_next"] is True and "completion_code" not in body  # no MTurk hand-off code here
        next_url = body["next_url"]
        assert next_url.startswith(reverse("prolific-continue") + "?s=")
        assert Assignment.objects.filter(status__in=ANSWERED).count() == number
        seen_hits.add(Assignment.objects.get(pk=body["assignment"]).hit_id)
        page = client.get(next_url)
        assert page.status_code == 200
        html = page.content.decode()
        if number < 3:
            assert f"Next task ({number + 1} of 3)" in html and code not in html
            assert Assignment.objects.count() == number  # the GET took nothing
            pressed = client.post(next_url)
            assert pressed.status_code == 303
            location = pressed["Location"]
        else:
            assert "Next task" not in html and f'<code id="completion-code">{code}</code>' in html
            assert page["Refresh"] == f"0; url={COMPLETE}?cc={code}"
            assert f'href="{COMPLETE}?cc={code}"' in html and "Return to Prolific" in html
    assert len(seen_hits) == 3
    submission = ProlificSubmission.objects.get()
    finished = submission.finished_at
    assert finished is not None
    # Nothing more is handed out to this session: neither through the continue link nor the study link.
    assert client.post(next_url)["Location"] == next_url
    assert client.get(next_url)["Refresh"].endswith(f"?cc={code}")
    again = press_start(client, campaign)
    assert again.status_code == 303 and again["Location"].startswith(reverse("prolific-continue"))
    assert Assignment.objects.count() == 3
    submission.refresh_from_db()
    assert submission.finished_at == finished  # stored the first time only


def test_the_completion_code_is_refused_before_any_answer(client, prolific):
    campaign = prolific_campaign(tasks=2)
    answers_with(prolific)
    location = press_start(client, campaign)["Location"]
    submission = ProlificSubmission.objects.get()
    with pytest.raises(ArrivalRefused) as refused:
        finish(submission)
    assert refused.value.status_code == 409
    submission.refresh_from_db()
    assert submission.finished_at is None
    # The continue link before any answer resumes the open task; it never shows the code.
    token = parse_qs(urlsplit(location).query)["t"][0]
    page = client.get(reverse("task-page") + f"?t={token}")
    next_url = page.context["next_url"]
    resumed = client.get(next_url)
    assert resumed.status_code == 303 and token_of(resumed) and Assignment.objects.count() == 1
    assert campaign.prolific_study.completion_code not in client.get(next_url, follow=True).content.decode()


def test_when_no_task_is_left_after_an_answer_the_participant_is_sent_back(client, prolific):
    campaign = prolific_campaign(images=1, tasks=3)
    answers_with(prolific)
    token = token_of(press_start(client, campaign))
    next_url = answer(client, token)["next_url"]
    assert "Next task (2 of 3)" in client.get(next_url).content.decode()
    pressed = client.post(next_url)
    assert pressed.status_code == 303 and pressed["Location"] == next_url
    done = client.get(next_url)
    assert done["Refresh"] == f"0; url={COMPLETE}?cc={campaign.prolific_study.completion_code}"
    assert ProlificSubmission.objects.get().finished_at is not None


def test_with_no_task_at_all_the_participant_is_asked_to_return_the_study(client, prolific):
    campaign = prolific_campaign(images=1, assignments=1)
    answers_with(prolific, session=SESSION)
    assert press_start(client, campaign).status_code == 303  # the only slot
    other_session = SESSION[:-1] + "f"
    answers_with(prolific, session=other_session, participant=OTHER_PID)
    refused = press_start(client, campaign, pid=OTHER_PID, session=other_session)
    assert refused.status_code == 409
    html = refused.content.decode()
    assert "There is no task left for you" in html and "return the study on Prolific" in html
    assert Assignment.objects.filter(status__in=SLOT_HOLDING).count() == 1
    assert not Assignment.objects.filter(external_id=other_session).exists()


def test_a_session_prolific_reports_returned_can_no_longer_work(client, prolific):
    campaign = prolific_campaign(tasks=2)
    answers_with(prolific)
    token = token_of(press_start(client, campaign))
    ProlificSubmission.objects.update(status="RETURNED")  # as the sync records it
    Assignment.objects.update(status=AssignmentStatus.RETURNED)
    refused = press_start(client, campaign)
    assert refused.status_code == 410 and "has ended" in refused.content.decode()
    page = client.get(reverse("task-page") + f"?t={token}")
    assert page.status_code == 410
    assert client.post(page.context["next_url"]).status_code == 410
    assert Assignment.objects.count() == 1


def test_a_forged_or_foreign_continue_link_is_refused(client, prolific):
    campaign = prolific_campaign(tasks=2)
    answers_with(prolific)
    press_start(client, campaign)
    from mturk.providers.prolific.arrivals import continue_url

    assert client.get(continue_url(SESSION, OTHER_PID)).status_code == 403
    assert client.post(continue_url(SESSION, OTHER_PID)).status_code == 403
    assert client.get(reverse("prolific-continue") + "?s=forged").status_code == 403
    assert Assignment.objects.count() == 1


def test_start_session_refuses_a_campaign_without_a_published_study(prolific):
    campaign = prolific_campaign()
    campaign.prolific_study.delete()
    campaign.refresh_from_db()
    with pytest.raises(ArrivalRefused) as refused:
        start_session(campaign, PID, STUDY, SESSION)
    assert refused.value.status_code == 404 and len(prolific.calls) == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks and real concurrency need PostgreSQL")
def test_concurrent_presses_of_next_task_take_one_task_for_the_session(prolific):
    from django.db import connections

    campaign = prolific_campaign(images=6, assignments=1, tasks=3)
    answers_with(prolific)
    submission = start_session(campaign, PID, STUDY, SESSION)
    first = next_task(submission)
    assert first is not None
    submit_answer(assignment_id=first.pk, worker_external_id=PID, answer={"text": GOOD_TEXT})
    barrier = threading.Barrier(6)
    taken: list[int] = []

    def press() -> None:
        try:
            barrier.wait()
            mine = ProlificSubmission.objects.select_related("study__campaign", "worker").get(pk=submission.pk)
            assignment = next_task(mine)
            assert assignment is not None
            taken.append(assignment.pk)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=press) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(taken) == 6 and len(set(taken)) == 1
    assert Assignment.objects.filter(external_id=SESSION).count() == 2


# ---- query counts --------------------------------------------------------------------------------
def test_task_and_continue_pages_make_a_constant_number_of_queries(client, prolific):
    counts = []
    for n, (images, tasks) in enumerate(((2, 2), (40, 5))):
        session, pid = f"{SESSION[:-1]}{n}", f"{PID[:-1]}{n}"
        campaign = prolific_campaign(images=images, assignments=3, tasks=tasks, study=f"{STUDY[:-1]}{n}")
        answers_with(prolific, session=session, participant=pid, study=f"{STUDY[:-1]}{n}")
        token = token_of(press_start(client, campaign, pid=pid, study=f"{STUDY[:-1]}{n}", session=session))
        task_page = queries_for(client, reverse("task-page") + f"?t={token}")
        next_url = answer(client, token)["next_url"]
        continue_page = queries_for(client, next_url)
        start_page = queries_for(client, study_link(campaign, pid=pid, study=f"{STUDY[:-1]}{n}", session=session))
        counts.append((task_page, continue_page, start_page))
    assert counts[0] == counts[1]
    task_page, continue_page, start_page = counts[0]
    assert task_page <= 3 and continue_page <= 3 and start_page <= 1  # task page: + the frame's answered count
