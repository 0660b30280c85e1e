"""Ranked submissions: checking (every problem named, nothing stored), evaluation, pooled pairs queued."""
from __future__ import annotations

import io
import json

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import Description
from annotation.ranking.models import CaptionJudgement, QueuedPair, RankingSubmission
from annotation.ranking.services.pooled_judging import judging_campaign
from annotation.ranking.services.submissions import SubmissionError, submit_ranking
from mturk.models import HIT, Campaign
from mturk.services.campaigns import add_hits
from tests.annotation.ranking.pool import SCORES, build_pool, npy
from tests.factories import make_image

pytestmark = pytest.mark.django_db


def rankings(pool, images, captions) -> dict:
    """SCORES as JSON rankings: per image its captions, per caption its images, best first."""
    return {"description": {str(images[r].pk): [captions[c].pk for c in np.argsort(-SCORES[r], kind="stable")]
                            for r in range(3)},
            "search": {str(captions[c].pk): [images[r].pk for r in np.argsort(-SCORES[:, c], kind="stable")]
                       for c in range(6)}}


def assert_hand_metrics(metrics: dict) -> None:
    # See tests/annotation/ranking/pool.py: description ranks [1, 5, 1], search ranks [1, 3, 3, 2, 1, 1].
    assert metrics["description"]["R@1"] == pytest.approx(2 / 3)
    assert metrics["description"]["R@5"] == 1.0
    assert metrics["description"]["median_rank"] == 1.0
    assert metrics["search"]["R@1"] == pytest.approx(0.5)
    assert metrics["search"]["R@5"] == 1.0
    assert metrics["search"]["median_rank"] == 1.5


def test_score_matrix_is_evaluated_and_its_top_pairs_kept():
    pool, images, captions = build_pool()
    submission = submit_ranking(pool, "sys", npy(SCORES), "scores.npy", k=2)
    assert_hand_metrics(submission.metrics)
    # Per image its two best captions: A: a1, b1; B: a2, a1; C: c1, c2.
    assert submission.top_pairs["description"] == [[0, 0], [0, 2], [1, 1], [1, 0], [2, 4], [2, 5]]
    assert submission.file.read() == npy(SCORES)


def test_csv_npz_and_json_rankings_agree():
    pool, images, captions = build_pool()
    csv_text = "\n".join(",".join(f"{v:g}" for v in row) for row in SCORES).encode()
    buffer = io.BytesIO()
    np.savez(buffer, scores=SCORES)
    for system, content, name in [("csv", csv_text, "s.csv"), ("npz", buffer.getvalue(), "s.npz"),
                                  ("json", json.dumps(rankings(pool, images, captions)).encode(), "s.json")]:
        assert_hand_metrics(submit_ranking(pool, system, content, name).metrics)


def errors_of(pool, content: bytes, name: str) -> list[str]:
    with pytest.raises(SubmissionError) as caught:
        submit_ranking(pool, "bad", content, name)
    assert not RankingSubmission.objects.exists() and not Campaign.objects.exists()
    return caught.value.errors


def test_json_problems_are_each_named():
    pool, images, captions = build_pool()
    doc = rankings(pool, images, captions)
    a = str(images[0].pk)
    doc["description"][a] = [captions[0].pk, 999999, captions[0].pk]
    del doc["description"][str(images[2].pk)]
    doc["search"]["888888"] = []
    errors = errors_of(pool, json.dumps(doc).encode(), "r.json")
    assert errors == [f'description["{a}"][1]: unknown caption id 999999 (not in the pool)',
                      f'description["{a}"][2]: caption id {captions[0].pk} listed twice',
                      f'"description": 1 image(s) of the pool not ranked: {images[2].pk}',
                      'search["888888"]: unknown caption id \'888888\' (not in the pool)']


def test_matrix_problems_are_each_named():
    pool, _, _ = build_pool()
    assert errors_of(pool, npy(SCORES[:2]), "s.npy") == [
        "s.npy: the array has shape (2, 6), expected (3, 6) (images, captions)"]
    bad = SCORES.copy()
    bad[1, 4] = np.nan
    assert errors_of(pool, npy(bad), "s.npy") == ["row 1, column 4: nan (not a finite number)"]
    csv_text = b"1,2,3,4,5,6\n1,2,x,4,5,6\n1,2,3\n"
    assert errors_of(pool, csv_text, "s.csv") == ["line 2, column 3: not a number: 'x'",
                                                  "line 3: 3 values, expected 6 (one per caption)",
                                                  "2 lines, expected 3 (one per image)"]
    buffer = io.BytesIO()
    np.savez(buffer, a=SCORES, b=SCORES)
    assert errors_of(pool, buffer.getvalue(), "s.npz") == ["s.npz: the .npz holds 2 arrays (a, b); send exactly one"]


def test_top_pairs_are_pooled_once_and_judged_pairs_are_not_queued_again():
    pool, images, captions = build_pool()
    a, b, c = images
    a1, a2, b1, b2, c1, c2 = captions
    submit_ranking(pool, "first", npy(SCORES), "s.npy", k=2)
    campaign = judging_campaign(pool)
    assert campaign is not None and campaign.task_kind == "judge_caption" and campaign.assignments_per_hit == 3
    # Top 2, originals left out. Description: (A, b1), (B, a2), (B, a1). Search: a1 -> B; a2 -> B, C; b1 -> A, C;
    # b2 -> C; c1 -> B; c2 -> A.
    expected = {(a, b1), (b, a2), (b, a1), (c, a2), (c, b1), (c, b2), (b, c1), (a, c2)}
    hits = list(HIT.objects.filter(campaign=campaign))
    assert len(hits) == 1
    assert {(p["image"], p["description"]) for p in hits[0].items["pairs"]} == {
        (i.pk, d.pk) for i, d in expected}
    # A second system with the same matrix: nothing new. A third one whose only new pair is already judged.
    assert submit_ranking(pool, "second", npy(SCORES), "s.npy", k=2).system == "second"
    assert HIT.objects.filter(campaign=campaign).count() == 1
    CaptionJudgement.objects.create(image=a, description=b2, source="imported", relevant=False)
    third = SCORES.copy()
    third[0, 3] = 100  # A's best caption is now b2, judged already
    submit_ranking(pool, "third", npy(third), "s.npy", k=1)
    assert HIT.objects.filter(campaign=campaign).count() == 1


def test_queueing_reads_no_queued_hit_and_its_queries_do_not_grow_with_the_queue():
    pool, images, captions = build_pool()
    a = images[0]
    submit_ranking(pool, "first", npy(SCORES), "s.npy", k=2)
    campaign = judging_campaign(pool)
    second, third = SCORES.copy(), SCORES.copy()
    second[0, 3] = 100  # A's best caption is b2: the one new pair (A, b2)
    third[1, 5] = 100  # B's best caption is c2: the one new pair (B, c2)

    def queue(system: str, matrix: np.ndarray) -> list[str]:
        with CaptureQueriesContext(connection) as ctx:
            submit_ranking(pool, system, npy(matrix), "s.npy", k=1)
        return [q["sql"] for q in ctx.captured_queries]

    small = queue("second", second)
    other = make_image("other.png")
    extra = [Description.objects.create(image=other, text=f"other caption {n}", source="imported") for n in range(300)]
    add_hits(campaign, [{"pairs": [{"image": a.pk, "description": d.pk}]} for d in extra])
    assert HIT.objects.filter(campaign=campaign).count() == 302
    large = queue("third", third)
    assert len(large) == len(small)
    assert not [sql for sql in small + large if '"mturk_hit"."items"' in sql]
    assert set(QueuedPair.objects.filter(campaign=campaign).values_list("image_id", "description_id")) >= {
        (a.pk, captions[3].pk), (images[1].pk, captions[5].pk)}
    assert [h.items["pairs"] for h in HIT.objects.filter(campaign=campaign).order_by("position")][-1] == [
        {"image": images[1].pk, "description": captions[5].pk}]


def test_command_names_the_file_and_problems(tmp_path, capsys):
    pool, _, _ = build_pool()
    path = tmp_path / "s.npy"
    path.write_bytes(npy(SCORES))
    call_command("evaluate_ranking", str(path), "--pool", pool.name, "--system", "cli")
    assert "description: R@1 0.667" in capsys.readouterr().out
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"1,2\n")
    with pytest.raises(CommandError, match=r"bad\.csv:\nline 1: 2 values, expected 6"):
        call_command("evaluate_ranking", str(bad), "--pool", pool.name, "--system", "other")
    assert RankingSubmission.objects.count() == 1


def repeated_key_json(images, captions, key: str, other: str) -> bytes:
    """Rankings whose "description" names image `key` and then `other` for the same image (text, as json.dumps
    cannot write a repeated key), each image ranked in full."""
    ranked = json.dumps([c.pk for c in captions])
    reversed_ranking = json.dumps([c.pk for c in reversed(captions)])
    rows = [f'"{key}": {ranked}'] + [f'"{image.pk}": {ranked}' for image in images[1:]] + [
        f'"{other}": {reversed_ranking}']
    return ('{"description": {' + ", ".join(rows) + "}}").encode()


def test_a_key_given_twice_is_refused_naming_it():
    pool, images, captions = build_pool()
    a = str(images[0].pk)
    assert errors_of(pool, repeated_key_json(images, captions, a, a), "r.json") == [
        f'not JSON: $.description: the key "{a}" is given twice']


def test_the_same_id_written_two_ways_is_refused_naming_both():
    pool, images, captions = build_pool()
    a = str(images[0].pk)
    assert errors_of(pool, repeated_key_json(images, captions, a, "0" + a), "r.json") == [
        f'description["0{a}"]: image id {a} is ranked twice (also as "{a}")']
    doc = rankings(pool, images, captions)
    doc["captions"] = {a: "a red square", f" {a}": "a blue square"}
    assert errors_of(pool, json.dumps(doc).encode(), "r.json") == [
        f'captions[" {a}"]: image id {a} is given twice (also as "{a}")']


def test_an_id_with_a_leading_zero_alone_is_the_image():
    pool, images, captions = build_pool()
    doc = rankings(pool, images, captions)
    a = str(images[0].pk)
    doc["description"]["0" + a] = doc["description"].pop(a)
    assert_hand_metrics(submit_ranking(pool, "zero", json.dumps(doc).encode(), "r.json").metrics)


def test_the_command_refuses_a_key_given_twice(tmp_path):
    pool, images, captions = build_pool()
    a = str(images[0].pk)
    path = tmp_path / "r.json"
    path.write_bytes(repeated_key_json(images, captions, a, a))
    with pytest.raises(CommandError, match=rf'r\.json:\nnot JSON: \$\.description: the key "{a}" is given twice'):
        call_command("evaluate_ranking", str(path), "--pool", pool.name, "--system", "cli")
    assert not RankingSubmission.objects.exists()
