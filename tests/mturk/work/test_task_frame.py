"""The task page's frame on the server: reward, seconds left (server time), warning threshold and position,
for the local crowd, Prolific sessions and MTurk arrivals; previews; the frame's cost in queries."""
from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from mturk.models import Assignment, Campaign
from mturk.work.services.assignments import assign_next_hit, get_or_create_worker, submit_answer
from mturk.work.task_frame import clock_text, duration_text, frame_for, warn_at
from mturk.work.tokens import assignment_token, preview_token
from tests.factories import GOOD_TEXT, make_campaign
from tests.mturk.providers.mturk.test_task_page import accept_link, mturk_hit
from tests.mturk.providers.prolific.arrival_helpers import PID, SESSION, prolific_campaign
from tests.queries import queries_for
from tests.worker_flow import start_task, submit

pytestmark = pytest.mark.django_db


def frame_of(html: str) -> str:
    match = re.search(r'<section class="task-frame".*?</section>', html, re.S)
    assert match, "no frame on the page"
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", match.group(0))).strip()


def seconds_left(html: str) -> int:
    match = re.search(r'data-seconds-left="(\d+)"', html)
    assert match
    return int(match.group(1))


def task_html(client, token: str) -> str:
    response = client.get(reverse("task-page") + f"?t={token}")
    assert response.status_code == 200
    return response.content.decode()


def test_local_frame_shows_reward_time_left_and_position(client):
    campaign = make_campaign(images=4, assignments=1, reward=Decimal("0.25"), max_assignments_per_worker=3,
                             time_limit_seconds=900)
    token = start_task(client, campaign)
    html = task_html(client, token)
    assert frame_of(html) == "Reward $0.25 per task Time left 15:00 Position Task 1 of at most 3"
    assert 899 <= seconds_left(html) <= 900 and 'data-warn-at="120"' in html
    assert 'role="timer"' in html and "Return this task" in html

    submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
    worker = Assignment.objects.get().worker
    second = assign_next_hit(campaign, worker)
    html = task_html(client, assignment_token(second.pk, worker.external_id))
    assert "Task 2 of at most 3" in frame_of(html)


def test_without_a_limit_per_worker_the_position_has_no_maximum(client):
    campaign = make_campaign(images=2, assignments=1)
    assert frame_of(task_html(client, start_task(client, campaign))).endswith("Position Task 1")


def test_seconds_left_come_from_the_deadline_on_the_server(client):
    campaign = make_campaign(images=1, assignments=1, time_limit_seconds=600)
    token = start_task(client, campaign)
    Assignment.objects.update(deadline=timezone.now() + timedelta(seconds=95.2))
    html = task_html(client, token)
    assert 95 <= seconds_left(html) <= 96  # rounded up: the page never ends before the server does
    Assignment.objects.update(deadline=timezone.now() - timedelta(seconds=5))
    html = task_html(client, token)
    assert seconds_left(html) == 0 and "Time is up" in html and 'id="expired-next-task"' in html


def test_preview_shows_the_time_limit_and_no_clock_nor_position(client):
    campaign = make_campaign(images=1, assignments=1, time_limit_seconds=1800, max_assignments_per_worker=3)
    hit = campaign.hits.get()
    html = client.get(reverse("task-page") + f"?preview={preview_token(hit.pk)}").content.decode()
    assert frame_of(html) == "Reward $0.10 per task Time limit 30 min"
    assert "data-seconds-left" not in html and "Time is up" not in html


def test_prolific_frame_counts_the_session_and_points_to_prolific_to_return(client):
    campaign = prolific_campaign(images=4, tasks=2, reward=Decimal("0.50"))
    worker = get_or_create_worker("prolific", PID)
    first = assign_next_hit(campaign, worker, external_id=SESSION)
    html = task_html(client, assignment_token(first.pk, PID))
    assert frame_of(html).startswith("Reward 0.50 per task, paid on Prolific Time left ")
    assert "Task 1 of at most 2" in frame_of(html)
    assert "Return this task" not in html and "return the study on Prolific" in html
    submit_answer(assignment_id=first.pk, worker_external_id=PID, answer={"text": GOOD_TEXT})
    second = assign_next_hit(campaign, worker, external_id=SESSION)
    assert "Task 2 of at most 2" in frame_of(task_html(client, assignment_token(second.pk, PID)))


def test_mturk_frame_says_the_task_is_returned_on_mturk(client):
    hit = mturk_hit(images=2, assignments=1, max_assignments_per_worker=5)
    html = client.get(accept_link(hit)).content.decode()
    assert "Task 1 of at most 5" in frame_of(html) and "Time left" in frame_of(html)
    assert "Return this task" not in html and "press “Return” on MTurk&#x27;s page" in html


def test_the_frame_adds_one_query_that_does_not_grow(client):
    """The page's reads: the assignment (with HIT, campaign, worker), the kind's payload, and the frame's count
    of the worker's answered tasks, whatever the campaign's size or the worker's history."""
    counts = []
    for images, done in ((2, 1), (30, 12)):
        campaign = make_campaign(images=images, assignments=1)
        worker = get_or_create_worker("local", f"w{images}")
        for _ in range(done):
            assignment = assign_next_hit(campaign, worker)
            submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                          answer={"text": GOOD_TEXT})
        assignment = assign_next_hit(campaign, worker)
        url = reverse("task-page") + f"?t={assignment_token(assignment.pk, worker.external_id)}"
        assert f"Task {done + 1}" in frame_of(client.get(url).content.decode())
        counts.append(queries_for(client, url))
    assert counts[0] == counts[1] == 3


@pytest.mark.parametrize("limit, expected", [(30, 10), (60, 12), (600, 120), (3600, 120)])
def test_the_warning_comes_at_two_minutes_or_a_fifth_of_a_short_limit(limit, expected):
    assert warn_at(limit) == expected


def test_clock_and_duration_texts():
    assert [clock_text(s) for s in (0, 59, 600, 3725)] == ["0:00", "0:59", "10:00", "1:02:05"]
    assert [duration_text(s) for s in (90, 1800, 3600)] == ["1 min 30 s", "30 min", "1 h"]


def test_frame_for_a_preview_has_no_position():
    campaign = Campaign(provider="local", reward=Decimal("0.10"), time_limit_seconds=300, max_assignments_per_worker=4)
    frame = frame_for(campaign, None)
    assert frame.position == "" and frame.seconds_left is None and frame.most == 4
