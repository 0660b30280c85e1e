"""The paired permutation (sign-flip) and Wilcoxon tests of metrics.human_eval.significance: the permutation test
exact by enumeration up to 20 items whatever the bootstrap's resamples, Monte Carlo above with the researcher's
number of sign patterns and its standard error, shared enumerations for pairs with the same items, chunks that
change nothing; Wilcoxon exact with tied differences up to 20 items."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from metrics.human_eval import analyse, significance
from metrics.human_eval.bootstrap import generator
from metrics.human_eval.significance import EXACT_ITEMS, compare_all


def _scipy_exact(d: np.ndarray) -> float:
    return float(stats.permutation_test((d,), lambda x, axis: np.mean(x, axis=axis), permutation_type="samples",
                                        vectorized=True, n_resamples=2 ** len(d)).pvalue)


def _exact_by_convolution(d: list[int]) -> float:
    """The exact two-sided sign-flip p-value of integer differences: the distribution of the sum of +-d_i by
    convolving the two-point distributions (no enumeration of the 2^n patterns)."""
    offset = sum(abs(v) for v in d)
    counts = np.zeros(2 * offset + 1, dtype=object)
    counts[offset] = 1
    size = len(counts)
    for value in d:  # +-d_i: the distribution so far moved up by |d_i| and down by |d_i|
        step = abs(value)
        shifted = np.zeros_like(counts)
        shifted[step:] += counts[:size - step]
        shifted[:size - step] += counts[step:]
        counts = shifted
    observed = sum(d) + offset
    total = sum(counts)
    less, greater = sum(counts[:observed + 1]), sum(counts[observed:])
    return min(1.0, 2 * min(less, greater) / total)


def test_twelve_items_all_one_way_is_exact_two_in_4096():
    a = {str(i): 4.0 for i in range(12)}
    b = {str(i): 3.0 - i / 100 for i in range(12)}
    # The bootstrap's 1,000 resamples used to decide between enumerating and sampling (2^12 > 1,000: 0.002).
    [row] = compare_all({"a": a, "b": b}, ["a", "b"], generator(0), 1000, 0.95, wilcoxon=False)
    assert row["permutation_exact"] is True and row["permutation_patterns"] == 4096
    assert row["p_permutation"] == 2 / 4096  # only "all kept" and "all flipped" are as extreme
    assert row["p_permutation_se"] is None


@pytest.mark.parametrize("n", [5, 14, 17])
def test_exact_up_to_the_limit_equals_scipy_whatever_the_bootstrap_resamples(n):
    rng = np.random.default_rng(n)
    x, y = rng.normal(0.4, 1, n), rng.normal(0, 1, n)
    a, b = {str(i): x[i] for i in range(n)}, {str(i): y[i] for i in range(n)}
    [row] = compare_all({"a": a, "b": b}, ["a", "b"], generator(0), 50, 0.95, wilcoxon=False)
    assert row["permutation_exact"] is True and row["permutation_patterns"] == 2 ** n
    assert row["p_permutation"] == pytest.approx(_scipy_exact(x - y))


def test_exact_at_twenty_items_equals_the_convolution():
    d = [3, 1, 2, -1, 2, 3, 1, 1, -2, 2, 1, 3, -1, 2, 1, 1, -3, 2, 1, 2]
    assert len(d) == EXACT_ITEMS
    [row] = compare_all({"a": {str(i): float(v) for i, v in enumerate(d)}, "b": {str(i): 0.0 for i in range(20)}},
                        ["a", "b"], generator(0), 10, 0.95, wilcoxon=False)
    assert row["permutation_exact"] is True and row["permutation_patterns"] == 2 ** 20
    assert row["p_permutation"] == pytest.approx(_exact_by_convolution(d))


def test_above_the_limit_monte_carlo_with_the_resamples_asked_and_its_standard_error():
    d = [1, 2, 1, 1, -1, 2, 1, 3, 2, 1, 1, 2, -1, 1, 2, 1, 1, 1, 2, 1, 1, -2, 1, 1, 2, 1, -1, 1, 1, 2]  # p 6.5e-5
    exact = _exact_by_convolution(d)
    a = {str(i): float(v) for i, v in enumerate(d)}
    b = {str(i): 0.0 for i in range(len(d))}
    [row] = compare_all({"a": a, "b": b}, ["a", "b"], generator(3), 10, 0.95, wilcoxon=False,
                        permutation_resamples=200_000)
    assert row["permutation_exact"] is False and row["permutation_patterns"] == 200_000
    q = row["p_permutation"] / 2
    assert row["p_permutation_se"] == pytest.approx(2 * np.sqrt(q * (1 - q) / 200_000))
    assert abs(row["p_permutation"] - exact) < 4 * row["p_permutation_se"]
    assert exact < 1e-4  # a p-value a fixed 1,000 patterns could not resolve (their smallest is 0.002)
    assert row["p_permutation"] < 1e-3


def test_pairs_with_different_items_are_each_exact_on_their_own_items():
    rng = np.random.default_rng(4)
    a = {str(i): float(v) for i, v in enumerate(rng.integers(1, 6, 24))}
    b = {str(i): float(v) for i, v in enumerate(rng.integers(1, 6, 24)) if i < 9}
    c = {str(i): float(v) for i, v in enumerate(rng.integers(1, 6, 24)) if i % 2}
    rows = {(row["a"], row["b"]): row for row in compare_all({"a": a, "b": b, "c": c}, ["a", "b", "c"],
                                                             generator(0), 10, 0.95, wilcoxon=False,
                                                             permutation_resamples=5000)}
    for pair, items in ((("a", "b"), sorted(b)), (("a", "c"), sorted(c)), (("b", "c"), sorted(b.keys() & c.keys()))):
        first, second = {"a": a, "b": b, "c": c}[pair[0]], {"a": a, "b": b, "c": c}[pair[1]]
        d = np.array([first[i] - second[i] for i in items])
        assert rows[pair]["items"] == len(items) <= EXACT_ITEMS
        assert rows[pair]["permutation_exact"] is True
        assert rows[pair]["p_permutation"] == pytest.approx(_scipy_exact(d))


def test_chunks_change_nothing(monkeypatch):
    rng = np.random.default_rng(8)
    systems = {name: {str(i): float(v) for i, v in enumerate(rng.integers(1, 6, 13))} for name in "abcd"}
    whole = compare_all(systems, list(systems), generator(0), 10, 0.95, wilcoxon=False)
    monkeypatch.setattr(significance, "CHUNK_ELEMENTS", 7)  # one pattern or so at a time
    assert compare_all(systems, list(systems), generator(0), 10, 0.95, wilcoxon=False) == whole


def test_the_analysis_stores_its_permutation_settings():
    records = [{"design": "rating", "system": s, "item": i, "judge": "j", "value": 1 + (i + k) % 5}
               for k, s in enumerate("ab") for i in range(25)]
    result = analyse(records, resamples=10, permutation_resamples=3000)
    assert result["settings"]["permutation_resamples"] == 3000
    assert result["settings"]["permutation_exact_items"] == EXACT_ITEMS
    [row] = result["ratings"]["overall"]["comparisons"]
    assert row["permutation_exact"] is False and row["permutation_patterns"] == 3000
    with pytest.raises(ValueError, match="permutation_resamples must be at least 1"):
        analyse(records, permutation_resamples=0)


def test_wilcoxon_with_tied_differences_is_exact_up_to_twenty_items():
    # 16 non-zero differences with ties (and two zeros, dropped): scipy's default falls back to the normal
    # approximation above 13 tied differences; counting every sign pattern of the mid-ranks is exact.
    a = [4, 5, 3, 4, 2, 5, 4, 3, 5, 4, 2, 3, 5, 4, 3, 4, 3, 2]
    b = [3, 3, 3, 2, 3, 4, 2, 2, 3, 4, 1, 2, 4, 2, 4, 1, 1, 1]
    d = np.array(a, dtype=float) - np.array(b, dtype=float)
    [row] = compare_all({"a": {str(i): float(v) for i, v in enumerate(a)},
                         "b": {str(i): float(v) for i, v in enumerate(b)}}, ["a", "b"], generator(0), 10, 0.95,
                        wilcoxon=True)
    nonzero = d[d != 0]
    assert nonzero.size == 16 and np.unique(np.abs(nonzero)).size < 16
    doubled = (2 * np.sign(nonzero) * stats.rankdata(np.abs(nonzero))).astype(int).tolist()  # mid-ranks x 2
    assert row["wilcoxon_exact"] is True
    assert row["p_wilcoxon"] == pytest.approx(_exact_by_convolution(doubled))
    assert row["p_wilcoxon"] != pytest.approx(stats.wilcoxon(nonzero).pvalue)  # the approximation differs


def test_wilcoxon_without_ties_is_scipys_exact_and_approximate_beyond():
    rng = np.random.default_rng(6)
    for n, exact in ((30, True), (60, False)):
        x, y = rng.normal(0.3, 1, n), rng.normal(0, 1, n)
        [row] = compare_all({"a": {str(i): x[i] for i in range(n)}, "b": {str(i): y[i] for i in range(n)}},
                            ["a", "b"], generator(0), 10, 0.95, wilcoxon=True, permutation_resamples=1000)
        assert row["wilcoxon_exact"] is exact
        assert row["p_wilcoxon"] == pytest.approx(stats.wilcoxon(x - y).pvalue)


def test_memory_stays_bounded_by_the_chunks():
    import tracemalloc

    rng = np.random.default_rng(9)
    systems = {name: {str(i): float(v) for i, v in enumerate(rng.integers(1, 6, 400))} for name in "abcd"}
    tracemalloc.start()
    try:
        compare_all(systems, list(systems), generator(0), 10, 0.95, wilcoxon=False, permutation_resamples=100_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # every pattern at once would be 100,000 x 400 signs, 320 MB of float64; a chunk is CHUNK_ELEMENTS signs
    assert peak < 4 * significance.CHUNK_ELEMENTS * 8
