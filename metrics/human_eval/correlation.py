"""Automatic metrics against human scores (the VIST paper's Table 4, extended to systems), through
metrics.correlation (Pearson, Spearman, Kendall with p-values from scipy; every value None with a note when
undefined: fewer than 3 pairs, or a constant side).

Segment level: one point per (system, item): the metric's score of the system's output on the item against its
mean human rating on the aspect. System level: one point per system: the metric's system score (given, e.g. a
corpus BLEU; else the mean of its segment scores) against the system's mean rating, or, for preferences, its
Bradley-Terry score. Points where either side is missing are left out."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metrics.correlation import correlate

SegmentScores = Mapping[str, Mapping[str, Mapping[Any, float | None]]]  # {metric: {system: {item: score}}}
SystemScores = Mapping[str, Mapping[str, float | None]]  # {metric: {system: score}}


def system_scores_of(segments: SegmentScores, given: SystemScores | None) -> dict[str, dict[str, float | None]]:
    """Each metric's system scores: those given, else the mean of the system's present segment scores."""
    result: dict[str, dict[str, float | None]] = {}
    for metric in sorted(set(segments) | set(given or {})):
        if given and metric in given:
            result[metric] = dict(given[metric])
            continue
        result[metric] = {}
        for system, items in segments[metric].items():
            present = [float(v) for v in items.values() if v is not None]
            result[metric][system] = sum(present) / len(present) if present else None
    return result


def segment_level(human: Mapping[str, Mapping[str, float]], segments: SegmentScores) -> dict[str, dict[str, Any]]:
    """{metric: correlation} of segment scores with `human` {system: {item: mean rating}}."""
    points = [(system, item, value) for system, items in sorted(human.items()) for item, value in sorted(items.items())]
    table = {}
    for metric, per_system in sorted(segments.items()):
        keyed = {system: {str(item): score for item, score in items.items()} for system, items in per_system.items()}
        scores = [keyed.get(system, {}).get(item) for system, item, _ in points]
        table[metric] = correlate(scores, [value for _, _, value in points]).as_dict()
    return table


def system_level(human: Mapping[str, float], systems: Mapping[str, Mapping[str, float | None]]
                 ) -> dict[str, dict[str, Any]]:
    """{metric: correlation} of system scores with `human` {system: score}."""
    names = sorted(human)
    return {metric: correlate([scores.get(name) for name in names], [human[name] for name in names]).as_dict()
            for metric, scores in sorted(systems.items())}
