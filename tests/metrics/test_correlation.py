"""Pearson, Spearman and Kendall against values computed by hand, and the degenerate cases.

x = 1..5, y = 2, 1, 4, 3, 5: deviations (-2, -1, 0, 1, 2) and (-1, -2, 1, 0, 2), cross products sum to 8, squares
to 10 and 10, so r = 0.8; the ranks are the values, so rho = 0.8 too; 8 concordant and 2 discordant pairs out of
10, so tau = 0.6. p-values: t = r sqrt(n - 2) / sqrt(1 - r^2) = 0.8 sqrt(3) / 0.6 with 3 degrees of freedom, two
sided, 0.10408 (Pearson and Spearman); Kendall's exact p is 2 x P(at most 2 inversions among the 120
permutations of 5) = 2 x (1 + 4 + 9) / 120.
"""
from __future__ import annotations

import math

import pytest

from metrics.correlation import FIELDS, Correlation, correlate, correlation_table

X = [1.0, 2.0, 3.0, 4.0, 5.0]
Y = [2.0, 1.0, 4.0, 3.0, 5.0]


def test_known_values():
    result = correlate(X, Y)
    assert result.n == 5 and result.note is None
    assert result.pearson_r == pytest.approx(0.8)
    assert result.spearman_rho == pytest.approx(0.8)
    assert result.kendall_tau == pytest.approx(0.6)
    assert result.pearson_p == pytest.approx(0.104088, abs=1e-6)
    assert result.spearman_p == pytest.approx(0.104088, abs=1e-6)
    assert result.kendall_p == pytest.approx(28 / 120)


def test_perfect_negative_ranking():
    result = correlate(X, [5.0, 4.0, 3.0, 2.0, 1.0])
    assert result.pearson_r == pytest.approx(-1.0)
    assert result.spearman_rho == pytest.approx(-1.0)
    assert result.kendall_tau == pytest.approx(-1.0)
    assert result.kendall_p == pytest.approx(2 / 120)


def test_missing_values_are_dropped_pairwise():
    assert correlate([*X, None, 7.0, math.nan], [*Y, 3.0, None, 1.0]) == correlate(X, Y)


@pytest.mark.parametrize("scores, ratings, n, note", [
    ([], [], 0, "needs at least 3 rated items, got 0"),
    ([0.1, 0.2], [1.0, 2.0], 2, "needs at least 3 rated items, got 2"),
    ([0.1, 0.2, 0.3, None], [1.0, 2.0, None, 4.0], 2, "needs at least 3 rated items, got 2"),
    ([0.5, 0.5, 0.5], [1.0, 2.0, 3.0], 3, "undefined: the scores are constant"),
    ([0.1, 0.2, 0.3], [4.0, 4.0, 4.0], 3, "undefined: the ratings are constant"),
    ([0.5, 0.5, 0.5], [4.0, 4.0, 4.0], 3, "undefined: the scores and the ratings are constant"),
])
def test_degenerate_inputs_give_none_and_a_note(scores, ratings, n, note):
    result = correlate(scores, ratings)
    assert result == Correlation(n, note=note)
    assert all(getattr(result, field) is None for field in FIELDS)


def test_lengths_must_match():
    with pytest.raises(ValueError, match="3 scores but 2 ratings"):
        correlate([1.0, 2.0, 3.0], [1.0, 2.0])


def test_table_has_one_row_per_metric():
    table = correlation_table({"meteor": X, "bleu4": [1.0, 1.0, 1.0, 1.0, 1.0]}, Y)
    assert list(table) == ["meteor", "bleu4"]
    assert set(table["meteor"]) == {"n", "note", *FIELDS}
    assert table["meteor"]["kendall_tau"] == pytest.approx(0.6)
    assert table["bleu4"]["pearson_r"] is None and table["bleu4"]["note"] == "undefined: the scores are constant"
