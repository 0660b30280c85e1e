"""A large campaign under way, written by the PostgreSQL server itself (INSERT ... SELECT generate_series),
for the query-plan test and bench/assignment_scale.py.

The shape of a second-stage campaign of a visual-stories workflow part-way through:
- `hits` published HITs of 3 assignments, ten per group (album), in position order: the first 40% full
  (3 approved), the next 30% with 1 or 2 taken (submitted; every 50th of them one accepted and in time),
  the rest untaken; `taken_slots` equals the recount;
- an earlier stage with one approved HIT per group, done by the same crowd (so groups are excluded);
- `hits // 20` workers (at least 10), and `stale` accepted assignments already past their deadline on
  partly taken HITs (the next arrival expires them).
Then ANALYZE (unless `analyze=False`), so the planner sees the sizes. `build_published_campaign` writes a campaign
as it is the minute after publishing, not analyzed. `scans_of` reads PostgreSQL's plan of a statement."""
from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import connection, transaction

from mturk.models import Campaign, Worker
from mturk.states import CampaignStatus

PER_GROUP = 10
SLOTS = 3


@dataclass(frozen=True)
class LargeCampaign:
    campaign: Campaign
    earlier_stage: Campaign
    tag: str

    def seeded_worker(self, n: int) -> Worker:
        """The n-th worker of the crowd (1-based): has work in both stages, none of it open."""
        return Worker.objects.get(provider="local", external_id=f"{self.tag}-{n}")


def build_large_campaign(hits: int, *, tag: str = "scale", stale: int = 5, analyze: bool = True) -> LargeCampaign:
    if connection.vendor != "postgresql":
        raise RuntimeError("the large campaign is written with PostgreSQL's generate_series")
    groups = max(1, hits // PER_GROUP)
    workers = max(10, hits // 20)
    full, partial = hits * 4 // 10, hits * 7 // 10
    earlier = Campaign.objects.create(name=f"{tag} stage 1", task_kind="describe_image", reward=Decimal("0.10"),
                                      assignments_per_hit=1, status=CampaignStatus.ACTIVE)
    campaign = Campaign.objects.create(name=f"{tag} stage 2", task_kind="describe_image", reward=Decimal("0.10"),
                                       assignments_per_hit=SLOTS, status=CampaignStatus.ACTIVE)
    taken = f"(CASE WHEN i <= {full} THEN {SLOTS} WHEN i <= {partial} THEN 1 + mod(i, 2) ELSE 0 END)"
    params: dict[str, int | str] = {"tag": tag, "hits": hits, "groups": groups, "workers": workers, "stale": stale,
              "campaign": campaign.pk, "earlier": earlier.pk}
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            """INSERT INTO mturk_worker (provider, external_id, blocked, block_reason, created_at)
               SELECT 'local', %(tag)s || '-' || w, false, '', now() FROM generate_series(1, %(workers)s) w""",
            params)
        cursor.execute("DROP TABLE IF EXISTS pg_temp.crowd")  # a test builds twice in its one transaction
        cursor.execute(
            """CREATE TEMP TABLE crowd ON COMMIT DROP AS
               SELECT row_number() OVER (ORDER BY id) - 1 AS n, id FROM mturk_worker
               WHERE provider = 'local' AND external_id LIKE %(tag)s || '-%%'""", params)
        cursor.execute("CREATE UNIQUE INDEX ON crowd (n)")
        for stage, count, slots in (("earlier", "groups", "1"), ("campaign", "hits", taken)):
            cursor.execute(
                f"""INSERT INTO mturk_hit (campaign_id, position, items, "group", max_assignments, status,
                                           external_id, hit_type_id, marketplace_done, created_at, published_at,
                                           taken_slots)
                    SELECT %({stage})s, i, jsonb_build_object('image', i),
                           'album:' || ({'i' if stage == 'earlier' else f'(i - 1) / {PER_GROUP} + 1'}),
                           {SLOTS if stage == 'campaign' else 1}, 'published', '', '', false, now(), now(), {slots}
                    FROM generate_series(1, %({count})s) i""", params)
        # Earlier stage: group g done (approved) by worker g mod workers.
        cursor.execute(
            """INSERT INTO mturk_assignment (hit_id, worker_id, status, external_id, marketplace_status,
                                             auto_approved, answer, check_flags, feedback, accepted_at, deadline,
                                             submitted_at, decided_at, is_simulated, confirmed)
               SELECT h.id, c.id, 'approved', '', '', false, '{"text": "x"}', '[]', '', now() - interval '2 days',
                      now() - interval '1 day', now() - interval '2 days', now() - interval '1 day', false, true
               FROM mturk_hit h JOIN crowd c ON c.n = h.position %% %(workers)s
               WHERE h.campaign_id = %(earlier)s""", params)
        # This stage: slot j of HIT i held by worker (i * 3 + j) * 7919 mod workers (distinct per HIT).
        cursor.execute(
            f"""INSERT INTO mturk_assignment (hit_id, worker_id, status, external_id, marketplace_status,
                                              auto_approved, answer, check_flags, feedback, accepted_at, deadline,
                                              submitted_at, decided_at, is_simulated, confirmed)
                SELECT h.id, c.id,
                       CASE WHEN h.taken_slots = {SLOTS} THEN 'approved'
                            WHEN j = h.taken_slots AND h.position %% 50 = 0 THEN 'accepted' ELSE 'submitted' END,
                       '', '', false,
                       CASE WHEN j = h.taken_slots AND h.position %% 50 = 0 THEN NULL ELSE '{{"text": "x"}}'::jsonb END,
                       '[]', '', now() - interval '1 hour',
                       CASE WHEN j = h.taken_slots AND h.position %% 50 = 0 THEN now() + interval '1 hour'
                            ELSE now() - interval '30 minutes' END,
                       CASE WHEN j = h.taken_slots AND h.position %% 50 = 0 THEN NULL
                            ELSE now() - interval '40 minutes' END,
                       NULL, false, true
                FROM mturk_hit h CROSS JOIN LATERAL generate_series(1, h.taken_slots) j
                JOIN crowd c ON c.n = ((h.position::bigint * {SLOTS} + j) * 7919) %% %(workers)s
                WHERE h.campaign_id = %(campaign)s""", params)
        # Overdue accepted assignments (by workers outside the crowd) on the first partly taken HITs.
        cursor.execute(
            """WITH late AS (
                   INSERT INTO mturk_worker (provider, external_id, blocked, block_reason, created_at)
                   SELECT 'local', %(tag)s || '-late-' || s, false, '', now() FROM generate_series(1, %(stale)s) s
                   RETURNING id)
               INSERT INTO mturk_assignment (hit_id, worker_id, status, external_id, marketplace_status,
                                             auto_approved, answer, check_flags, feedback, accepted_at, deadline,
                                             submitted_at, decided_at, is_simulated, confirmed)
               SELECT h.id, l.id, 'accepted', '', '', false, NULL, '[]', '', now() - interval '2 hours',
                      now() - interval '1 hour', NULL, NULL, false, true
               FROM (SELECT id, row_number() OVER (ORDER BY id) AS r FROM late) l
               JOIN (SELECT id, row_number() OVER (ORDER BY position) AS r FROM mturk_hit
                     WHERE campaign_id = %(campaign)s AND taken_slots BETWEEN 1 AND 2) h ON h.r = l.r""",
            params)
        cursor.execute(
            """UPDATE mturk_hit h SET taken_slots = h.taken_slots + 1
               WHERE id IN (SELECT hit_id FROM mturk_assignment a JOIN mturk_worker w ON w.id = a.worker_id
                            WHERE w.external_id LIKE %(tag)s || '-late-%%')""", params)
        if analyze:
            cursor.execute("ANALYZE mturk_worker; ANALYZE mturk_hit; ANALYZE mturk_assignment")
    return LargeCampaign(campaign=campaign, earlier_stage=earlier, tag=tag)


def build_published_campaign(hits: int, *, tag: str = "published") -> Campaign:
    """A campaign the minute after it was published: `hits` HITs of 3 assignments, none taken, written as the
    services write them (inserted as drafts, as add_hits does, then marked published in one UPDATE, as
    publish_campaign does), and not analyzed: the table's statistics are whatever they were before."""
    if connection.vendor != "postgresql":
        raise RuntimeError("the campaign is written with PostgreSQL's generate_series")
    campaign = Campaign.objects.create(name=f"{tag} published", task_kind="describe_image", reward=Decimal("0.10"),
                                       assignments_per_hit=SLOTS, status=CampaignStatus.ACTIVE)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"""INSERT INTO mturk_hit (campaign_id, position, items, "group", max_assignments, status, external_id,
                                       hit_type_id, marketplace_done, created_at, taken_slots, onboarding, pilot)
                SELECT %s, i, jsonb_build_object('image', i), '', {SLOTS}, 'draft', '', '', false, now(), 0, false,
                       false
                FROM generate_series(1, %s) i""", [campaign.pk, hits])
        cursor.execute("UPDATE mturk_hit SET status = 'published', published_at = now() WHERE campaign_id = %s",
                       [campaign.pk])
    return campaign


def plan_nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    return [node, *[n for child in node.get("Plans", []) for n in plan_nodes(child)]]


def scans_of(sql: str, *, analyze: bool = False) -> list[dict[str, Any]]:
    """Every node of the statement's plan (EXPLAIN ... FORMAT JSON; with ANALYZE the statement runs)."""
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN ({'ANALYZE, ' if analyze else ''}FORMAT JSON) {sql}")
        (document,), = cursor.fetchall()
    plan = document if isinstance(document, list) else json.loads(document)
    return plan_nodes(plan[0]["Plan"])


def explainable(statements: list[str]) -> list[str]:
    """The statements EXPLAIN accepts (transaction control and savepoints left out)."""
    return [s for s in statements if s.split(None, 1)[0].upper() in {"SELECT", "INSERT", "UPDATE", "DELETE", "WITH"}]
