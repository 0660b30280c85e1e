"""The local campaign link: a GET takes nothing, "Start task" (POST) takes a slot, arrivals are
rate-limited per client, a worker can return (skip) a task, and no worker row without a task."""
from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from mturk.models import Assignment, Worker
from mturk.services.campaigns import set_campaign_status
from mturk.states import SLOT_HOLDING, AssignmentStatus, CampaignStatus
from tests.factories import GOOD_TEXT, make_campaign
from tests.worker_flow import campaign_link, press_start, start_task, submit, token_of

pytestmark = pytest.mark.django_db


def slots_taken(campaign) -> int:
    return Assignment.objects.filter(hit__campaign=campaign, status__in=SLOT_HOLDING).count()


def return_task(client, token: str, **extra: str):
    return client.post(reverse("task-return"), {"t": token}, **extra)


def test_two_hundred_gets_take_no_slot_and_create_no_worker(client):
    campaign = make_campaign(images=3, assignments=40, time_limit_seconds=1800)
    for _ in range(200):
        page = client.get(campaign_link(campaign))
        assert page.status_code == 200
    assert slots_taken(campaign) == 0
    assert Worker.objects.count() == 0
    html = page.content.decode()
    assert 'id="start-task"' in html and ">Start task</button>" in html
    assert 'method="post"' in html and campaign.title in html and "$0.10 per task" in html
    assert "30 min per task" in html


def test_start_task_post_takes_one_slot_and_creates_the_worker(client):
    campaign = make_campaign(images=3, assignments=2)
    response = press_start(client, campaign)
    assert response.status_code == 303 and response["Location"].startswith(reverse("task-page"))
    assert slots_taken(campaign) == 1
    assert Worker.objects.count() == 1
    page = client.get(response["Location"])
    assert page.status_code == 200 and 'id="return-task"' in page.content.decode()


def test_a_get_with_the_worker_link_resumes_the_open_task_and_takes_nothing(client):
    campaign = make_campaign(images=3)
    token = start_task(client, campaign)
    assignment = Assignment.objects.get()
    worker_query = "?w=" + client.get(reverse("task-page") + f"?t={token}").context["next_url"].split("?w=")[1]
    for _ in range(5):
        again = client.get(campaign_link(campaign) + worker_query)
        assert again.status_code == 303 and token_of(again)
    assert Assignment.objects.get().pk == assignment.pk
    assert Worker.objects.count() == 1


def test_return_releases_the_slot_at_once_and_the_hit_goes_to_another_worker(client):
    campaign = make_campaign(images=2, assignments=1)
    token = start_task(client, campaign)
    first = Assignment.objects.get()
    response = return_task(client, token)
    first.refresh_from_db()
    assert first.status == AssignmentStatus.RETURNED
    # skip: the worker gets the other HIT at once, never the one they returned
    assert response.status_code == 303
    second = Assignment.objects.get(status=AssignmentStatus.ACCEPTED)
    assert second.worker_id == first.worker_id and second.hit_id != first.hit_id
    # the returned HIT's only slot is free again: a new worker (another browser) gets it
    press_start(Client(), campaign, remote_addr="10.0.0.2")
    other = Assignment.objects.exclude(worker_id=first.worker_id).get()
    assert other.hit_id == first.hit_id and other.status == AssignmentStatus.ACCEPTED
    # the task page of the returned task says so
    gone = client.get(reverse("task-page") + f"?t={token}")
    assert gone.status_code == 410 and "was returned" in gone.content.decode()


def test_returning_the_last_task_says_none_is_left(client):
    campaign = make_campaign(images=1, assignments=1)
    token = start_task(client, campaign)
    response = return_task(client, token)
    assert response.status_code == 200
    assert "Task returned" in response.content.decode() and "no task left" in response.content.decode()
    assert slots_taken(campaign) == 0
    again = return_task(client, token)  # a double click changes nothing more
    assert again.status_code == 200 and Assignment.objects.get().status == AssignmentStatus.RETURNED


def test_an_answered_task_cannot_be_returned(client):
    campaign = make_campaign(images=2)
    token = start_task(client, campaign)
    submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
    response = return_task(client, token)
    assert response.status_code == 409
    assert "submitted and can no longer be returned" in response.content.decode()
    assert Assignment.objects.get().status == AssignmentStatus.SUBMITTED


def test_return_needs_a_valid_token(client):
    campaign = make_campaign(images=1)
    start_task(client, campaign)
    response = return_task(client, "forged")
    assert response.status_code == 403 and "not valid" in response.content.decode()
    assert client.get(reverse("task-return")).status_code == 405
    assert Assignment.objects.get().status == AssignmentStatus.ACCEPTED


def test_arrivals_over_the_rate_get_429_and_create_nothing(settings):
    settings.ARRIVAL_RATE = "3/m"
    campaign = make_campaign(images=10, assignments=10)
    for _ in range(3):  # three browsers behind one address
        assert press_start(Client(), campaign).status_code == 303
    refused = press_start(Client(), campaign)
    assert refused.status_code == 429
    assert refused["Retry-After"] == "60"
    assert "Too many tasks were started from your network" in refused.content.decode()
    assert Worker.objects.count() == 3 and slots_taken(campaign) == 3
    assert press_start(Client(), campaign, remote_addr="10.0.0.7").status_code == 303  # another client


def test_no_worker_row_when_the_campaign_is_not_active(client):
    campaign = make_campaign(images=2)
    set_campaign_status(campaign, CampaignStatus.PAUSED)
    assert "not accepting work" in client.get(campaign_link(campaign)).content.decode()
    response = press_start(client, campaign)
    assert response.status_code == 200 and "not accepting work" in response.content.decode()
    assert Worker.objects.count() == 0


def test_no_worker_row_when_nothing_is_left(client):
    campaign = make_campaign(images=1, assignments=1)
    start_task(client, campaign)
    response = press_start(Client(), campaign, remote_addr="10.0.0.3")
    assert response.status_code == 200 and "There is no task left for you" in response.content.decode()
    assert Worker.objects.count() == 1
