"""The stored leaderboard: figures computed once by the background job, equal to a recomputation, kept up to date
as judgements arrive (stale, then refreshed), never marked fresh by a job that ran before the last judgement, and
queued again by its reader when its job was lost."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.ranking.models import CaptionJudgement, TestPool
from annotation.ranking.selectors import computed_leaderboard, leaderboard
from annotation.ranking.services import leaderboards
from annotation.ranking.services.board_queue import judgements_changed
from annotation.ranking.services.judgement_import import import_judgements
from annotation.ranking.services.leaderboards import refresh_leaderboard
from annotation.ranking.services.submissions import submit_ranking
from tests.annotation.ranking.pool import SCORES, build_pool, npy

pytestmark = pytest.mark.django_db


def stored(pool) -> dict:
    board = leaderboard(pool)
    for key in ("stale", "pending", "updated_at"):
        board.pop(key)
    return board


def pool_with_its_job(capture):
    """A pool whose creation job ran (as it does once the creation commits)."""
    with capture(execute=True):
        return build_pool()


def judgements_file(rows: list[tuple[int, int, str]]) -> bytes:
    return ("image,caption,relevant\n" + "".join(f"{i},{c},{r}\n" for i, c, r in rows)).encode()


def test_stored_figures_equal_the_recomputed_ones():
    pool, images, captions = build_pool()
    a, b, c = images
    a1, a2, b1, b2, c1, c2 = captions
    submit_ranking(pool, "matrix", npy(SCORES), "s.npy")
    csv = "\n".join(",".join(str(v) for v in row) for row in SCORES[::-1].tolist()).encode()
    submit_ranking(pool, "reversed", csv, "s.csv")
    ranked = {"description": {str(i.pk): [d.pk for d in captions] for i in images},
              "captions": {str(i.pk): captions[2 * n].text for n, i in enumerate(images)}}
    submit_ranking(pool, "writer", json.dumps(ranked).encode(), "r.json")
    before = stored(pool)
    assert before == computed_leaderboard(pool)
    assert [s["system"] for s in before["systems"]] == ["matrix", "reversed", "writer"]

    import_judgements(judgements_file([(b.pk, a2.pk, "yes"), (b.pk, a2.pk, "yes"), (a.pk, b1.pk, "no"),
                                       (c.pk, b2.pk, "yes"), (c.pk, b2.pk, "no"), (c.pk, b2.pk, "yes")]))
    import_judgements(f"image,caption,grade\n{b.pk},{a2.pk},4\n{a.pk},{b1.pk},1\n".encode())
    after = stored(pool)
    assert after == computed_leaderboard(pool)
    # the judgements changed the figures: (B, a2) relevant raises the matrix system's description R-precision
    matrix_before, matrix_after = before["systems"][0]["directions"], after["systems"][0]["directions"]
    assert matrix_before["description"]["r_precision"] != matrix_after["description"]["r_precision"]
    assert (before["judged_pairs"], after["judged_pairs"]) == (0, 3)
    assert after["kappa"]["pairs"] == 2


def test_a_judgement_makes_the_board_stale_until_its_job_has_run(real_on_commit, django_capture_on_commit_callbacks,
                                                                 researcher_client):
    pool, images, captions = pool_with_its_job(django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        submit_ranking(pool, "sys", npy(SCORES), "s.npy")
    fresh = leaderboard(pool)
    assert not fresh["stale"] and fresh["judged_pairs"] == 0
    with django_capture_on_commit_callbacks(execute=False) as queued:
        import_judgements(judgements_file([(images[1].pk, captions[1].pk, "yes")]))
    assert len(queued) == 1  # one refresh for the one pool holding image B
    board = leaderboard(pool)
    assert board["stale"] and board["judged_pairs"] == 0  # the stored figures, shown as updating
    page = researcher_client.get(f"/pools/{pool.pk}/leaderboard/").content.decode()
    assert "Updating:" in page
    queued[0]()  # the job
    board = leaderboard(pool)
    assert not board["stale"] and board["judged_pairs"] == 1
    assert "Updating:" not in researcher_client.get(f"/pools/{pool.pk}/leaderboard/").content.decode()


def test_a_new_system_is_pending_then_computed_alone(real_on_commit, django_capture_on_commit_callbacks,
                                                     researcher_client):
    pool, _, _ = pool_with_its_job(django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        submit_ranking(pool, "first", npy(SCORES), "s.npy")
    first_board = TestPool.objects.get(pk=pool.pk).submissions.get(system="first").board
    with django_capture_on_commit_callbacks(execute=False) as queued:
        submit_ranking(pool, "second", npy(SCORES + 1), "s.npy")
    board = leaderboard(pool)
    assert board["stale"] and board["pending"] == ["second"]
    assert "second</th><td colspan=\"10\">updating" in researcher_client.get(
        f"/pools/{pool.pk}/leaderboard/").content.decode()
    for job in queued:
        job()
    assert refresh_leaderboard(pool) == 0  # current: a repeated job computes nothing
    board = leaderboard(pool)
    assert not board["stale"] and board["pending"] == []
    assert pool.submissions.get(system="first").board == first_board


def test_a_burst_of_judgements_waits_for_one_job(real_on_commit, django_capture_on_commit_callbacks):
    pool, images, captions = pool_with_its_job(django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        submit_ranking(pool, "sys", npy(SCORES), "s.npy")
    with django_capture_on_commit_callbacks(execute=False) as queued:
        for n in range(5):
            import_judgements(judgements_file([(images[1].pk, captions[n].pk, "yes")]))
    assert len(queued) == 1  # one job waiting sees all five
    queued[0]()
    board = leaderboard(pool)
    assert not board["stale"] and board["judged_pairs"] == 5  # B with a1, a2, b1, b2, c1: one "yes" each
    with django_capture_on_commit_callbacks(execute=False) as again:
        import_judgements(judgements_file([(images[0].pk, captions[5].pk, "no")]))
    assert len(again) == 1  # the job has started: a new change queues the next one


def test_a_judgement_written_while_the_job_runs_leaves_the_board_stale(real_on_commit, monkeypatch,
                                                                       django_capture_on_commit_callbacks):
    pool, images, captions = pool_with_its_job(django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        submit_ranking(pool, "sys", npy(SCORES), "s.npy")
    original = leaderboards.Judged.of

    def judgement_lands_meanwhile(of_pool):
        judged = original(of_pool)  # the votes are read; then a judgement is written
        CaptionJudgement.objects.create(image=images[1], description=captions[1], source="imported", relevant=True)
        judgements_changed([images[1].pk])
        return judged

    monkeypatch.setattr(leaderboards.Judged, "of", judgement_lands_meanwhile)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        judgements_changed([images[0].pk])
        refresh_leaderboard(pool)
    board = leaderboard(pool)
    assert board["stale"] and board["judged_pairs"] == 0
    monkeypatch.setattr(leaderboards.Judged, "of", original)
    queued[-1]()
    assert not leaderboard(pool)["stale"]
    assert stored(pool) == computed_leaderboard(pool) and stored(pool)["judged_pairs"] == 1


def test_a_board_whose_job_was_lost_is_queued_again_by_its_reader(real_on_commit, api,
                                                                   django_capture_on_commit_callbacks):
    pool, images, captions = pool_with_its_job(django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        submit_ranking(pool, "sys", npy(SCORES), "s.npy")
    with django_capture_on_commit_callbacks(execute=False):  # the broker was down: the message never left
        import_judgements(judgements_file([(images[1].pk, captions[1].pk, "yes")]))
    url = f"/api/test-pools/{pool.pk}/leaderboard/"
    with django_capture_on_commit_callbacks(execute=False) as queued:
        assert api.get(url).json()["stale"] is True
    assert queued == []  # queued a moment ago: not again yet
    TestPool.objects.filter(pk=pool.pk).update(board_queued_at=timezone.now() - timedelta(minutes=10))
    with django_capture_on_commit_callbacks(execute=True) as queued:
        assert api.get(url).json()["stale"] is True  # this answer; the job runs after it
    assert len(queued) == 1
    body = api.get(url).json()
    assert body["stale"] is False and body["judged_pairs"] == 1


def test_a_worker_knows_the_task_from_app_start():
    """The worker registers tasks when the apps are ready, not when a web process first queues one (a fresh
    process: this one imported the task module already)."""
    import subprocess
    import sys

    code = ("import django; django.setup(); from config.celery import app; "
            "print('annotation.ranking.tasks.refresh_leaderboard' in app.tasks)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "True"
