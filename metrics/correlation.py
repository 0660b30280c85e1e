"""Correlation of automatic scores with human ratings: Pearson r, Spearman rho, Kendall tau, each with its p-value
and the method that gave it.

The VIST paper's Table 4: every automatic metric's per-story score against the story's mean human rating; and the
system-level correlations of a human evaluation, often on 3 to 10 systems. Values come from `scipy.stats`; every
p-value is two-sided:

- Pearson: up to EXACT_POINTS pairs, exact: `pearsonr` with a `PermutationMethod` over every pairing (no
  assumption on the distribution); above, `pearsonr`'s t test (exact when the pairs are bivariate normal);
- Spearman: up to EXACT_POINTS pairs (8! = 40,320 orderings), exact: `permutation_test` over every pairing of the
  ranks, ties included (3 systems ranked the same both ways: rho = 1, p = 2/6 = 1/3, not the t approximation's
  0); above, `spearmanr`'s t approximation;
- Kendall (tau-b): without ties up to KENDALL_EXACT_POINTS pairs, `kendalltau`'s exact distribution; with ties up
  to EXACT_POINTS pairs, exact by `permutation_test` over every pairing as for Spearman; otherwise `kendalltau`'s
  normal approximation.

`*_method` names the method of each p-value. Pairs where either value is missing (None or NaN) are dropped first;
`n` counts the pairs used. When fewer than 3 pairs remain, or when either side is constant (a correlation is
undefined), every value is None and `note` says why, instead of raising or returning NaN.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, TypeGuard

import numpy as np

MIN_PAIRS = 3
EXACT_POINTS = 8  # exact permutation p-values up to 8! = 40,320 orderings (about 0.1 s each)
KENDALL_EXACT_POINTS = 33  # scipy's own limit for Kendall's exact distribution without ties
FIELDS = ("pearson_r", "pearson_p", "spearman_rho", "spearman_p", "kendall_tau", "kendall_p")
METHOD_FIELDS = ("pearson_method", "spearman_method", "kendall_method")
PEARSON_METHOD = "t test"


@dataclass(frozen=True)
class Correlation:
    n: int
    pearson_r: float | None = None
    pearson_p: float | None = None
    spearman_rho: float | None = None
    spearman_p: float | None = None
    kendall_tau: float | None = None
    kendall_p: float | None = None
    pearson_method: str | None = None
    spearman_method: str | None = None
    kendall_method: str | None = None
    note: str | None = None

    def as_dict(self) -> dict[str, float | int | str | None]:
        return asdict(self)


def _present(value: float | None) -> TypeGuard[float]:
    return value is not None and not math.isnan(value)


def _finite(value: float) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value


def correlate(scores: Sequence[float | None], ratings: Sequence[float | None]) -> Correlation:
    """Pearson, Spearman and Kendall correlation of `scores` with `ratings` (same order, same length)."""
    if len(scores) != len(ratings):
        raise ValueError(f"{len(scores)} scores but {len(ratings)} ratings")
    pairs = [(float(s), float(r)) for s, r in zip(scores, ratings, strict=True) if _present(s) and _present(r)]
    n = len(pairs)
    if n < MIN_PAIRS:
        return Correlation(n, note=f"needs at least {MIN_PAIRS} rated items, got {n}")
    xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
    constant = [name for name, values in (("scores", xs), ("ratings", ys)) if len(set(values)) == 1]
    if constant:
        return Correlation(n, note=f"undefined: the {' and the '.join(constant)} are constant")
    from scipy import stats  # imported when needed: about 80 MB that other processes need not carry

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if n <= EXACT_POINTS:
            pearson = stats.pearsonr(xs, ys, method=stats.PermutationMethod(n_resamples=np.inf))
            pearson_method = _exact_method(n)
        else:
            pearson, pearson_method = stats.pearsonr(xs, ys), PEARSON_METHOD
        spearman_rho, spearman_p, spearman_method = _spearman(xs, ys)
        kendall_tau, kendall_p, kendall_method = _kendall(xs, ys)
    return Correlation(
        n,
        pearson_r=_finite(pearson.statistic), pearson_p=_finite(pearson.pvalue),
        spearman_rho=spearman_rho, spearman_p=spearman_p,
        kendall_tau=kendall_tau, kendall_p=kendall_p,
        pearson_method=pearson_method, spearman_method=spearman_method, kendall_method=kendall_method,
    )


def _exact_method(n: int) -> str:
    return f"exact: all {math.factorial(n):,} orderings"


def _pairings_p(xs: Sequence[float], ys: Sequence[float], statistic: Callable[..., Any]) -> float:
    """The two-sided p-value of `statistic(x, y)` over every pairing of xs with ys (scipy's exact permutation
    test: the null distribution of all n! orderings)."""
    from scipy import stats

    y = np.asarray(ys, dtype=float)
    result = stats.permutation_test((np.asarray(xs, dtype=float),), lambda x, axis: statistic(x, y, axis),
                                    permutation_type="pairings", n_resamples=np.inf, vectorized=True)
    return float(result.pvalue)


def _rank_correlation(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
    """Spearman's rho of each row of `x` (values, ranked here along `axis`) with `y`."""
    from scipy import stats

    rx = stats.rankdata(x, axis=axis)
    ry = stats.rankdata(y)
    rx = rx - rx.mean(axis=axis, keepdims=True)
    ry = ry - ry.mean()
    return np.sum(rx * ry, axis=axis) / np.sqrt(np.sum(rx * rx, axis=axis) * np.sum(ry * ry))


def _tau_b(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
    """Kendall's tau-b of each row of `x` with `y` (pairs tied on either side count for neither)."""
    x = np.moveaxis(x, axis, -1)
    sx = np.sign(x[..., :, None] - x[..., None, :])
    sy = np.sign(y[:, None] - y[None, :])
    upper = np.triu_indices(len(y), 1)
    concordance = np.sum(sx[..., upper[0], upper[1]] * sy[upper], axis=-1)
    return concordance / np.sqrt(np.sum(sx[..., upper[0], upper[1]] ** 2, axis=-1) * np.sum(sy[upper] ** 2))


def _spearman(xs: Sequence[float], ys: Sequence[float]) -> tuple[float | None, float | None, str]:
    from scipy import stats

    result = stats.spearmanr(xs, ys)
    if len(xs) <= EXACT_POINTS:
        return _finite(result.statistic), _pairings_p(xs, ys, _rank_correlation), _exact_method(len(xs))
    return _finite(result.statistic), _finite(result.pvalue), "t approximation"


def _kendall(xs: Sequence[float], ys: Sequence[float]) -> tuple[float | None, float | None, str]:
    from scipy import stats

    n = len(xs)
    ties = len(set(xs)) < n or len(set(ys)) < n
    if not ties and n <= KENDALL_EXACT_POINTS:
        result = stats.kendalltau(xs, ys, method="exact")
        return _finite(result.statistic), _finite(result.pvalue), "exact: Kendall's distribution (no ties)"
    result = stats.kendalltau(xs, ys, method="asymptotic")
    if n <= EXACT_POINTS:
        return _finite(result.statistic), _pairings_p(xs, ys, _tau_b), _exact_method(n)
    return _finite(result.statistic), _finite(result.pvalue), "normal approximation"


def describe_methods(rows: Iterable[Mapping[str, Any]]) -> str:
    """How the p-values of these correlations were computed, in words: "Pearson and Spearman: exact: all 6
    orderings, Kendall: exact: Kendall's distribution (no ties)" ("" when none has a p-value)."""
    by_method: dict[str, list[str]] = {}
    rows = list(rows)
    for label, key in (("Pearson", "pearson_method"), ("Spearman", "spearman_method"), ("Kendall", "kendall_method")):
        for method in dict.fromkeys(row.get(key) for row in rows if row.get(key)):
            by_method.setdefault(str(method), []).append(label)
    return ", ".join(f"{' and '.join(labels)}: {method}" for method, labels in by_method.items())


def correlation_table(metrics: Mapping[str, Sequence[float | None]],
                      ratings: Sequence[float | None]) -> dict[str, dict[str, float | int | str | None]]:
    """{metric: {n, pearson_r, pearson_p, spearman_rho, spearman_p, kendall_tau, kendall_p, the three methods,
    note}} (Table 4)."""
    return {name: correlate(scores, ratings).as_dict() for name, scores in metrics.items()}
