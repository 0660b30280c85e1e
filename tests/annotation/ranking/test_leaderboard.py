"""The leaderboard (computed from majority judgements by the background job, stored, read in a constant number
of queries) and imported judgements. Expected numbers are worked out by hand from tests/annotation/ranking/pool.py."""
from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.ranking.models import CaptionJudgement
from annotation.ranking.selectors import leaderboard
from annotation.ranking.services.board_queue import judgements_changed
from annotation.ranking.services.judgement_import import JudgementImportError, import_judgements
from annotation.ranking.services.submissions import submit_ranking
from tests.annotation.ranking.pool import SCORES, build_pool, npy

pytestmark = pytest.mark.django_db


def votes(image, description, *answers: bool) -> None:
    for answer in answers:
        CaptionJudgement.objects.create(image=image, description=description, source="imported", relevant=answer)
    judgements_changed([image.pk])  # as every service that writes judgements does


def grade(image, description, value: int) -> None:
    CaptionJudgement.objects.create(image=image, description=description, source="imported", grade=value)
    judgements_changed([image.pk])


def test_judged_metrics_follow_the_majority():
    pool, images, captions = build_pool()
    a, b, c = images
    a1, a2, b1, b2, c1, c2 = captions
    submit_ranking(pool, "sys", npy(SCORES), "s.npy")
    votes(b, a2, True, True, False)  # relevant
    votes(a, b1, True, False, False)  # not relevant
    votes(b, c1, True, False)  # a tie: unjudged
    grade(b, a2, 3)
    grade(a, b1, 1)
    board = leaderboard(pool)
    description = board["systems"][0]["directions"]["description"]
    search = board["systems"][0]["directions"]["search"]
    # Relevant: the originals and (B, a2). Description R-precision: A (R=2, top a1 b1) 1/2; B (R=3: a2 a1 c1)
    # 1/3; C (R=2: c1 c2) 1 -> (1/2 + 1/3 + 1) / 3 = 11/18. Success@1: a1, a2 (judged relevant), c1 -> 1.
    assert description["r_precision"] == pytest.approx(11 / 18)
    assert description["success@1"] == 1.0
    # Search R-precision: a1 (R=1, top A) 1; a2 (R=2: B C) 1/2; b1 (A) 0; b2 (C) 0; c1 1; c2 1 -> 3.5 / 6.
    # Success@1: a1, a2 (B), c1, c2 -> 4/6.
    assert search["r_precision"] == pytest.approx(3.5 / 6)
    assert search["success@1"] == pytest.approx(4 / 6)
    assert description["R@1"] == pytest.approx(2 / 3)
    # k = 10 covers every pair; the decided ones: (B, a2) and (A, b1).
    assert description["judged_pairs"] == search["judged_pairs"] == 2
    assert board["judged_pairs"] == 2
    # Pairs with two or more votes: three; unanimous: none. Krippendorff's alpha (nominal) from the coincidences:
    # (2 yes 1 no) o_yy 1, o_yn = o_ny 1; (1 yes 2 no) o_nn 1, o_yn = o_ny 1; (1 yes 1 no) o_yn = o_ny 1.
    # n 8, n_y = n_n = 4: D_o = 6/8, D_e = 2*4*4/(8*7) = 4/7 -> alpha = 1 - (3/4)/(4/7) = -5/16.
    assert board["agreement"] == {"pairs": 3, "unanimous": 0, "unanimous_share": 0.0,
                                  "alpha": pytest.approx(-5 / 16)}
    # Majority vs grades (4 describes): (B, a2) yes / 3, (A, b1) no / 1. t=4: [y n] vs [n n]: p_o 1/2, p_e 1/2
    # -> 0; t=3 and t=2: [y n] vs [y n] -> 1.
    assert board["kappa"] == {"pairs": 2, "thresholds": {"4": 0.0, "3": 1.0, "2": 1.0}}


def test_kappa_takes_the_better_middle_grade_of_a_pair_graded_an_even_number_of_times():
    pool, images, captions = build_pool()
    a, b, c = images
    a1, a2, b1, b2, c1, _ = captions
    for image, caption, answer, grades in ((a, a1, True, (4, 3)), (b, b1, True, (4, 4)),
                                           (c, c1, False, (1, 1)), (a, b2, False, (2, 2))):
        votes(image, caption, answer)
        for value in grades:
            grade(image, caption, value)
    # The expert grades are 4, 4, 1, 2 (the better middle grade of {4, 3} is 4): at t=4 and t=3 the experts say
    # yes, yes, no, no as the crowd does -> 1; at t=2, yes, yes, no, yes -> p_o 3/4, p_e 1/2 * 3/4 + 1/2 * 1/4
    # = 1/2 -> 1/2. (The worse middle grade, 3, would give 0.5 at t=4.)
    assert leaderboard(pool)["kappa"] == {"pairs": 4, "thresholds": {"4": 1.0, "3": 1.0, "2": 0.5}}
    # Four grades {4, 4, 2, 1}: the middle ones are 2 and 4, the better is 4 (the worse, 2, would be "no" at t=4).
    # t=2: crowd y y n n y, experts y y n y y -> p_o 4/5, p_e 3/5 * 4/5 + 2/5 * 1/5 = 14/25 -> (6/25) / (11/25).
    votes(b, a2, True)
    for value in (4, 2, 1, 4):
        grade(b, a2, value)
    assert leaderboard(pool)["kappa"] == {"pairs": 5, "thresholds": {"4": 1.0, "3": 1.0, "2": pytest.approx(6 / 11)}}


def test_an_undefined_kappa_is_none_in_the_data_null_in_the_api_and_a_dash_on_the_page(api, researcher_client):
    pool, images, captions = build_pool()
    a, b, _ = images
    a1, a2 = captions[0], captions[1]
    submit_ranking(pool, "sys", npy(SCORES), "s.npy")  # the page shows agreement once a system has submitted
    votes(a, a1, True, True)  # both relevant by the crowd, both graded 2 (somewhat related)
    votes(b, a2, True, True)
    grade(a, a1, 2)
    grade(b, a2, 2)
    # t=4, 3: crowd yes to both, grades no to both -> p_o 0, p_e 0 -> 0; t=2: both yes to both -> 0/0.
    assert leaderboard(pool)["kappa"] == {"pairs": 2, "thresholds": {"4": 0.0, "3": 0.0, "2": None}}
    body = api.get(f"/api/test-pools/{pool.pk}/leaderboard/").json()
    assert body["kappa"] == {"pairs": 2, "thresholds": {"4": 0.0, "3": 0.0, "2": None}}
    page = researcher_client.get(f"/pools/{pool.pk}/leaderboard/").content.decode()
    assert "t=4: 0.000, t=3: 0.000, t=2: – (undefined: both give every pair the same label)." in page


def test_leaderboard_queries_do_not_grow_with_systems():
    pool, _, _ = build_pool()
    submit_ranking(pool, "one", npy(SCORES), "s.npy")
    with CaptureQueriesContext(connection) as one:
        leaderboard(pool)
    for n in range(3):
        submit_ranking(pool, f"more-{n}", npy(SCORES + n), "s.npy")
    with CaptureQueriesContext(connection) as four:
        board = leaderboard(pool)
    assert len(board["systems"]) == 4
    assert len(four.captured_queries) == len(one.captured_queries) == 2  # the pool's figures, the systems'
    assert not board["stale"] and board["pending"] == []


def test_import_judgements_all_or_nothing(tmp_path):
    _, images, captions = build_pool()
    a, b = images[0].pk, images[1].pk
    good = f"image\tcaption\tgrade\tjudge\n{a}\t{captions[2].pk}\t3\texpert-1\n{b}\t{captions[0].pk}\t1\t\n"
    assert import_judgements(good.encode()) == 2
    assert list(CaptionJudgement.objects.values_list("grade", "judge")) == [(3, "expert-1"), (1, "")]
    bad = f"image,caption,relevant\n{a},{captions[2].pk},yes\n{a},999999,no\n{a},{captions[1].pk},maybe\n"
    with pytest.raises(JudgementImportError) as caught:
        import_judgements(bad.encode())
    assert caught.value.errors == ["line 3: unknown caption id 999999",
                                   "line 4: relevant must be 1/0, yes/no or true/false, got 'maybe'"]
    path = tmp_path / "j.csv"
    path.write_text(bad)
    with pytest.raises(CommandError) as refused:
        call_command("import_judgements", str(path))
    assert str(refused.value).splitlines() == [f"{path}:", "line 3: unknown caption id 999999",
                                               "line 4: relevant must be 1/0, yes/no or true/false, got 'maybe'"]
    assert CaptionJudgement.objects.count() == 2
    path.write_text("a,b,c\n")
    with pytest.raises(CommandError, match="line 1: the header"):
        call_command("import_judgements", str(path))


def test_generated_captions_are_scored_against_the_pool_captions():
    pool, images, captions = build_pool()
    ranked = {str(image.pk): [c.pk for c in captions] for image in images}
    # Copies of one reference per image: every n-gram matches, the length is that reference's: BLEU-4 = 1.
    copies = {str(image.pk): captions[2 * n].text.upper() for n, image in enumerate(images)}
    # No word shared with any reference: BLEU-4 ~ 0 and CIDEr = 0.
    unrelated = {str(image.pk): "zebras graze beside tall trees" for image in images}
    for system, generated in [("copies", copies), ("unrelated", unrelated)]:
        doc = {"description": ranked, "captions": generated}
        submit_ranking(pool, system, json.dumps(doc).encode(), "r.json")
    board = {s["system"]: s["generated"] for s in leaderboard(pool)["systems"]}
    assert board["copies"]["images"] == 3
    assert board["copies"]["bleu4"] == pytest.approx(1.0)
    assert board["copies"]["rouge_l"] == pytest.approx(1.0)  # the longest common subsequence is the whole reference
    assert board["copies"]["cider"] > 0
    assert board["unrelated"]["bleu4"] == pytest.approx(0.0, abs=1e-6)
    assert board["unrelated"]["cider"] == 0.0
    assert board["unrelated"]["rouge_l"] == 0.0
