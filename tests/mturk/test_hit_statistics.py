"""The first arrival after a campaign's HITs are written already gets the ordered walk of `hit_open_slots`.

The tables hold an earlier, analyzed campaign (as autovacuum would have left them); a new campaign of 20,000 HITs is
then written as the services write it (drafts, then published in one UPDATE) without ANALYZE. With those stale
statistics PostgreSQL plans the next-HIT query as a read of every open HIT of the campaign and a sort; once the
writing service's `hits_written` has run (after commit), it walks the index and stops at the first free HIT.
Publishing through the service analyzes the table."""
from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from mturk.models import HIT, Assignment, Worker
from mturk.services import hit_statistics
from mturk.services.campaigns import create_campaign, publish_campaign
from mturk.states import AssignmentStatus
from mturk.work.services.assignments import start_local_task
from mturk.work.services.slots import candidate_hits, store_taken_slots
from tests.factories import make_image

from .large_campaign import build_large_campaign, build_published_campaign, explainable, scans_of

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's planner statistics"),
]

HITS = 20_000


def next_hit_plan(campaign, worker) -> tuple[set[str], int]:
    """The indexes the next-HIT query (as an arrival runs it) scans the HIT table with, and the HIT rows it reads."""
    sql, params = candidate_hits(campaign, worker, limit=20).values_list("pk", flat=True).query.sql_with_params()
    with connection.cursor() as cursor:
        statement = cursor.mogrify(sql, params).decode()
    nodes = [n for n in scans_of(statement, analyze=True) if n.get("Relation Name") == "mturk_hit"
             and n.get("Alias") == "mturk_hit"]
    read = sum((n["Actual Rows"] + n.get("Rows Removed by Filter", 0)) * n["Actual Loops"] for n in nodes)
    return {n.get("Index Name", n["Node Type"]) for n in nodes}, read


@pytest.fixture
def analyzed_earlier_campaign():
    build_large_campaign(200, tag="earlier")  # analyzed by the builder


def test_after_a_bulk_write_the_first_arrival_walks_the_index(analyzed_earlier_campaign,
                                                             django_capture_on_commit_callbacks):
    campaign = build_published_campaign(HITS)
    worker = Worker.objects.create(provider="local", external_id="first-arrival")
    stale_indexes, stale_read = next_hit_plan(campaign, worker)
    assert "hit_open_slots" not in stale_indexes and stale_read > HITS // 2  # the premise: every open HIT read

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        hit_statistics.hits_written(HITS)
    assert len(callbacks) == 1

    indexes, read = next_hit_plan(campaign, worker)
    assert indexes == {"hit_open_slots"}
    assert read == 20  # the first twenty free HITs, nothing else
    assert stale_read == HITS


def test_a_few_hits_written_do_not_analyze(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        hit_statistics.hits_written(hit_statistics.ANALYZE_FROM - 1)
    assert callbacks == []


def test_creating_and_publishing_hits_through_the_services_analyzes_the_table(
        monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr(hit_statistics, "ANALYZE_FROM", 2)
    items = [{"image": make_image(f"img-{n}.png").pk} for n in range(5)]

    def reltuples() -> float:
        with connection.cursor() as cursor:
            cursor.execute("SELECT reltuples FROM pg_class WHERE relname = 'mturk_hit'")
            return float(cursor.fetchone()[0])

    with django_capture_on_commit_callbacks(execute=True) as created:
        campaign = create_campaign(name="bulk", task_kind="describe_image", reward=Decimal("0.10"),
                                   assignments_per_hit=1, items=items[:3])
    assert len(created) == 1 and reltuples() == HIT.objects.count() == 3
    HIT.objects.bulk_create([HIT(campaign=campaign, items=item, position=10 + n, max_assignments=1)
                             for n, item in enumerate(items[3:])])
    assert reltuples() == 3  # written around the services: not analyzed
    with django_capture_on_commit_callbacks(execute=True) as published:
        publish_campaign(campaign)
    assert len(published) == 1 and reltuples() == 5
    assert HIT.objects.filter(status="published").count() == 5


def test_a_returning_workers_arrival_reads_only_a_few_hit_rows_in_a_new_large_campaign(
        analyzed_earlier_campaign, django_capture_on_commit_callbacks):
    """A worker of the earlier campaign (confirmed work in its groups) who returned a task on the new campaign's last
    HIT: no statement of the next arrival walks the HIT table up to that HIT (slots.groups_done_elsewhere); reads
    of a few hundred rows are the overdue assignments of the other campaigns."""
    earlier = build_large_campaign(400, tag="crowd")
    campaign = build_published_campaign(HITS)
    with django_capture_on_commit_callbacks(execute=True):
        hit_statistics.hits_written(HITS)
    worker = earlier.seeded_worker(3)
    last = HIT.objects.filter(campaign=campaign).order_by("-position").first()
    Assignment.objects.create(hit=last, worker=worker, status=AssignmentStatus.RETURNED,
                              deadline=timezone.now() + timedelta(hours=1))
    store_taken_slots([last.pk])

    with CaptureQueriesContext(connection) as captured:
        assignment = start_local_task(campaign, worker)

    assert assignment.hit.campaign_id == campaign.pk and assignment.hit_id != last.pk
    reads = []
    for sql in explainable([q["sql"] for q in captured.captured_queries]):
        if sql.upper().startswith("SELECT"):
            hit_rows = sum((n["Actual Rows"] + n.get("Rows Removed by Filter", 0)) * n["Actual Loops"]
                           for n in scans_of(sql, analyze=True) if n.get("Relation Name") == "mturk_hit")
            reads.append((hit_rows, sql))
    assert len(reads) >= 5 and max(reads)[0] <= 1_000, max(reads)  # a bounded walk (test_assignment_plans)
