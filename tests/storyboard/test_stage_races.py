"""Approvals of one album's assignments landing together (PostgreSQL, real threads): the next stage
starts exactly once."""
from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from mturk.models import HIT, Assignment
from mturk.services.review import approve_assignment
from mturk.task_kinds import get_task_kind
from mturk.work.services.assignments import assign_next_hit, get_or_create_worker, submit_answer
from storyboard.models import ChosenSequence
from storyboard.services.workflow import create_story_workflow
from storyboard.simulation import answer_for
from tests.factories import make_album

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks and real concurrency need PostgreSQL"),
]


def submit_all(campaign, workers: int, rng_seed: int) -> list[Assignment]:
    import random

    rng = random.Random(rng_seed)
    kind = get_task_kind(campaign.task_kind)
    done = []
    for number in range(workers):
        worker = get_or_create_worker("local", f"race-{campaign.pk}-{number}")
        assignment = assign_next_hit(campaign, worker)
        payload = kind.build_payloads(campaign, [assignment.hit])[assignment.hit.pk]
        answer = answer_for(campaign.task_kind, payload, kind.options(campaign), rng)
        if campaign.task_kind == "retell_story":
            answer["sequence"] = payload["sequences"][0]["id"]  # a unanimous choice
        done.append(submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                                  answer=answer).assignment)
    return done


def approve_together(assignments: list[Assignment]) -> None:
    barrier = threading.Barrier(len(assignments))
    errors: list[BaseException] = []

    def approve(assignment: Assignment) -> None:
        try:
            barrier.wait()
            approve_assignment(assignment)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=approve, args=(a,)) for a in assignments]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def test_concurrent_approvals_start_each_later_stage_once():
    """Approvals of one HIT serialize on its row (approve_assignment locks the assignment with its HIT
    and campaign, and the stage rules lock the HIT again), so exactly one of them starts the next stage
    and none deadlocks."""
    album = make_album(8)
    campaigns = create_story_workflow("Race", [album], publish=True)
    approve_together(submit_all(campaigns["tell"], 2, 1))
    assert list(HIT.objects.filter(campaign=campaigns["retell"]).values_list("items", flat=True)) == [
        {"album": album.pk}]
    campaigns["retell"].refresh_from_db()
    approve_together(submit_all(campaigns["retell"], 3, 2))
    assert ChosenSequence.objects.filter(album=album).count() == 1
    assert HIT.objects.filter(campaign=campaigns["dis"]).count() == 1
    assert HIT.objects.filter(campaign=campaigns["dii"]).count() == 5
