"""What every interval and test here shares: one seeded NumPy Generator, item resampling drawn as scipy.stats
does (indices uniform on 0..n-1, `resamples` rows of n), and the percentile interval (`numpy.quantile`, linear
interpolation, the same as `scipy.stats.bootstrap(method="percentile")`)."""
from __future__ import annotations

import numpy as np

RESAMPLES = 1000
CONFIDENCE = 0.95


def generator(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def resample_counts(rng: np.random.Generator, n: int, resamples: int) -> np.ndarray:
    """A (resamples, n) matrix: how often each of n units is drawn in each resample (n draws with replacement).
    Drawn as indices with `rng.integers(0, n, (resamples, n))`, the draw scipy.stats.bootstrap makes."""
    indices = rng.integers(0, n, (resamples, n))
    offsets = (np.arange(resamples) * n)[:, None]
    return np.bincount((indices + offsets).ravel(), minlength=resamples * n).reshape(resamples, n).astype(float)


def percentile_interval(values: np.ndarray, confidence: float) -> tuple[float | None, float | None]:
    """The percentile interval of a bootstrap distribution (NaN resamples, where the statistic was undefined,
    left out); (None, None) when no resample gave a value."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return None, None
    tail = (1 - confidence) / 2
    low, high = np.quantile(finite, [tail, 1 - tail])
    return float(low), float(high)


def percentile_intervals(values: np.ndarray, confidence: float) -> list[tuple[float | None, float | None]]:
    """`percentile_interval` of each column of a (resamples, k) matrix."""
    return [percentile_interval(values[:, column], confidence) for column in range(values.shape[1])]
