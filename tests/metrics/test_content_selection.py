"""The content-selection metric: the design doc's worked example, edge cases, summaries and the upper bound."""
from __future__ import annotations

import math
import re

import pytest

from metrics import content_selection
from metrics.content_selection import (
    EDGE_CASES,
    NO_LINKED_GOLD,
    TOO_FEW_FOR_UPPER_BOUND,
    ImageScore,
    Scores,
    dataset_statistics,
    evaluate_selections,
    human_upper_bound,
    prefix_curves,
    score_image,
    summarize,
    upper_bound_scores,
)
from tests.metrics import make_image

WORKED_GOLDS = [frozenset(g) for g in ({2, 0, 5, 3}, {2, 3}, {2, 5, 3}, {2, 3}, {2, 3}, {2, 5, 3}, {2, 5, 0, 3})]


def test_worked_example_from_the_design_doc():
    p, r, f = score_image(WORKED_GOLDS, {2, 3})
    assert round(p, 4) == 1.0
    assert round(r, 4) == 0.7619
    assert round(f, 4) == 0.8649


def test_empty_selection_scores_zero_and_is_still_scored():
    assert score_image(WORKED_GOLDS, set()) == Scores(0.0, 0.0, 0.0)
    image = make_image("a", ["dog", "cat"], [[0, 1]])
    per_image, summary, skipped = evaluate_selections([image], {"a": frozenset()})
    assert per_image == [ImageScore("a", 0.0, 0.0, 0.0)]
    assert summary.images == 1 and skipped == []


def test_gold_description_without_a_box_is_ignored():
    with_empty = [*WORKED_GOLDS, frozenset()]
    assert score_image(with_empty, {2, 3}) == score_image(WORKED_GOLDS, {2, 3})
    assert score_image(with_empty, {0, 5}) == score_image(WORKED_GOLDS, {0, 5})
    image = make_image("a", ["dog", "cat"], [[0], [0, 1]])
    image_with_empty = make_image("a", ["dog", "cat"], [[0], [], [0, 1]])
    selections = {"a": frozenset({0})}
    assert evaluate_selections([image], selections)[0] == evaluate_selections([image_with_empty], selections)[0]


def test_image_without_a_linked_gold_description_is_skipped():
    image = make_image("none", ["dog"], [[], []])
    per_image, summary, skipped = evaluate_selections([image], {"none": frozenset({0})})
    assert per_image == [] and summary.images == 0
    assert [(s.key, s.reason) for s in skipped] == [("none", NO_LINKED_GOLD)]
    with pytest.raises(ValueError):
        score_image([frozenset()], {0})


def test_precision_plus_recall_zero_gives_f_zero():
    assert score_image([frozenset({1, 2})], {3}) == Scores(0.0, 0.0, 0.0)


def test_missing_image_in_selections_is_scored_as_empty():
    image = make_image("a", ["dog"], [[0]])
    per_image, _, _ = evaluate_selections([image], {})
    assert per_image == [ImageScore("a", 0.0, 0.0, 0.0)]


def test_duplicate_boxes_count_once():
    assert prefix_curves(WORKED_GOLDS, [2, 2, 3], 2) == [score_image(WORKED_GOLDS, {2}),
                                                          score_image(WORKED_GOLDS, {2, 3})]


def test_prefix_curves_match_separate_scorings():
    ranking = [5, 2, 7, 0, 3, 1]
    curves = prefix_curves(WORKED_GOLDS, ranking, 8)
    assert len(curves) == 8
    for k, scores in enumerate(curves, start=1):
        expected = score_image(WORKED_GOLDS, ranking[:k])
        assert scores == pytest.approx(expected)


def test_fewer_boxes_than_k_selects_them_all():
    golds = [frozenset({0, 1}), frozenset({1})]
    curves = prefix_curves(golds, [1, 0], 5)
    everything = score_image(golds, {0, 1})
    assert curves[1:] == [pytest.approx(everything)] * 4
    assert curves[0] == pytest.approx(score_image(golds, {1}))
    assert prefix_curves(golds, [], 3) == [Scores(0.0, 0.0, 0.0)] * 3


def test_two_image_means_and_population_std():
    # image a: P = 1, R = 1/2, F = 2/3; image b: P = R = F = 0.
    a = make_image("a", ["dog", "cat"], [[0, 1]])
    b = make_image("b", ["dog", "cat"], [[0]])
    per_image, summary, _ = evaluate_selections([a, b], {"a": frozenset({0}), "b": frozenset({1})})
    assert per_image[0] == ImageScore("a", 1.0, 0.5, pytest.approx(2 / 3))
    assert (summary.p_mean, summary.p_std) == pytest.approx((0.5, 0.5))
    assert (summary.r_mean, summary.r_std) == pytest.approx((0.25, 0.25))
    assert (summary.f_mean, summary.f_std) == pytest.approx((1 / 3, 1 / 3))
    assert summary.images == 2


def test_summary_of_nothing_is_zero():
    summary = summarize([])
    assert summary.images == 0 and summary.f_mean == 0.0 and summary.f_std == 0.0


def test_upper_bound_on_a_hand_computed_case():
    # Golds A = {0, 1}, B = {0}, C = {2}.
    # A vs {B, C}: P = (1/2 + 0)/2 = 1/4, R = (1 + 0)/2 = 1/2, F = 1/3.
    # B vs {A, C}: P = (1 + 0)/2 = 1/2, R = (1/2 + 0)/2 = 1/4, F = 1/3.
    # C vs {A, B}: 0, 0, 0.  Image: P = R = 1/4, F = 2/9 (F averaged per description, not 2PR/(P+R) = 1/4).
    image = make_image("x", ["dog", "cat", "ball"], [[0, 1], [0], [2], []])
    scores, skipped = upper_bound_scores([image])
    assert scores == [ImageScore("x", pytest.approx(0.25), pytest.approx(0.25), pytest.approx(2 / 9))]
    assert skipped == []
    single = make_image("single", ["dog"], [[0], []])
    empty = make_image("empty", ["dog"], [[]])
    summary = human_upper_bound([image, single, empty])
    assert summary.images == 1 and summary.f_mean == pytest.approx(2 / 9) and summary.f_std == 0.0
    _, skipped = upper_bound_scores([image, single, empty])
    assert [(s.key, s.reason) for s in skipped] == [("single", TOO_FEW_FOR_UPPER_BOUND), ("empty", NO_LINKED_GOLD)]


def test_upper_bound_of_identical_descriptions_is_one():
    image = make_image("same", ["dog", "cat"], [[0, 1], [1, 0], [0, 1]])
    summary = human_upper_bound([image])
    assert (summary.p_mean, summary.r_mean, summary.f_mean) == pytest.approx((1.0, 1.0, 1.0))


def test_dataset_statistics():
    images = [
        make_image("a", ["dog", "cat", "ball"], [[0, 1], [0], []]),
        make_image("b", ["dog"], [[0, 0]]),
    ]
    stats = dataset_statistics(images)
    assert stats["images"] == 2 and stats["descriptions"] == 4
    assert stats["descriptions_per_image"] == {"mean": 2.0, "median": 2.0, "min": 1, "max": 3}
    assert stats["descriptions_without_box"] == 1
    assert stats["mean_unique_boxes_per_description"] == pytest.approx((2 + 1 + 0 + 1) / 4)
    assert stats["mean_unique_boxes_per_linked_description"] == pytest.approx(4 / 3)
    assert stats["boxes_per_image_mean"] == 2.0
    assert stats["concepts"] == 3
    assert stats["top_concepts"][0] == {"concept": "dog", "boxes": 2, "references": 3}


def test_edge_cases_are_quoted_in_the_module_docstring():
    docstring = re.sub(r"\s+", " ", content_selection.__doc__)
    for case in EDGE_CASES:
        assert re.sub(r"\s+", " ", case) in docstring


def test_scores_are_finite_for_the_worked_example_rankings():
    for scores in prefix_curves(WORKED_GOLDS, [0, 1, 2, 3, 4, 5], 15):
        assert all(math.isfinite(value) and 0 <= value <= 1 for value in scores)
