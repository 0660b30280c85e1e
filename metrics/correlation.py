"""Correlation of automatic scores with human ratings: Pearson r, Spearman rho, Kendall tau, each with its p-value.

The VIST paper's Table 4: every automatic metric's per-story score against the story's mean human rating. Values
come from `scipy.stats` (`pearsonr`; `spearmanr`; `kendalltau`, tau-b, exact p-value for small samples without ties,
the normal approximation otherwise); p-values are two-sided.

Pairs where either value is missing (None or NaN) are dropped first; `n` counts the pairs used. When fewer than 3
pairs remain, or when either side is constant (a correlation is undefined), every value is None and `note` says
why, instead of raising or returning NaN.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TypeGuard

MIN_PAIRS = 3
FIELDS = ("pearson_r", "pearson_p", "spearman_rho", "spearman_p", "kendall_tau", "kendall_p")


@dataclass(frozen=True)
class Correlation:
    n: int
    pearson_r: float | None = None
    pearson_p: float | None = None
    spearman_rho: float | None = None
    spearman_p: float | None = None
    kendall_tau: float | None = None
    kendall_p: float | None = None
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
        pearson = stats.pearsonr(xs, ys)
        spearman = stats.spearmanr(xs, ys)
        kendall = stats.kendalltau(xs, ys)
    return Correlation(
        n,
        pearson_r=_finite(pearson.statistic), pearson_p=_finite(pearson.pvalue),
        spearman_rho=_finite(spearman.statistic), spearman_p=_finite(spearman.pvalue),
        kendall_tau=_finite(kendall.statistic), kendall_p=_finite(kendall.pvalue),
    )


def correlation_table(metrics: Mapping[str, Sequence[float | None]],
                      ratings: Sequence[float | None]) -> dict[str, dict[str, float | int | str | None]]:
    """{metric: {n, pearson_r, pearson_p, spearman_rho, spearman_p, kendall_tau, kendall_p, note}} (Table 4)."""
    return {name: correlate(scores, ratings).as_dict() for name, scores in metrics.items()}
