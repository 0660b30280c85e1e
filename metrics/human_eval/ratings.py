"""Absolute ratings: each system's mean rating per aspect, with a percentile bootstrap interval.

The mean is over every rating the system got on the aspect. The interval resamples items (the test set is the
sample the claim generalises over), the same item draws for every system, so a system's interval and the
difference of two systems come from the same resamples. With `resample="items+judges"` the judges are resampled
too, independently of the items (the crossed two-way bootstrap: a rating's weight in a resample is the number of
times its item was drawn times the number of times its judge was drawn): wider intervals, for a claim that also
generalises over the crowd. A resample in which a system has no rating leaves that resample out of its interval.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from metrics.human_eval.bootstrap import percentile_interval, resample_counts
from metrics.human_eval.records import Rating

RESAMPLING = ("items", "items+judges")
CHUNK = 100  # resamples weighed at once in the items+judges bootstrap (bounded memory: CHUNK x ratings floats)


def _index(values: Sequence[str]) -> tuple[list[str], np.ndarray]:
    names = sorted(set(values))
    position = {name: n for n, name in enumerate(names)}
    return names, np.fromiter((position[value] for value in values), dtype=np.intp, count=len(values))


def system_item_means(ratings: Sequence[Rating]) -> dict[str, dict[str, float]]:
    """{system: {item: mean rating of the system's output on the item}} (one aspect's ratings)."""
    sums: dict[tuple[str, str], list[float]] = {}
    for rating in ratings:
        entry = sums.setdefault((rating.system, rating.item), [0.0, 0.0])
        entry[0] += rating.value
        entry[1] += 1
    result: dict[str, dict[str, float]] = {}
    for (system, item), (total, count) in sums.items():
        result.setdefault(system, {})[item] = total / count
    return result


def bootstrap_means(ratings: Sequence[Rating], rng: np.random.Generator, resamples: int,
                    resample: str = "items") -> tuple[list[str], np.ndarray, np.ndarray]:
    """The systems (sorted), their mean ratings and the (resamples, systems) bootstrap distribution of the means."""
    if resample not in RESAMPLING:
        raise ValueError(f"resample must be one of {', '.join(RESAMPLING)}, not {resample!r}")
    systems, system = _index([rating.system for rating in ratings])
    items, item = _index([rating.item for rating in ratings])
    values = np.fromiter((rating.value for rating in ratings), dtype=float, count=len(ratings))
    n_systems, n_items = len(systems), len(items)
    means = np.bincount(system, values, n_systems) / np.bincount(system, minlength=n_systems)
    item_counts = resample_counts(rng, n_items, resamples)
    if resample == "items":
        cell = system * n_items + item
        sums = np.bincount(cell, values, n_systems * n_items).reshape(n_systems, n_items)
        counts = np.bincount(cell, minlength=n_systems * n_items).reshape(n_systems, n_items).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            return systems, means, (item_counts @ sums.T) / (item_counts @ counts.T)
    judges, judge = _index([rating.judge for rating in ratings])
    judge_counts = resample_counts(rng, len(judges), resamples)
    one_hot = np.zeros((len(ratings), n_systems))
    one_hot[np.arange(len(ratings)), system] = 1.0
    distribution = np.empty((resamples, n_systems))
    for start in range(0, resamples, CHUNK):
        weights = item_counts[start:start + CHUNK, item] * judge_counts[start:start + CHUNK, judge]
        with np.errstate(invalid="ignore", divide="ignore"):
            distribution[start:start + CHUNK] = ((weights * values) @ one_hot) / (weights @ one_hot)
    return systems, means, distribution


def rating_summary(ratings: Sequence[Rating], rng: np.random.Generator, resamples: int, confidence: float,
                   resample: str = "items") -> dict[str, dict[str, Any]]:
    """{system: {mean, low, high, ratings, items}} for one aspect's ratings, systems by mean (best first)."""
    systems, means, distribution = bootstrap_means(ratings, rng, resamples, resample)
    sizes: dict[str, int] = {}
    items: dict[str, set[str]] = {}
    for rating in ratings:
        sizes[rating.system] = sizes.get(rating.system, 0) + 1
        items.setdefault(rating.system, set()).add(rating.item)
    rows = {}
    for column in sorted(range(len(systems)), key=lambda n: (-means[n], systems[n])):
        low, high = percentile_interval(distribution[:, column], confidence)
        name = systems[column]
        rows[name] = {"mean": float(means[column]), "low": low, "high": high, "ratings": sizes[name],
                      "items": len(items[name])}
    return rows
