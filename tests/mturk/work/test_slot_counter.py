"""HIT.taken_slots, the counter the next HIT is chosen by, stays equal to a recount of the HIT's
slot-holding confirmed assignments through every path that takes or frees a slot (and races, on
PostgreSQL); the order HITs are given in is unchanged (fewest taken slots, then position)."""
from __future__ import annotations

import importlib
import json
import threading
from datetime import timedelta

import pytest
from django.apps import apps
from django.db import connection
from django.db.models import Count, Q
from django.utils import timezone

from mturk.models import HIT, Assignment
from mturk.providers.base import MarketplaceAssignment
from mturk.providers.mturk.arrivals import accept_marketplace_assignment
from mturk.services.review import approve_assignment, reject_assignment
from mturk.states import SLOT_HOLDING, AssignmentStatus
from mturk.work.services.assignments import (
    NoTaskAvailable,
    assign_next_hit,
    expire_stale_assignments,
    new_local_worker,
    return_assignment,
    start_local_task,
)
from mturk.work.services.marketplace_sync import SyncReport, reconcile
from tests.factories import GOOD_TEXT, make_campaign, submitted
from tests.mturk.providers.mturk.builders import hits_of, published_mturk_campaign

pytestmark = pytest.mark.django_db


def counters() -> dict[int, int]:
    return dict(HIT.objects.values_list("pk", "taken_slots"))


def recount() -> dict[int, int]:
    held = Count("assignments", filter=Q(assignments__status__in=SLOT_HOLDING, assignments__confirmed=True))
    return dict(HIT.objects.annotate(held=held).values_list("pk", "held"))


def test_taking_slots_counts_them_and_full_hits_leave_the_queue():
    campaign = make_campaign(images=2, assignments=2)
    for _ in range(4):
        assign_next_hit(campaign, new_local_worker())
    assert sorted(counters().values()) == [2, 2]
    assert counters() == recount()
    with pytest.raises(NoTaskAvailable):
        assign_next_hit(campaign, new_local_worker())


def test_answering_and_reviewing_keep_the_slot_counted():
    campaign = make_campaign(images=1, assignments=3)
    kept = submitted(campaign)
    rejected = submitted(campaign)
    approve_assignment(kept)
    reject_assignment(rejected, "too short")
    assert list(counters().values()) == [2]
    assert counters() == recount()


def test_a_returned_task_frees_its_slot_for_the_next_worker_first():
    campaign = make_campaign(images=2, assignments=2)
    first = assign_next_hit(campaign, new_local_worker())
    assign_next_hit(campaign, new_local_worker())  # the other HIT: both now have 1 taken
    return_assignment(assignment_id=first.pk, worker_external_id=first.worker.external_id)
    assert counters()[first.hit_id] == 0
    assert counters() == recount()
    assert assign_next_hit(campaign, new_local_worker()).hit_id == first.hit_id  # fewest taken first
    assert counters() == recount()


def test_expiry_gives_overdue_slots_back_and_counts_them_out():
    campaign = make_campaign(images=3, assignments=1)
    taken = [assign_next_hit(campaign, new_local_worker()) for _ in range(3)]
    Assignment.objects.filter(pk__in=[taken[0].pk, taken[2].pk]).update(deadline=timezone.now() - timedelta(seconds=1))
    assert expire_stale_assignments(campaign) == 2
    assert counters() == recount() == {taken[0].hit_id: 0, taken[1].hit_id: 1, taken[2].hit_id: 0}
    given = {assign_next_hit(campaign, new_local_worker()).hit_id for _ in range(2)}
    assert given == {taken[0].hit_id, taken[2].hit_id}
    assert counters() == recount()


def test_expiry_reads_in_batches_and_expires_every_overdue_assignment(monkeypatch):
    from mturk.work.services import assignments

    monkeypatch.setattr(assignments, "EXPIRY_BATCH", 2)
    campaign = make_campaign(images=5, assignments=1)
    taken = [assign_next_hit(campaign, new_local_worker()) for _ in range(5)]
    Assignment.objects.update(deadline=timezone.now() - timedelta(seconds=1))
    assert expire_stale_assignments() == 5
    assert set(Assignment.objects.values_list("status", flat=True)) == {AssignmentStatus.EXPIRED}
    assert counters() == recount() == {a.hit_id: 0 for a in taken}


def test_the_order_is_fewest_taken_then_position():
    campaign = make_campaign(images=4, assignments=3)
    hits = [h.pk for h in campaign.hits.order_by("position", "id")]
    given = [assign_next_hit(campaign, new_local_worker()).hit_id for _ in range(6)]
    assert given == hits + hits[:2]


def remote(assignment_id: str, worker_id: str) -> MarketplaceAssignment:
    return MarketplaceAssignment(assignment_id=assignment_id, worker_id=worker_id, status="Submitted",
                                 answers={"answer": json.dumps({"text": GOOD_TEXT})})


def test_marketplace_reconcile_counts_confirmed_records_only():
    campaign = published_mturk_campaign(images=1, assignments=3)
    hit = hits_of(campaign)[0]
    arrival = accept_marketplace_assignment(hit, "WORKER1", "ASSIGN1")  # unconfirmed: holds no slot
    assert not arrival.confirmed and counters()[hit.pk] == 0
    reconcile(hit, remote("ASSIGN1", "WORKER1"), SyncReport())  # the arrival confirmed
    assert counters()[hit.pk] == 1
    reconcile(hit, remote("ASSIGN2", "WORKER2"), SyncReport())  # a record created by the sync
    assert counters()[hit.pk] == 2
    assert counters() == recount()


def test_a_reused_marketplace_id_moves_the_slot_to_the_new_worker():
    campaign = published_mturk_campaign(images=1, assignments=1)
    hit = hits_of(campaign)[0]
    first = reconcile(hit, remote("ASSIGN1", "WORKER1"), SyncReport())
    Assignment.objects.filter(pk=first.pk).update(status=AssignmentStatus.ACCEPTED)  # as if still working
    reconcile(hit, remote("ASSIGN1", "WORKER2"), SyncReport())
    first.refresh_from_db()
    assert first.status == AssignmentStatus.RETURNED
    assert counters() == recount() == {hit.pk: 1}


def test_a_record_changed_behind_the_services_back_is_counted_again_at_the_next_take():
    campaign = make_campaign(images=1, assignments=2)
    held = assign_next_hit(campaign, new_local_worker())
    Assignment.objects.filter(pk=held.pk).update(status=AssignmentStatus.RETURNED)  # not through a service
    assert counters() != recount()
    assign_next_hit(campaign, new_local_worker())
    assert counters() == recount()
    HIT.objects.update(taken_slots=0)  # a counter that says free while both slots are held
    Assignment.objects.filter(pk=held.pk).update(status=AssignmentStatus.SUBMITTED)
    with pytest.raises(NoTaskAvailable):
        assign_next_hit(campaign, new_local_worker())  # the recount under the lock decides, never the counter
    assert counters() == recount()


def test_the_migration_counts_existing_slots():
    campaign = make_campaign(images=3, assignments=2)
    for _ in range(4):
        assign_next_hit(campaign, new_local_worker())
    expected = recount()
    HIT.objects.update(taken_slots=0)
    importlib.import_module("mturk.migrations.0007_hit_taken_slots").count_taken_slots(apps, None)
    assert counters() == expected


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks and real concurrency need PostgreSQL")
def test_concurrent_arrivals_returns_and_expiry_keep_the_counters_true():
    from django.db import connections

    campaign = make_campaign(images=3, assignments=2)
    overdue = [start_local_task(campaign, None) for _ in range(2)]
    Assignment.objects.filter(pk__in=[a.pk for a in overdue]).update(deadline=timezone.now() - timedelta(seconds=1))
    to_return = start_local_task(campaign, None)
    barrier = threading.Barrier(12)
    outcomes: list[str] = []

    def arrive(n: int) -> None:
        try:
            barrier.wait()
            if n == 0:
                return_assignment(assignment_id=to_return.pk, worker_external_id=to_return.worker.external_id)
                outcomes.append("returned")
            elif n == 1:
                expire_stale_assignments()
                outcomes.append("expired")
            else:
                try:
                    start_local_task(campaign, None)
                    outcomes.append("took")
                except NoTaskAvailable:
                    outcomes.append("none")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=arrive, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(outcomes) == 12
    assert counters() == recount()
    assert all(taken <= 2 for taken in recount().values())
    # 6 slots, none held once the overdue ones expired and the return landed: 10 arrivals take at most 6.
    assert outcomes.count("took") <= 6 and outcomes.count("took") >= 3
