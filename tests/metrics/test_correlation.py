"""Pearson, Spearman and Kendall against values computed by hand, and the degenerate cases.

x = 1..5, y = 2, 1, 4, 3, 5: deviations (-2, -1, 0, 1, 2) and (-1, -2, 1, 0, 2), cross products sum to 8, squares
to 10 and 10, so r = 0.8; the ranks are the values, so rho = 0.8 too; 8 concordant and 2 discordant pairs out of
10, so tau = 0.6. p-values, exact at 5 points: both sides are orderings of 1..5, so r = rho = 1 - sum d^2 / 20 over
the 120 orderings of y; rho >= 0.8 needs sum d^2 <= 4: the identity, the 4 swaps of neighbours and the 3 pairs of
disjoint neighbour swaps, 8 orderings, so p = 2 x 8 / 120 (Pearson and Spearman; the t approximation would say
0.104); Kendall's exact p is 2 x P(at most 2 inversions among the 120 permutations of 5) = 2 x (1 + 4 + 9) / 120.
"""
from __future__ import annotations

import itertools
import math

import pytest
from scipy import stats

from metrics.correlation import FIELDS, METHOD_FIELDS, Correlation, correlate, correlation_table

X = [1.0, 2.0, 3.0, 4.0, 5.0]
Y = [2.0, 1.0, 4.0, 3.0, 5.0]


def test_known_values():
    result = correlate(X, Y)
    assert result.n == 5 and result.note is None
    assert result.pearson_r == pytest.approx(0.8)
    assert result.spearman_rho == pytest.approx(0.8)
    assert result.kendall_tau == pytest.approx(0.6)
    assert result.pearson_p == pytest.approx(16 / 120)
    assert result.spearman_p == pytest.approx(16 / 120)
    assert result.kendall_p == pytest.approx(28 / 120)
    assert result.pearson_method == result.spearman_method == "exact: all 120 orderings"
    assert result.kendall_method == "exact: Kendall's distribution (no ties)"


def test_three_points_in_the_same_order_have_the_exact_p_of_one_third():
    # Of the 6 orderings of 3 systems, one gives rho = 1 and one rho = -1: two-sided p = 2/6, never 0.
    result = correlate([0.1, 0.2, 0.3], [2.0, 3.5, 4.0])
    assert result.spearman_rho == pytest.approx(1.0) and result.kendall_tau == pytest.approx(1.0)
    assert result.spearman_p == pytest.approx(1 / 3)
    assert result.kendall_p == pytest.approx(1 / 3)
    assert result.pearson_p == pytest.approx(1 / 3)  # r = 0.96 is reached by one ordering only, as rho


def _by_enumeration(xs, ys, statistic):
    observed = statistic(xs, ys)
    null = [statistic(list(order), ys) for order in itertools.permutations(xs)]
    return min(1.0, 2 * min(sum(v <= observed + 1e-12 for v in null), sum(v >= observed - 1e-12 for v in null))
               / len(null))


def test_ties_at_small_n_are_exact_by_enumerating_every_ordering():
    xs, ys = [1.0, 2.0, 2.0, 4.0, 5.0, 6.0], [2.0, 1.0, 4.0, 3.0, 5.0, 5.0]
    result = correlate(xs, ys)
    assert result.spearman_method == result.kendall_method == "exact: all 720 orderings"
    assert result.spearman_p == pytest.approx(_by_enumeration(xs, ys, lambda a, b: stats.spearmanr(a, b).statistic))
    assert result.kendall_p == pytest.approx(_by_enumeration(xs, ys, lambda a, b: stats.kendalltau(a, b).statistic))
    assert result.kendall_tau == pytest.approx(stats.kendalltau(xs, ys).statistic)


def test_above_eight_points_the_approximations_and_their_names():
    xs = [float(v) for v in range(12)]
    ys = [2.0, 1.0, 4.0, 3.0, 5.0, 7.0, 6.0, 9.0, 8.0, 11.0, 10.0, 10.0]  # ties in y
    result = correlate(xs, ys)
    assert result.spearman_p == pytest.approx(stats.spearmanr(xs, ys).pvalue)
    assert result.pearson_p == pytest.approx(stats.pearsonr(xs, ys).pvalue)
    assert result.kendall_p == pytest.approx(stats.kendalltau(xs, ys, method="asymptotic").pvalue)
    assert (result.pearson_method, result.spearman_method, result.kendall_method) == (
        "t test", "t approximation", "normal approximation")
    untied = correlate(xs, [*ys[:-1], 12.0])
    assert untied.kendall_method == "exact: Kendall's distribution (no ties)"
    assert untied.kendall_p == pytest.approx(stats.kendalltau(xs, [*ys[:-1], 12.0], method="exact").pvalue)


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
    assert all(getattr(result, field) is None for field in (*FIELDS, *METHOD_FIELDS))


def test_lengths_must_match():
    with pytest.raises(ValueError, match="3 scores but 2 ratings"):
        correlate([1.0, 2.0, 3.0], [1.0, 2.0])


def test_table_has_one_row_per_metric():
    table = correlation_table({"meteor": X, "bleu4": [1.0, 1.0, 1.0, 1.0, 1.0]}, Y)
    assert list(table) == ["meteor", "bleu4"]
    assert set(table["meteor"]) == {"n", "note", *FIELDS, *METHOD_FIELDS}
    assert table["meteor"]["kendall_tau"] == pytest.approx(0.6)
    assert table["bleu4"]["pearson_r"] is None and table["bleu4"]["note"] == "undefined: the scores are constant"
