"""The COCO caption scorers as the platform calls them."""
from __future__ import annotations

import pytest

from metrics.story_scores import rouge_l


def test_rouge_l_is_the_lcs_f_measure_with_beta_1_2():
    # "a man rides a horse" against "a woman rides": the longest common subsequence is "a rides" (2 words):
    # P = 2/5, R = 2/3, F = (1 + 1.2^2) P R / (R + 1.2^2 P) = 2.44 * 4/15 / (2/3 + 0.576).
    scores = rouge_l(["a man rides a horse", "zebras"], [["a woman rides"], ["a dog"]])
    expected = 2.44 * (4 / 15) / (2 / 3 + 1.44 * 0.4)
    assert scores.per_item == [pytest.approx(expected), 0.0]
    assert scores.mean == pytest.approx(expected / 2)


def test_rouge_l_takes_the_best_reference():
    scores = rouge_l(["a dog runs"], [["a cat sleeps", "a dog runs"]])
    assert scores.per_item == [pytest.approx(1.0)]


def test_rouge_l_of_nothing():
    assert rouge_l([], []).mean is None
