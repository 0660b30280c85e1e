"""Agreement of ratings on a scale (Likert 1-5, grades 1-4): Krippendorff's alpha through the `krippendorff`
package, and what no package gives: each unit's mean rating and each rating's agreement with the others.

A rating's agreement is chance-corrected closeness (written here; alpha itself is only campaign-wide):

    1 - (mean |r - o| over the other ratings o of the same unit) / (mean |a - b| over all pairs of ratings
        given to units with at least two ratings)

clipped to [0, 1]: 1 is the same rating as every other rater, 0 no closer to them than two ratings picked at
random. A rater who gives the same rating to everything scores low when the others vary, because their
distance to the others is about the chance distance (with the plain 1 - |r - mean| / (max - min) a constant 3 on
a 1-5 scale would still score 0.7). When every rating is the same, every rating agrees fully (1)."""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

LIKERT = (1, 2, 3, 4, 5)
LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def alpha(reliability_data: Sequence[Sequence[float]], value_domain: Sequence[int] = LIKERT,
          level: str = "ordinal") -> float | None:
    """Krippendorff's alpha of coders x units reliability data (NaN where a coder did not rate a unit), at the
    given level of measurement (ordinal unless told; the package's default would be interval). None when alpha is
    undefined: no unit rated twice, or one value only."""
    import numpy as np

    data = np.asarray(reliability_data, dtype=float)
    if data.ndim != 2 or data.size == 0:
        return None
    counts = np.array([[np.sum(column == value) for value in value_domain] for column in data.T])
    return value_counts_alpha(counts, value_domain, level)


def unit_alpha(units: Sequence[Sequence[int]], value_domain: Sequence[int] = LIKERT,
               level: str = "ordinal") -> float | None:
    """Krippendorff's alpha of the ratings each unit got (any number of raters per unit; raters need no identity:
    alpha depends only on the values within each unit), from a units x values count matrix, so that 10k units
    rated by hundreds of raters need no coders x units matrix."""
    import numpy as np

    index = {value: column for column, value in enumerate(value_domain)}
    counts = np.zeros((len(units), len(value_domain)), dtype=float)
    for row, ratings in enumerate(units):
        for rating in ratings:
            if rating not in index:
                raise ValueError(f"rating {rating!r} is not in the scale {list(value_domain)}")
            counts[row, index[rating]] += 1
    return value_counts_alpha(counts, value_domain, level)


def value_counts_alpha(counts: object, value_domain: Sequence[float], level: str) -> float | None:
    import krippendorff
    import numpy as np

    if level not in LEVELS:
        raise ValueError(f"level of measurement must be one of {', '.join(LEVELS)}, not {level!r}")
    matrix = np.asarray(counts, dtype=float)
    pairable = matrix[matrix.sum(axis=1) >= 2] if matrix.size else matrix
    if pairable.size == 0 or np.count_nonzero(pairable.sum(axis=0)) < 2:
        return None  # nothing to compare, or one value only: alpha is 0/0
    with np.errstate(divide="ignore", invalid="ignore"):
        value = krippendorff.alpha(value_counts=pairable, value_domain=list(value_domain),
                                   level_of_measurement=level)
    return _finite(float(value))


def unit_means(units: Sequence[Sequence[float]]) -> list[float | None]:
    """Each unit's mean rating (None for a unit nobody rated)."""
    return [sum(ratings) / len(ratings) if ratings else None for ratings in units]


def chance_distance(units: Sequence[Sequence[float]]) -> float:
    """Mean |a - b| over all pairs of distinct ratings given to units rated at least twice (any units): what two
    ratings picked at random differ by. Computed from the value counts, O(values squared)."""
    counts = Counter(rating for ratings in units if len(ratings) >= 2 for rating in ratings)
    total = sum(counts.values())
    if total < 2:
        return 0.0
    spread = sum(n_a * n_b * abs(a - b) for a, n_a in counts.items() for b, n_b in counts.items())
    return spread / (total * (total - 1))


def answer_agreement(units: Sequence[Sequence[float]]) -> list[list[float | None]]:
    """Per unit, per rating (in the order given) its agreement with the unit's other ratings (see the module's
    docstring); None for the only rating of a unit."""
    chance = chance_distance(units)
    result: list[list[float | None]] = []
    for ratings in units:
        if len(ratings) < 2:
            result.append([None] * len(ratings))
            continue
        row: list[float | None] = []
        for index, rating in enumerate(ratings):
            others = [other for n, other in enumerate(ratings) if n != index]
            distance = sum(abs(rating - other) for other in others) / len(others)
            row.append(1.0 if chance == 0 else min(1.0, max(0.0, 1.0 - distance / chance)))
        result.append(row)
    return result
