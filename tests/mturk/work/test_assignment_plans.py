"""An arrival in a campaign of 100,000 HITs reads indexes only (PostgreSQL's plans of every statement).

Every statement of two arrivals (the first one also expires overdue assignments; a worker with work in
this and an earlier stage, then a new worker) is explained with the parameters it ran with: no
sequential scan of the HIT or assignment tables, and the reads (EXPLAIN ANALYZE of the SELECTs, rows
returned plus rows filtered out by each scan of those tables) stay far below the campaign's size."""
from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import Count, Q
from django.test.utils import CaptureQueriesContext

from mturk.models import HIT, Assignment
from mturk.states import SLOT_HOLDING, AssignmentStatus
from mturk.work.services.assignments import start_local_task
from tests.mturk.large_campaign import build_large_campaign, explainable, scans_of

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="query plans of PostgreSQL"),
]

HITS = 100_000
TABLES = {"mturk_hit", "mturk_assignment"}
MOST_ROWS_READ = 1_000  # per scan of a table: a bounded walk of an index, 1% of the campaign


def arrival_statements(run) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        run()
    return explainable([q["sql"] for q in captured.captured_queries])


def test_arrivals_at_100k_hits_scan_no_table_and_read_a_bounded_number_of_rows():
    large = build_large_campaign(HITS)
    campaign = large.campaign
    regular = large.seeded_worker(7)
    before = Assignment.objects.filter(worker=regular).count()
    statements = arrival_statements(lambda: start_local_task(campaign, regular))
    statements += arrival_statements(lambda: start_local_task(campaign, None))

    # The arrivals did what an arrival does: the overdue assignments expired, two slots taken.
    assert Assignment.objects.filter(hit__campaign=campaign, status=AssignmentStatus.EXPIRED).count() == 5
    assert Assignment.objects.filter(worker=regular).count() == before + 1
    assert Assignment.objects.filter(hit__campaign=campaign, status=AssignmentStatus.ACCEPTED,
                                     worker__external_id__startswith="L").count() == 1
    verbs = {s.split()[0].upper() for s in statements}
    assert {"SELECT", "INSERT", "UPDATE"} <= verbs

    sequential, wide = [], []
    for sql in statements:
        for node in scans_of(sql):
            if node["Node Type"] == "Seq Scan" and node.get("Relation Name") in TABLES:
                sequential.append((node["Relation Name"], sql))
        if sql.upper().startswith("SELECT"):
            for node in scans_of(sql, analyze=True):
                if node.get("Relation Name") in TABLES:
                    read = (node["Actual Rows"] + node.get("Rows Removed by Filter", 0)) * node["Actual Loops"]
                    if read > MOST_ROWS_READ:
                        wide.append((node["Node Type"], node["Relation Name"], read, sql))
    assert sequential == []
    assert wide == []


def test_the_large_campaign_counts_its_slots_like_a_recount():
    """The builder's counters are the ones the services keep (the plan test measures a true state)."""
    large = build_large_campaign(2_000, tag="small")
    hits = HIT.objects.filter(campaign__in=[large.campaign, large.earlier_stage])
    held = Count("assignments", filter=Q(assignments__status__in=SLOT_HOLDING, assignments__confirmed=True))
    counted = dict(hits.values_list("pk", "taken_slots"))
    assert counted == dict(hits.annotate(held=held).values_list("pk", "held"))
    assert {0, 1, 2, 3} <= set(counted.values())
