"""Is one system better than another? Paired tests on items, for both designs.

Each item gives one paired difference d between systems a and b: for ratings, a's mean rating on the item minus
b's (items both were rated on); for preferences, (a's wins - b's wins) / judgements of the pair on the item, ties
counting for neither (items where the pair was judged), in [-1, 1]. On the n differences:

- paired bootstrap: the mean difference's percentile interval from resampling items, and the two-sided p-value
  2 * min(share of resamples with mean <= 0, share with mean >= 0), each share counted with +1 over resamples + 1
  (so its smallest value is 2 / (resamples + 1));
- permutation (sign-flip) test: under the null a and b are exchangeable on each item, so each d keeps or flips
  its sign. Up to EXACT_ITEMS items (2^20 = 1,048,576 sign patterns) the null distribution of the mean difference
  is every one of the 2^n patterns, enumerated (exact: the p-value of
  `scipy.stats.permutation_test(permutation_type="samples")` with every pattern); above, `permutation_resamples`
  random patterns (Monte Carlo, scipy's +1 adjustment), with the Monte-Carlo standard error of the p-value,
  2 * sqrt(q (1 - q) / resamples) where q is the smaller tail share. Two-sided as scipy: 2 * min(P(null <= obs),
  P(null >= obs)), clipped to 1. The patterns are made in chunks of at most CHUNK_ELEMENTS signs (and as many
  sums per pair), so memory stays bounded whatever the number of items, pairs or resamples;
- Wilcoxon signed-rank (zero differences dropped, two-sided), for ratings: exact where it can be, as
  `scipy.stats.wilcoxon` is without ties (its exact distribution, up to 50 non-zero differences) and, with tied
  differences, by counting every sign pattern of the signed mid-ranks up to EXACT_ITEMS non-zero differences (scipy
  itself enumerates only up to 13 there); otherwise scipy's normal approximation (with its tie correction, no
  continuity correction). `wilcoxon_exact` says which.

`scipy.stats.permutation_test` itself computes the same p-values, one pair at a time (bench/permutation_test.py:
0.2 s for one pair of 30 items at 100,000 random patterns, 9 s for the exact test of one pair of 20 items, its
enumeration a Python loop; 7 minutes for the 45 pairs of 10 systems). Here the patterns are drawn (or enumerated)
once per aspect over all items and every pair is tested on them by one matrix product (a pair's absent items have
d = 0; the exact enumeration is shared by the pairs with the same items): 0.2 s and 1.5 s for all 45 pairs.

The bootstrap draws are drawn once per aspect over all items and shared by every pair of systems (a pair's absent
items have weight 0), so every pair is tested on the same resamples.
"""
from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from metrics.human_eval.bootstrap import percentile_interval, resample_counts

EXACT_ITEMS = 20  # every one of the 2^n sign patterns up to 20 items (1,048,576 patterns)
PERMUTATION_RESAMPLES = 100_000  # random sign patterns above: p-values down to 2e-5, standard error shown
CHUNK_ELEMENTS = 1 << 21  # signs held at once (16 MB of float64)


def _exact_tails(differences: np.ndarray, present: np.ndarray, columns: np.ndarray, observed: np.ndarray,
                 gamma: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each of `columns` (at most EXACT_ITEMS present items each): the numbers of the 2^n sign patterns of
    its present items whose sum is <= and >= the observed sum, and 2^n. The pairs with the same items share one
    enumeration; the patterns are the binary codes 0 .. 2^n - 1 (bit j flips item j), made in chunks once for the
    widest group, the first 2^m codes serving a group of m items."""
    groups: dict[tuple[int, ...], list[int]] = {}
    for column in columns:
        groups.setdefault(tuple(np.flatnonzero(present[:, column])), []).append(int(column))
    less, greater, patterns = (np.zeros(present.shape[1]) for _ in range(3))
    width = max(len(items) for items in groups)
    widest = max(len(group) for group in groups.values())
    rows = max(1, CHUNK_ELEMENTS // max(width, widest))  # signs (rows x width) and sums (rows x pairs) bounded
    bits = np.arange(width, dtype=np.int64)
    blocks = [(2 ** len(items), differences[np.ix_(items, group)], group) for items, group in groups.items()]
    for start in range(0, 2 ** width, rows):
        codes = np.arange(start, min(start + rows, 2 ** width), dtype=np.int64)
        signs = 1.0 - 2.0 * ((codes[:, None] >> bits) & 1)
        for total, block, group in blocks:
            if start >= total:
                continue
            null = signs[:total - start, :block.shape[0]] @ block
            less[group] += (null <= observed[group] + gamma[group]).sum(axis=0)
            greater[group] += (null >= observed[group] - gamma[group]).sum(axis=0)
    for total, _, group in blocks:
        patterns[group] = total
    return less[columns], greater[columns], patterns[columns]


def _random_tails(differences: np.ndarray, rng: np.random.Generator, resamples: int, observed: np.ndarray,
                  gamma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each column of `differences` (items, k): the numbers of `resamples` random sign patterns over all items
    whose sum is <= and >= the observed sum. Each sign is a fair random bit (8 bits per random byte), drawn in
    chunks."""
    n_items, k = differences.shape
    less, greater = np.zeros(k), np.zeros(k)
    total = differences.sum(axis=0)
    rows = max(1, CHUNK_ELEMENTS // max(n_items, k, 1))  # signs (rows x items) and sums (rows x pairs) bounded
    for start in range(0, resamples, rows):
        size = min(rows, resamples - start)
        random_bytes = rng.integers(0, 256, size=(size, (n_items + 7) // 8), dtype=np.uint8)
        flipped = np.unpackbits(random_bytes, axis=1, count=n_items).astype(float)
        null = total - 2.0 * (flipped @ differences)  # the sum with the flipped items' signs changed
        less += (null <= observed + gamma).sum(axis=0)
        greater += (null >= observed - gamma).sum(axis=0)
    return less, greater


def permutation_tests(differences: np.ndarray, present: np.ndarray, rng: np.random.Generator,
                      resamples: int) -> list[dict[str, Any]]:
    """The sign-flip test of each column of (items, pairs) `differences` (0 where `present` is 0): {"p", "exact",
    "patterns", "se"} (se None when exact), or None for a column with no item."""
    n = present.sum(axis=0).astype(int)
    observed = differences.sum(axis=0)
    gamma = np.abs(np.finfo(float).eps * 100 * observed)  # scipy's tolerance for ties with the observed value
    results: list[dict[str, Any] | None] = [None] * differences.shape[1]
    exact = np.flatnonzero((n > 0) & (n <= EXACT_ITEMS))
    if exact.size:
        less, greater, patterns = _exact_tails(differences, present, exact, observed, gamma)
        for column, low, high, total in zip(exact, less, greater, patterns, strict=True):
            results[column] = {"p": float(min(1.0, 2 * min(low, high) / total)), "exact": True,
                               "patterns": int(total), "se": None}
    sampled = np.flatnonzero(n > EXACT_ITEMS)
    if sampled.size:
        less, greater = _random_tails(differences[:, sampled], rng, resamples, observed[sampled], gamma[sampled])
        for column, low, high in zip(sampled, less, greater, strict=True):
            q = min((low + 1) / (resamples + 1), (high + 1) / (resamples + 1))
            results[column] = {"p": float(min(1.0, 2 * q)), "exact": False, "patterns": resamples,
                               "se": float(2 * np.sqrt(q * (1 - q) / resamples))}
    return results  # type: ignore[return-value]


def paired_tests(differences: np.ndarray, present: np.ndarray, counts: np.ndarray, rng: np.random.Generator,
                 permutation_resamples: int, confidence: float, wilcoxon: bool) -> list[dict[str, Any]]:
    """The tests of each column of (items, pairs) `differences` (0 where `present` is 0), given the item resample
    `counts` (resamples, items)."""
    n = present.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = differences.sum(axis=0) / n
        boot = (counts @ differences) / (counts @ present)
    permutation = permutation_tests(differences, present, rng, permutation_resamples)
    signed_rank = wilcoxon_tests(differences, present) if wilcoxon else []
    finite = np.isfinite(boot)
    kept = finite.sum(axis=0)
    below = ((boot <= 0) & finite).sum(axis=0)
    above = ((boot >= 0) & finite).sum(axis=0)
    p_bootstrap = np.clip(2 * np.minimum(below + 1, above + 1) / (kept + 1), 0, 1)
    rows: list[dict[str, Any]] = []
    for column in range(differences.shape[1]):
        if n[column] == 0:
            empty: dict[str, Any] = {"items": 0, "mean_difference": None, "low": None, "high": None,
                                     "p_bootstrap": None, "p_permutation": None, "p_permutation_se": None,
                                     "permutation_exact": None, "permutation_patterns": None}
            rows.append({**empty, "p_wilcoxon": None, "wilcoxon_exact": None} if wilcoxon else empty)
            continue
        low, high = percentile_interval(boot[:, column], confidence)
        test = permutation[column]
        row: dict[str, Any] = {
            "items": int(n[column]), "mean_difference": float(observed[column]), "low": low, "high": high,
            "p_bootstrap": float(p_bootstrap[column]), "p_permutation": test["p"], "p_permutation_se": test["se"],
            "permutation_exact": test["exact"], "permutation_patterns": test["patterns"]}
        if wilcoxon:
            row["p_wilcoxon"], row["wilcoxon_exact"] = signed_rank[column]
        rows.append(row)
    return rows


WILCOXON_EXACT_UNTIED = 50  # scipy's exact distribution of the signed-rank statistic without ties


def wilcoxon_tests(differences: np.ndarray, present: np.ndarray) -> list[tuple[float | None, bool | None]]:
    """(p-value, exact) of the two-sided Wilcoxon signed-rank test of each column, zero differences dropped;
    (None, None) when no difference is non-zero. Tied differences up to EXACT_ITEMS: the sign-flip test of the
    signed mid-ranks, every pattern counted (the pairs with the same items share the enumeration)."""
    from scipy import stats

    kept = (present > 0) & (differences != 0)
    ranks = np.zeros_like(differences)
    results: list[tuple[float | None, bool | None]] = []
    tied_small = []
    for column in range(differences.shape[1]):
        values = differences[kept[:, column], column]
        if values.size == 0:
            results.append((None, None))
            continue
        ties = np.unique(np.abs(values)).size < values.size
        if ties and values.size <= EXACT_ITEMS:
            ranks[kept[:, column], column] = np.sign(values) * stats.rankdata(np.abs(values))
            tied_small.append(column)
            results.append((None, True))
            continue
        exact = not ties and values.size <= WILCOXON_EXACT_UNTIED
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = float(stats.wilcoxon(values, zero_method="wilcox", alternative="two-sided",
                                         method="exact" if exact else "asymptotic").pvalue)
        results.append((None if np.isnan(value) else value, exact))
    if tied_small:
        columns = np.array(tied_small)
        observed = ranks.sum(axis=0)
        gamma = np.abs(np.finfo(float).eps * 100 * observed)
        less, greater, patterns = _exact_tails(ranks, kept.astype(float), columns, observed, gamma)
        for column, low, high, total in zip(columns, less, greater, patterns, strict=True):
            results[column] = (float(min(1.0, 2 * min(low, high) / total)), True)
    return results


def compare_all(per_item: dict[str, dict[str, float]], systems: Sequence[str], rng: np.random.Generator,
                resamples: int, confidence: float, wilcoxon: bool, difference: Any = None,
                permutation_resamples: int = PERMUTATION_RESAMPLES) -> list[dict[str, Any]]:
    """Every pair (a, b) of `systems` (a before b in the given order): {"a", "b", tests...}. `per_item` maps
    (pair key or system) to {item: value}: for ratings {system: {item: mean}}, d = a - b; for preferences, pass
    `difference(a, b) -> {item: d}`. `resamples`: the bootstrap's; `permutation_resamples`: the random sign
    patterns of the permutation test of a pair with more than EXACT_ITEMS items."""
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
    tests = paired_tests(diffs, present, counts, rng, permutation_resamples, confidence, wilcoxon)
    return [{"a": a, "b": b, **row} for (a, b), row in zip(pairs, tests, strict=True)]


def _rating_difference(per_item: dict[str, dict[str, float]], a: str, b: str) -> dict[str, float]:
    first, second = per_item.get(a, {}), per_item.get(b, {})
    return {item: first[item] - second[item] for item in first.keys() & second.keys()}
