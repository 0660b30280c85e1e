"""End to end: captions collected by simulated describe_image workers, a pool frozen, two systems submitted, their
pooled top-1 pairs judged by three simulated judge_caption workers (submitted and approved through the
services), and the leaderboard's numbers checked against a hand computation (in the comments)."""
from __future__ import annotations

import numpy as np
import pytest

from annotation.ranking.models import CaptionJudgement
from annotation.ranking.selectors import leaderboard
from annotation.ranking.services.pooled_judging import judging_campaign
from annotation.ranking.services.pools import create_test_pool
from annotation.ranking.services.submissions import submit_ranking
from mturk.models import HIT
from mturk.services.campaigns import publish_campaign
from mturk.services.review import approve_submitted
from mturk.work.services.assignments import assign_next_hit, get_or_create_worker, submit_answer
from tests.annotation.ranking.pool import SCORES, npy
from tests.factories import make_campaign

pytestmark = pytest.mark.django_db

TEXTS = ["A woman in a red dress walks her brown dog along the beach.",
         "Two children build a large sandcastle near the blue water today."]
# Rows A B C, columns a1 a2 b1 b2 c1 c2 (as in pool.SCORES). System two's top 1: per image A -> b2,
# B -> b1, C -> a1; per caption a1 -> C, a2 -> A, b1 -> B, b2 -> A, c1 -> C, c2 -> C.
SYSTEM_TWO = np.array([[1, 2, 3, 9, 4, 5],
                       [0, 0, 9, 3, 4, 5],
                       [9, 1, 2, 2, 8, 7]], dtype=float)


def collect_captions():
    campaign = make_campaign(images=3, assignments=2)
    for w in range(2):
        worker = get_or_create_worker("local", f"DESCRIBER-{w}")
        for _ in range(3):
            assignment = assign_next_hit(campaign, worker)
            submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                          answer={"text": TEXTS[w]})
    approve_submitted(campaign)
    return campaign


def judge_all(campaign, truth: dict[tuple[int, int], list[bool]]) -> None:
    """Three workers judge every HIT; worker w answers truth[pair][w]."""
    publish_campaign(campaign)
    campaign.refresh_from_db()
    for w in range(3):
        worker = get_or_create_worker("local", f"JUDGE-{w}")
        for _ in range(campaign.hits.count()):
            assignment = assign_next_hit(campaign, worker)
            pairs = assignment.hit.items["pairs"]
            answer = {"judgements": [{"relevant": truth[(p["image"], p["description"])][w]} for p in pairs]}
            submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id, answer=answer)
    approve_submitted(campaign)


def test_pool_submissions_pooled_judging_and_leaderboard():
    describe = collect_captions()
    pool = create_test_pool("e2e", campaigns=[describe])
    images = list(pool.pool_images.values_list("image_id", flat=True))
    captions = list(pool.pool_captions.values_list("description_id", flat=True))
    assert len(images) == 3 and len(captions) == 6
    a, b, c = images
    a1, a2, b1, b2, c1, c2 = captions
    # System one's top 1 outside the originals: B -> a2 (both directions), b1 -> A, b2 -> C. System two adds
    # (A, b2) and (C, a1).
    submit_ranking(pool, "one", npy(SCORES), "one.npy", k=1)
    submit_ranking(pool, "two", npy(SYSTEM_TWO), "two.npy", k=1)
    campaign = judging_campaign(pool)
    assert campaign is not None
    queued = {(p["image"], p["description"]) for items in HIT.objects.filter(campaign=campaign)
              .values_list("items", flat=True) for p in items["pairs"]}
    assert queued == {(b, a2), (a, b1), (c, b2), (a, b2), (c, a1)}
    truth = {(b, a2): [True, True, True], (a, b1): [False, False, False], (c, b2): [True, True, False],
             (a, b2): [True, False, False], (c, a1): [False, False, False]}
    judge_all(campaign, truth)
    assert CaptionJudgement.objects.filter(source="crowd").count() == 15

    board = leaderboard(pool)
    one, two = ({d: s["directions"][d] for d in ("description", "search")} for s in board["systems"])
    # Relevant: the originals, (B, a2) and (C, b2).
    # One, description: ranks [1, 5, 1] -> R@1 2/3, median 1. R-precision: A (R=2: a1 b1) 1/2, B (R=3: a2 a1 c1)
    # 1/3, C (R=3: c1 c2 b2) 1 -> 11/18. Success@1: a1, a2, c1 -> 1.
    assert one["description"]["R@1"] == pytest.approx(2 / 3)
    assert one["description"]["r_precision"] == pytest.approx(11 / 18)
    assert one["description"]["success@1"] == 1.0
    # One, search: a1 (R=1: A) 1, a2 (R=2: B C) 1/2, b1 (A) 0, b2 (R=2: C B) 1, c1 1, c2 1 -> 4.5/6;
    # success@1: all but b1 -> 5/6.
    assert one["search"]["r_precision"] == pytest.approx(4.5 / 6)
    assert one["search"]["success@1"] == pytest.approx(5 / 6)
    # Two, description: A: b2 c2 c1 b1 a2 a1 -> 5; B: b1 -> 1; C: a1 c1 -> 2. R@1 1/3, median 2.
    # R-precision: A (a1 a2; top b2 c2) 0, B (top b1 c2 c1) 1/3, C (top a1 c1 c2) 2/3 -> 1/3. Success@1: B only.
    assert two["description"]["R@1"] == pytest.approx(1 / 3)
    assert two["description"]["median_rank"] == 2.0
    assert two["description"]["r_precision"] == pytest.approx(1 / 3)
    assert two["description"]["success@1"] == pytest.approx(1 / 3)
    # Two, search ranks [2, 1, 1, 2, 1, 1]: R@1 4/6. R-precision: a1 (C first) 0, a2 (A C) 1/2, b1 1,
    # b2 (A B) 1/2, c1 1, c2 1 -> 4/6. Success@1: a2, b1, c1, c2 -> 4/6.
    assert two["search"]["R@1"] == pytest.approx(4 / 6)
    assert two["search"]["r_precision"] == pytest.approx(4 / 6)
    assert two["search"]["success@1"] == pytest.approx(4 / 6)
    # Judged pairs among each system's top 1: one: description (B, a2); search (B, a2), (A, b1), (C, b2).
    # Two: description (A, b2), (C, a1); search the same two.
    assert [one["description"]["judged_pairs"], one["search"]["judged_pairs"]] == [1, 3]
    assert [two["description"]["judged_pairs"], two["search"]["judged_pairs"]] == [2, 2]
    assert board["judged_pairs"] == 5
    # Krippendorff's alpha (nominal): coincidences o_yy 3+1, o_nn 3+1+3, o_yn = o_ny 1+1; n 15, n_y 6, n_n 9:
    # D_o = 4/15, D_e = 2*6*9/(15*14) = 18/35 -> alpha = 1 - (4/15)/(18/35) = 13/27.
    assert board["agreement"] == {"pairs": 5, "unanimous": 3, "unanimous_share": 0.6, "alpha": pytest.approx(13 / 27)}
    # A later system reuses the judgements: its pairs are all judged or queued, nothing new.
    hits = HIT.objects.filter(campaign=campaign).count()
    submit_ranking(pool, "three", npy(SCORES), "three.npy", k=1)
    assert HIT.objects.filter(campaign=campaign).count() == hits
