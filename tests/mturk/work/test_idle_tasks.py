"""Tasks a local worker leaves go back to the pool well before the time limit (no activity from the page for
TASK_INACTIVITY_SECONDS, or the page closed a minute ago), and an answer sent later within the time limit is still
stored, once. Time is moved with time-machine."""
from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from mturk.models import HIT, Assignment, Worker
from mturk.states import ANSWERED, AssignmentStatus
from mturk.tasks import release_idle_tasks
from mturk.work.services.activity import release_idle_assignments
from mturk.work.services.assignments import assign_next_hit, new_local_worker
from mturk.work.tokens import assignment_token, read_assignment_token
from tests.factories import GOOD_TEXT, make_campaign
from tests.worker_flow import campaign_link, start_task, submit, token_of

pytestmark = pytest.mark.django_db
A = AssignmentStatus


@pytest.fixture
def clock():
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        yield traveller


def activity(client: Client, token: str, left: bool = False):
    return client.post(reverse("task-activity"), {"t": token, **({"left": "1"} if left else {})})


def newcomer_takes(campaign) -> bool:
    """Whether a new browser pressing Start gets a task."""
    return Client().post(campaign_link(campaign)).status_code == 303


def same_task(token: str, other: str) -> bool:
    return read_assignment_token(token).assignment_id == read_assignment_token(other).assignment_id


def one_slot_campaign(settings, **fields):
    settings.TASK_INACTIVITY_SECONDS = 300
    return make_campaign(images=1, assignments=1, time_limit_seconds=3600, **fields)


def test_an_abandoned_task_is_given_to_another_worker_after_the_inactivity_window(client, clock, settings):
    campaign = one_slot_campaign(settings)
    start_task(client, campaign)
    first = Assignment.objects.get()
    clock.shift(timedelta(seconds=299))
    assert not newcomer_takes(campaign)
    clock.shift(timedelta(seconds=2))  # 301 s without a sign from the page: well before the hour's limit
    assert newcomer_takes(campaign)
    first.refresh_from_db()
    assert first.status == A.ABANDONED
    assert Assignment.objects.exclude(pk=first.pk).get().hit_id == first.hit_id
    assert HIT.objects.get().taken_slots == 1


def test_activity_from_the_page_keeps_the_task(client, clock, settings):
    campaign = one_slot_campaign(settings)
    token = start_task(client, campaign)
    clock.shift(timedelta(seconds=200))
    assert activity(client, token).json() == {"state": "active"}
    clock.shift(timedelta(seconds=200))
    assert not newcomer_takes(campaign)
    clock.shift(timedelta(seconds=101))
    assert newcomer_takes(campaign)


def test_a_closed_page_gives_the_task_back_a_minute_later(client, clock, settings):
    campaign = one_slot_campaign(settings)
    token = start_task(client, campaign)
    assert activity(client, token, left=True).json() == {"state": "active"}
    clock.shift(timedelta(seconds=59))
    assert not newcomer_takes(campaign)
    clock.shift(timedelta(seconds=2))
    assert newcomer_takes(campaign)


def test_a_late_answer_within_the_time_limit_is_stored_once_and_both_answers_are_kept(client, clock, settings):
    campaign = one_slot_campaign(settings)
    token = start_task(client, campaign)
    clock.shift(timedelta(seconds=400))
    other = Client()
    other_token = start_task(other, campaign)  # the slot went to another worker
    assert activity(client, token).json() == {"state": "released"}  # no free slot to take it up again
    assert client.get(reverse("task-page") + f"?t={token}").status_code == 200  # the page still works
    first = submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
    assert first.status_code == 201 and first.json()["status"] == "stored"
    again = submit(client, {"token": token, "answer": {"text": GOOD_TEXT + " Again."}})
    assert again.status_code == 200 and again.json()["status"] == "already_stored"
    assert submit(other, {"token": other_token, "answer": {"text": GOOD_TEXT}}).status_code == 201
    answered = Assignment.objects.filter(status__in=ANSWERED)
    assert answered.count() == 2 and answered.values("worker").distinct().count() == 2
    assert Assignment.objects.get(pk=read_assignment_token(token).assignment_id).answer["text"] == GOOD_TEXT
    assert HIT.objects.get().taken_slots == 2  # both answers hold a slot: the HIT takes no third worker
    assert not newcomer_takes(campaign)


def test_an_answer_after_the_time_limit_is_refused_even_when_left(client, clock, settings):
    campaign = one_slot_campaign(settings)
    token = start_task(client, campaign)
    clock.shift(timedelta(seconds=400))
    release_idle_assignments()
    clock.shift(timedelta(seconds=3600))
    late = submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
    assert late.status_code == 409 and Assignment.objects.get().status == A.ABANDONED
    assert client.get(reverse("task-page") + f"?t={token}").status_code == 410


def test_a_worker_back_on_a_left_task_takes_it_up_again_while_its_slot_is_free(client, clock, settings):
    campaign = one_slot_campaign(settings)
    token = start_task(client, campaign)
    clock.shift(timedelta(seconds=400))
    assert release_idle_tasks() == 1  # the periodic job, with no arrival
    assert HIT.objects.get().taken_slots == 0
    assert activity(client, token).json() == {"state": "active"}
    assignment = Assignment.objects.get()
    assert assignment.status == A.ACCEPTED and HIT.objects.get().taken_slots == 1
    assert not newcomer_takes(campaign)
    again = client.get(campaign_link(campaign))  # the link takes the worker back to it
    assert again.status_code == 303 and same_task(token_of(again), token)


def test_the_link_takes_a_worker_back_to_a_left_task_and_the_return_button_still_works(client, clock, settings):
    campaign = one_slot_campaign(settings)
    token = start_task(client, campaign)
    clock.shift(timedelta(seconds=400))
    release_idle_assignments()
    resumed = client.get(campaign_link(campaign))
    assert resumed.status_code == 303 and same_task(token_of(resumed), token)
    client.post(reverse("task-return"), {"t": token})
    assert Assignment.objects.get().status == A.RETURNED and HIT.objects.get().taken_slots == 0


def test_a_left_task_counts_against_the_limit_per_worker(client, clock, settings):
    settings.TASK_INACTIVITY_SECONDS = 300
    campaign = make_campaign(images=3, assignments=1, max_assignments_per_worker=1)
    start_task(client, campaign)
    clock.shift(timedelta(seconds=400))
    release_idle_assignments()
    clock.shift(timedelta(hours=2))  # past its time limit: the link has no task to take the worker back to
    refused = client.post(campaign_link(campaign))
    assert refused.status_code == 200 and "maximum of 1 tasks" in refused.content.decode()


def test_activity_of_another_worker_or_a_forged_token_changes_nothing(client, clock, settings):
    campaign = one_slot_campaign(settings)
    token = start_task(client, campaign)
    assert client.post(reverse("task-activity"), {"t": "forged"}).status_code == 403
    assert client.get(reverse("task-activity")).status_code == 405
    crafted = assignment_token(Assignment.objects.get().pk, "Lsomeone-else")
    clock.shift(timedelta(seconds=250))
    assert activity(client, crafted).json() == {"state": "closed"}
    clock.shift(timedelta(seconds=51))
    assert newcomer_takes(campaign)  # the forged beat did not keep the task
    assert activity(client, token, left=True).json() == {"state": "closed"}


def pilot_campaign(settings):
    """One pilot item for two workers (handed out first), then one ordinary item."""
    settings.TASK_INACTIVITY_SECONDS = 300
    campaign = make_campaign(images=2, assignments=1, time_limit_seconds=3600, pilot_items=1, pilot_assignments=2)
    return campaign, HIT.objects.get(campaign=campaign, pilot=True)


def hit_of(token: str) -> HIT:
    return Assignment.objects.get(pk=read_assignment_token(token).assignment_id).hit


def test_a_closed_pilot_page_gives_the_pilot_item_to_the_next_worker(client, clock, settings):
    campaign, pilot = pilot_campaign(settings)
    token = start_task(client, campaign)
    assert hit_of(token) == pilot and hit_of(start_task(Client(), campaign)) == pilot  # its two slots taken
    assert activity(client, token, left=True).json() == {"state": "active"}  # the page-close beacon
    clock.shift(timedelta(seconds=61))
    newcomer = start_task(Client(), campaign)
    assert hit_of(newcomer) == pilot  # the pilot item, not the ordinary one
    assert Assignment.objects.get(pk=read_assignment_token(token).assignment_id).status == A.ABANDONED
    assert HIT.objects.get(pk=pilot.pk).taken_slots == 2


def test_an_idle_pilot_task_is_released_after_the_inactivity_window(client, clock, settings):
    campaign, pilot = pilot_campaign(settings)
    token = start_task(client, campaign)
    assert hit_of(token) == pilot
    clock.shift(timedelta(seconds=299))
    assert release_idle_assignments() == 0
    clock.shift(timedelta(seconds=2))
    assert release_idle_assignments() == 1
    assert Assignment.objects.get().status == A.ABANDONED and HIT.objects.get(pk=pilot.pk).taken_slots == 0
    assert hit_of(start_task(Client(), campaign)) == pilot


def test_marketplace_assignments_are_never_released_here(clock, settings):
    settings.TASK_INACTIVITY_SECONDS = 300
    campaign = make_campaign(images=1, assignments=1, time_limit_seconds=3600)
    assign_next_hit(campaign, new_local_worker())  # no active_until: what a marketplace arrival gets
    clock.shift(timedelta(seconds=1800))
    assert release_idle_assignments() == 0 and Assignment.objects.get().status == A.ACCEPTED


def test_a_beat_is_one_query(client, settings, django_assert_num_queries):
    campaign = one_slot_campaign(settings)
    token = start_task(client, campaign)
    with django_assert_num_queries(1):
        assert activity(client, token).status_code == 200
    assert Worker.objects.count() == 1


def test_the_task_page_reports_activity_only_for_local_work(client, settings):
    campaign = one_slot_campaign(settings)
    token = start_task(client, campaign)
    html = client.get(reverse("task-page") + f"?t={token}").content.decode()
    assert f'data-activity-url="{reverse("task-activity")}"' in html and 'data-activity-every="60"' in html
    assert "js/worker_identity.js" in html
