"""The planner's statistics of the HIT table, refreshed as soon as HITs are written in bulk (PostgreSQL).

The next-HIT query (services.slots.candidate_hits) is fast only while PostgreSQL walks the `hit_open_slots` index
and stops at the first free HIT. Right after a campaign's HITs are created or published, the table's statistics
still describe it as it was: a new campaign id is in no histogram (estimated at one row), its published HITs are
counted as drafts, and autovacuum analyzes the table only once 10 % of it has changed (never, for a 100k-HIT
campaign added to a table of 1M and more). With one estimated row, reading the campaign's HITs through the
campaign index and sorting them looks cheaper than the ordered walk; at 100k HITs that plan reads and sorts every
open HIT of the campaign on each arrival (about 110 ms instead of 0.05 ms). So the service that wrote the HITs has
the table analyzed once its transaction commits: ANALYZE reads a fixed sample (300 x default_statistics_target
rows), so it costs the same whatever the table's size, and the first arrival already gets the ordered walk."""
from __future__ import annotations

import logging

from django.db import connection, transaction

logger = logging.getLogger(__name__)

ANALYZE_FROM = 500  # HITs written in one go; fewer are read and sorted in well under a millisecond by either plan


def hits_written(count: int) -> None:
    """Call after creating or publishing `count` HITs in bulk, inside the writing transaction: on PostgreSQL the
    HIT table is analyzed after it commits (a failure is logged, never raised: the HITs are written)."""
    if count >= ANALYZE_FROM and connection.vendor == "postgresql":
        transaction.on_commit(analyze_hits, robust=True)


def analyze_hits() -> None:
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE mturk_hit")
    logger.info("HIT table analyzed after a bulk write")
