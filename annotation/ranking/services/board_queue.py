"""Keeping the stored leaderboards current (services.leaderboards computes them): whatever writes judgements (a
judged HIT approved, a judgement import, the Flickr8k import) calls `judgements_changed`, which raises the
version of every pool holding those images in the same transaction and queues the refresh job once it commits; a
new submission queues it too (`submission_added`: its own figures are computed, the others stay).

A pool has at most one job waiting (`board_queued_at`, cleared when the job starts), so a burst of judgements
costs one recomputation, plus one for what arrived while it ran. If the job cannot be queued (no broker), its
message is lost or its worker died, the next read of the stale board queues it again (`requeue_if_stranded`,
after REQUEUE_AFTER when one is still marked as waiting). Failures of a job run in-process (no broker) are logged,
never raised at the request that wrote the judgements."""
from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from mturk.jobs import send_after_commit

from ..models import PoolImage, RankingSubmission, TestPool

REFRESH_LEADERBOARD = "annotation.ranking.tasks.refresh_leaderboard"
REQUEUE_AFTER = timedelta(minutes=2)
CHUNK = 5000  # image ids per query when finding the pools of new judgements


def queue_refresh(pool_ids: Iterable[int]) -> None:
    """Queue the refresh job of these pools once the current transaction commits, unless one is queued and not
    started yet (it will see these changes: a pool has at most one job waiting, however fast judgements arrive).
    Robust: a broker that is down leaves the board stale, and its next read queues the job again."""
    waiting = TestPool.objects.filter(pk__in=set(pool_ids), board_queued_at__isnull=True)
    ids = sorted(waiting.values_list("pk", flat=True))
    if ids:
        TestPool.objects.filter(pk__in=ids).update(board_queued_at=timezone.now())
        _queue(ids)


def _queue(ids: list[int]) -> None:
    for pool_id in ids:
        send_after_commit(REFRESH_LEADERBOARD, pool_id)


def judgements_changed(image_ids: Iterable[int]) -> list[int]:
    """Judgements of pairs with these images were written (or removed): the pools holding them are stale; their
    refresh is queued after commit. Returns the pools' ids."""
    images = sorted(set(image_ids))
    pools: set[int] = set()
    for start in range(0, len(images), CHUNK):
        pools.update(PoolImage.objects.filter(image_id__in=images[start:start + CHUNK])
                     .values_list("pool_id", flat=True).distinct())
    if pools:
        TestPool.objects.filter(pk__in=pools).update(judgements_version=F("judgements_version") + 1)
        queue_refresh(pools)
    return sorted(pools)


def submission_added(submission: RankingSubmission) -> None:
    """A new submission: its figures are computed by the job (the others stay as they are)."""
    queue_refresh([submission.pool_id])


def requeue_if_stranded(pool: TestPool, stale: bool) -> bool:
    """Called by the pages that read a board: a stale board whose job is not waiting (or has waited more than
    REQUEUE_AFTER: its message was lost, or the broker was down) gets one; one reader queues it, whatever the
    number reading at once. Returns whether it was queued."""
    if not stale:
        return False
    now = timezone.now()
    with transaction.atomic():
        claimed = TestPool.objects.filter(pk=pool.pk).filter(
            Q(board_queued_at__isnull=True) | Q(board_queued_at__lt=now - REQUEUE_AFTER)).update(board_queued_at=now)
        if claimed:
            _queue([pool.pk])
    return bool(claimed)
