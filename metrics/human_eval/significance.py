"""Is one system better than another? Paired tests on items, for both designs.

Each item gives one paired difference d between systems a and b: for ratings, a's mean rating on the item minus
b's (items both were rated on); for preferences, (a's wins - b's wins) / judgements of the pair on the item, ties
counting for neither (items where the pair was judged), in [-1, 1]. On the n differences:

- paired bootstrap: the mean difference's percentile interval from resampling items, and the two-sided p-value
  2 * min(share of resamples with mean <= 0, share with mean >= 0), each share counted with +1 over resamples + 1;
- permutation (sign-flip) test: under the null a and b are exchangeable on each item, so each d keeps or flips
  its sign; the null distribution of the mean difference is every one of the 2^n sign patterns when 2^n <=
  `resamples` (exact, the same p-value as `scipy.stats.permutation_test(permutation_type="samples")`), else
  `resamples` random patterns with scipy's +1 adjustment; two-sided as scipy: 2 * min(P(null <= obs), P(null >=
  obs)), clipped to 1;
- Wilcoxon signed-rank (`scipy.stats.wilcoxon`, zero differences dropped, two-sided), for ratings.

The bootstrap draws and the sign patterns are drawn once per aspect over all items and shared by every pair of
systems (a pair's absent items have d = 0 and weight 0), so every pair is tested on the same resamples.
"""
from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from metrics.human_eval.bootstrap import percentile_interval, resample_counts

EXACT_LIMIT = 20  # at most 2^20 sign patterns enumerated


def sign_patterns(rng: np.random.Generator, n: int, resamples: int) -> tuple[np.ndarray, bool]:
    """A (patterns, n) matrix of +1/-1 and whether it is every pattern (exact) or `resamples` random ones."""
    if n <= EXACT_LIMIT and 2 ** n <= resamples:
        return np.array(list(itertools.product((1.0, -1.0), repeat=n))).reshape(2 ** n, n), True
    return rng.choice(np.array([1.0, -1.0]), size=(resamples, n)), False


def paired_tests(differences: np.ndarray, present: np.ndarray, counts: np.ndarray, signs: np.ndarray, exact: bool,
                 confidence: float, wilcoxon: bool) -> list[dict[str, Any]]:
    """The tests of each column of (items, pairs) `differences` (0 where `present` is 0), given the item resample
    `counts` (resamples, items) and the sign `patterns` (patterns, items)."""
    n = present.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = differences.sum(axis=0) / n
        boot = (counts @ differences) / (counts @ present)
    null = (signs @ differences) / n
    gamma = np.abs(np.finfo(float).eps * 100 * observed)
    adjustment = 0 if exact else 1
    less = ((null <= observed + gamma).sum(axis=0) + adjustment) / (null.shape[0] + adjustment)
    greater = ((null >= observed - gamma).sum(axis=0) + adjustment) / (null.shape[0] + adjustment)
    p_permutation = np.clip(2 * np.minimum(less, greater), 0, 1)
    finite = np.isfinite(boot)
    kept = finite.sum(axis=0)
    below = ((boot <= 0) & finite).sum(axis=0)
    above = ((boot >= 0) & finite).sum(axis=0)
    p_bootstrap = np.clip(2 * np.minimum(below + 1, above + 1) / (kept + 1), 0, 1)
    rows: list[dict[str, Any]] = []
    for column in range(differences.shape[1]):
        if n[column] == 0:
            empty: dict[str, Any] = {"items": 0, "mean_difference": None, "low": None, "high": None,
                                     "p_bootstrap": None, "p_permutation": None, "permutation_exact": exact}
            rows.append({**empty, "p_wilcoxon": None} if wilcoxon else empty)
            continue
        low, high = percentile_interval(boot[:, column], confidence)
        row: dict[str, Any] = {
            "items": int(n[column]), "mean_difference": float(observed[column]), "low": low, "high": high,
            "p_bootstrap": float(p_bootstrap[column]), "p_permutation": float(p_permutation[column]),
            "permutation_exact": exact}
        if wilcoxon:
            row["p_wilcoxon"] = wilcoxon_p(differences[present[:, column] > 0, column])
        rows.append(row)
    return rows


def wilcoxon_p(differences: np.ndarray) -> float | None:
    """Two-sided Wilcoxon signed-rank p-value (zero differences dropped); None when no difference is non-zero."""
    if not np.any(differences != 0):
        return None
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(stats.wilcoxon(differences, zero_method="wilcox", alternative="two-sided").pvalue)
    return None if np.isnan(value) else value


def compare_all(per_item: dict[str, dict[str, float]], systems: Sequence[str], rng: np.random.Generator,
                resamples: int, confidence: float, wilcoxon: bool,
                difference: Any = None) -> list[dict[str, Any]]:
    """Every pair (a, b) of `systems` (a before b in the given order): {"a", "b", tests...}. `per_item` maps
    (pair key or system) to {item: value}: for ratings {system: {item: mean}}, d = a - b; for preferences, pass
    `difference(a, b) -> {item: d}`."""
    pairs = list(itertools.combinations(systems, 2))
    if not pairs:
        return []
    columns = [difference(a, b) if difference else _rating_difference(per_item, a, b) for a, b in pairs]
    items = sorted({item for column in columns for item in column})
    position = {item: n for n, item in enumerate(items)}
    diffs = np.zeros((len(items), len(pairs)))
    present = np.zeros((len(items), len(pairs)))
    for k, column in enumerate(columns):
        for item, value in column.items():
            diffs[position[item], k] = value
            present[position[item], k] = 1.0
    counts = resample_counts(rng, len(items), resamples)
    signs, exact = sign_patterns(rng, len(items), resamples)
    tests = paired_tests(diffs, present, counts, signs, exact, confidence, wilcoxon)
    return [{"a": a, "b": b, **row} for (a, b), row in zip(pairs, tests, strict=True)]


def _rating_difference(per_item: dict[str, dict[str, float]], a: str, b: str) -> dict[str, float]:
    first, second = per_item.get(a, {}), per_item.get(b, {})
    return {item: first[item] - second[item] for item in first.keys() & second.keys()}
