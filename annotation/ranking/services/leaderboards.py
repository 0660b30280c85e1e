"""Stored leaderboards. Each submission's figures and the pool's own are computed once, by a background job, and
stored (RankingSubmission.board, TestPool.board); the leaderboard page and API read them. They stay up to date as
judgements arrive: whatever writes judgements (a judged HIT approved, a judgement import, the Flickr8k import)
calls `judgements_changed`, which raises the version of every pool holding those images in the same transaction
and queues the job once it commits. The job recomputes what is older than the version it read, so a judgement
landing while it runs leaves the board stale for the next job, never marked fresh by mistake. A new submission
is computed on its own; the others keep their figures (the judgements did not change).

A pool has at most one job waiting (`board_queued_at`, cleared when the job starts), so a burst of judgements
costs one recomputation, plus one for what arrived while it ran. While the board is stale the page shows the
stored figures as updating. If the job cannot be queued (no broker), its message is lost or its worker died, the
next read of the stale board queues it again (after REQUEUE_AFTER when one is still marked as waiting)."""
from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta
from functools import partial

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from ..models import PoolImage, RankingSubmission, TestPool
from ..selectors import Judged, pool_figures, system_figures
from .submissions import submission_scores

log = logging.getLogger(__name__)

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
    from ..tasks import refresh_leaderboard

    for pool_id in ids:
        transaction.on_commit(partial(refresh_leaderboard.delay, pool_id), robust=True)


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


def refresh_leaderboard(pool: TestPool) -> int:
    """Compute and store what is older than the pool's current judgements: each such submission's figures and the
    pool's own. Returns how many submissions were computed (0: the board was current)."""
    TestPool.objects.filter(pk=pool.pk).update(board_queued_at=None)  # started: later changes queue another job
    version = TestPool.objects.filter(pk=pool.pk).values_list("judgements_version", flat=True).first()
    if version is None:
        return 0
    pool.judgements_version = version
    submissions = list(RankingSubmission.objects.filter(pool=pool).filter(
        Q(board_version__lt=version) | Q(board={})).order_by("system"))
    current = TestPool.objects.filter(pk=pool.pk, board_version__gte=version).exclude(board={}).exists()
    if current and not submissions:
        return 0
    judged = Judged.of(pool)  # votes read after the version: a judgement written since raised it again
    for submission in submissions:
        figures = system_figures(submission, submission_scores(submission, judged.index), judged)
        RankingSubmission.objects.filter(pk=submission.pk).filter(
            Q(board_version__lt=version) | Q(board={})).update(board=figures, board_version=version)
    TestPool.objects.filter(pk=pool.pk).filter(Q(board_version__lt=version) | Q(board={})).update(
        board=pool_figures(judged), board_version=version, board_updated_at=timezone.now())
    if submissions:  # a submission's figures are new even when the pool's were current
        TestPool.objects.filter(pk=pool.pk).update(board_updated_at=timezone.now())
    return len(submissions)


def refresh_leaderboard_by_id(pool_id: int) -> None:
    pool = TestPool.objects.filter(pk=pool_id).first()
    if pool is None:
        log.warning("test pool %s no longer exists", pool_id)
        return
    refresh_leaderboard(pool)


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
