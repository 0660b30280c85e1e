"""Stored leaderboards. Each submission's figures and the pool's own are computed once, by a background job, and
stored (RankingSubmission.board, TestPool.board); the leaderboard page and API read them. They stay up to date as
judgements arrive (services.board_queue marks the boards stale and queues this job). The job recomputes what is
older than the version it read, so a judgement landing while it runs leaves the board stale for the next job,
never marked fresh by mistake. A new submission is computed on its own; the others keep their figures (the
judgements did not change). While the board is stale the page shows the stored figures as updating."""
from __future__ import annotations

import logging

from django.db.models import Q
from django.utils import timezone

from ..models import RankingSubmission, TestPool
from ..selectors import Judged, pool_figures, system_figures
from .submissions import submission_scores

log = logging.getLogger(__name__)


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
