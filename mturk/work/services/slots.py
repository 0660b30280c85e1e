"""A HIT's slots: the counter that lets the next HIT be found by an index scan, and the candidates query.

`HIT.taken_slots` holds how many confirmed assignments of the HIT hold a slot (SLOT_HOLDING). The
partial index `hit_open_slots` (published HITs with `taken_slots < max_assignments`, ordered by
campaign, taken_slots, position, id) then answers "the next HIT for this worker" from its first
entries, skipping only the HITs this worker may not take, so an arrival costs the same at 1k or 1M HITs.

Every write that takes or frees a slot (a new confirmed assignment, a return, an expiry, a marketplace
record confirmed, re-opened or returned) calls `store_taken_slots` in its transaction after changing
the assignments. It locks the HIT row, then recounts the HIT's slot-holding assignments in a new
statement and stores the count. Recounting rather than adding or subtracting one is what keeps the
counter right: the lock is granted only once the previous holder committed, so in PostgreSQL's read
committed mode the recount sees every change whose writer locked the row before, and a record changed
without this module (a shell, the admin) is counted in again by the next change to that HIT. The
recount reads the assignments of one HIT (an index lookup), whatever the campaign's size.

Lock order: assignment rows first, then the HIT row (approvals lock the same way, see storyboard's
stage rules), except when a slot is taken: the HIT is locked before its new assignment is inserted,
and an insert waits for no existing row."""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db import transaction
from django.db.models import Exists, F, OuterRef, QuerySet, Subquery

from ...models import HIT, Assignment, Campaign, Worker
from ...states import SLOT_HOLDING, AssignmentStatus, HITStatus


def lock_hit(hit_id: int) -> HIT:
    return HIT.objects.select_for_update().get(pk=hit_id)


def count_taken_slots(hit_id: int) -> int:
    """Slots of the HIT held by confirmed assignments (an index lookup of the HIT's assignments)."""
    return Assignment.objects.filter(hit_id=hit_id, status__in=SLOT_HOLDING, confirmed=True).count()


def store_taken_slots(hit_ids: Iterable[int]) -> None:
    """Lock each HIT (in id order) and store its recounted slots; call inside the transaction that
    changed its assignments, after the change."""
    for hit_id in sorted(set(hit_ids)):
        hit = lock_hit(hit_id)
        taken = count_taken_slots(hit_id)
        if hit.taken_slots != taken:
            HIT.objects.filter(pk=hit_id).update(taken_slots=taken)


def groups_done_elsewhere(campaign: Campaign, worker: Worker) -> list[str]:
    """The groups (albums) of the HITs this worker has confirmed work on in other campaigns: none of their HITs is
    for this worker here.

    Two short reads, never a join: the worker's confirmed records (the worker index), then the groups of those HITs
    (primary-key lookups). Written as one statement (a join of the worker's records to the HIT table), PostgreSQL
    may plan a merge join that walks the HIT table's primary key from its first row up to the worker's newest HIT,
    since it cannot tell where the worker's HITs lie: 100k HITs read at every arrival of a returning worker once
    campaigns of that size exist, whatever the statistics."""
    hit_ids = list(Assignment.objects.filter(worker=worker, confirmed=True).values_list("hit_id", flat=True))
    if not hit_ids:
        return []
    return sorted(set(HIT.objects.filter(pk__in=hit_ids).exclude(group="").exclude(campaign=campaign)
                      .values_list("group", flat=True)))


def candidate_hits(campaign: Campaign, worker: Worker, limit: int,
                   skip_groups: list[str] | None = None) -> QuerySet[HIT]:
    """The campaign's open HITs this worker may take, fewest taken slots first, then by position.

    Walks the `hit_open_slots` index from its start: the HITs the worker already has a record of (any record,
    returned ones too) are an anti-join on the worker's own assignments, and those of a group (an album) the worker
    did in another campaign are left out by name (`groups_done_elsewhere`, read first), so the walk reads the HITs
    it returns plus those it skips for this worker, never the whole campaign (`skip_groups`: those groups, if read
    already). Onboarding HITs are never candidates
    (the index leaves them out; services.assignments gives them to a worker first). The walk needs statistics that
    know the campaign: services.hit_statistics."""
    done_by_worker = Assignment.objects.filter(hit=OuterRef("pk"), worker=worker)
    found = HIT.objects.filter(campaign=campaign, status=HITStatus.PUBLISHED, onboarding=False,
                               taken_slots__lt=F("max_assignments")).exclude(Exists(done_by_worker))
    groups = groups_done_elsewhere(campaign, worker) if skip_groups is None else skip_groups
    if groups:
        found = found.exclude(group__in=groups)
    return found.order_by("taken_slots", "position", "id")[:limit]


def pilot_candidates(campaign: Campaign, worker: Worker, limit: int,
                     skip_groups: list[str] | None = None) -> QuerySet[HIT]:
    """The campaign's open pilot HITs this worker may take, in position order (the `hit_open_pilot` index): every
    worker starts on the same items, so answers overlap after a few tasks (services.pilot)."""
    done_by_worker = Assignment.objects.filter(hit=OuterRef("pk"), worker=worker)
    found = HIT.objects.filter(campaign=campaign, pilot=True, status=HITStatus.PUBLISHED,
                               taken_slots__lt=F("max_assignments")).exclude(Exists(done_by_worker))
    groups = groups_done_elsewhere(campaign, worker) if skip_groups is None else skip_groups
    if groups:
        found = found.exclude(group__in=groups)
    return found.order_by("position", "id")[:limit]


def release_accepted(past: str, now: datetime, to: AssignmentStatus, campaign: Campaign | None = None,
                     batch: int = 100) -> int:
    """Accepted assignments whose `past` time (deadline, active_until) is before `now` give their slot back (their
    status becomes `to`); the number released.

    Reads of the (status, `past`) index find them (usually none), at most `batch` at a time: a bounded read keeps
    the planner on that index (without the limit PostgreSQL, which cannot know that such assignments are rare,
    plans a parallel scan costing milliseconds on a large table). Each of their HITs then has them released and
    its slot counter stored, assignments before the HIT row, in HIT id order."""
    due = {"status": AssignmentStatus.ACCEPTED, f"{past}__lt": now}
    found_by = Assignment.objects.filter(**due).order_by()
    if campaign is not None:
        # Each due assignment's HIT is looked up by primary key (a scalar subquery, which PostgreSQL never turns
        # into a join). Joined, the campaign's HITs can be planned as a merge join that walks the HIT table's
        # primary key from its first row until it passes the due assignments' HITs: every HIT of the campaigns
        # created before this one read at each arrival (100k rows with a 1M-HIT campaign behind 100k others).
        campaign_of_hit = Subquery(HIT.objects.filter(pk=OuterRef("hit_id")).values("campaign_id")[:1])
        found_by = found_by.alias(hit_campaign=campaign_of_hit).filter(hit_campaign=campaign.pk)
    released = 0
    while True:
        found = list(found_by.values_list("hit_id", flat=True)[:batch])
        with transaction.atomic():
            for hit_id in sorted(set(found)):
                freed = Assignment.objects.filter(hit_id=hit_id, **due).update(status=to)
                if freed:
                    store_taken_slots([hit_id])
                    released += freed
        if len(found) < batch:
            return released
