"""Agreement between judges: Krippendorff's alpha through the `krippendorff` package (metrics.rating_agreement).

Ratings: ordinal alpha per aspect; a unit is one system's output on one item, its values the judges' ratings;
the value domain is the scale given, else the distinct ratings seen. Preferences: nominal alpha per aspect; a
unit is one pair of systems on one item, its value which side was preferred or a tie (three categories, the
pair taken in alphabetical order so that the side shown on screen does not matter). Units judged once do not
count (alpha compares judgements of the same unit); alpha is None when it is undefined (no unit judged twice,
or one value only)."""
from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from metrics.human_eval.records import TIE, Preference, Rating
from metrics.rating_agreement import value_counts_alpha

FIRST, SECOND, TIED = 0, 1, 2


def _counts(units: dict[Hashable, list[float]], domain: Sequence[float]) -> np.ndarray:
    column = {value: n for n, value in enumerate(domain)}
    counts = np.zeros((len(units), len(domain)))
    for row, values in enumerate(units.values()):
        for value in values:
            counts[row, column[value]] += 1
    return counts


def rating_alpha(ratings: Sequence[Rating], scale: Sequence[float] | None = None) -> float | None:
    """Ordinal Krippendorff's alpha of one aspect's ratings."""
    units: dict[Hashable, list[float]] = {}
    for rating in ratings:
        units.setdefault((rating.system, rating.item), []).append(rating.value)
    seen = {rating.value for rating in ratings}
    domain = sorted(seen if scale is None else {float(value) for value in scale})
    if not seen <= set(domain):
        raise ValueError(f"ratings {sorted(seen - set(domain))} are not on the scale {list(scale or [])}")
    return value_counts_alpha(_counts(units, domain), domain, "ordinal")


def preference_alpha(preferences: Sequence[Preference]) -> float | None:
    """Nominal Krippendorff's alpha of one aspect's preferences."""
    units: dict[Hashable, list[float]] = {}
    for p in preferences:
        first, second = sorted((p.system, p.other))
        value = TIED if p.choice == TIE else FIRST if p.choice == first else SECOND
        units.setdefault((p.item, first, second), []).append(value)
    return value_counts_alpha(_counts(units, (FIRST, SECOND, TIED)), (FIRST, SECOND, TIED), "nominal")
