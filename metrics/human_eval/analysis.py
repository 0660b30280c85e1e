"""The analysis of a human evaluation, from plain judgement records (metrics.human_eval.records) to a JSON-able
dict: per aspect, the ratings' system means with intervals, the preferences' win rates, win matrix and
Bradley-Terry scores with intervals, the paired tests of every pair of systems, Krippendorff's alpha, and the
correlation of automatic metrics with the human scores. One NumPy Generator seeded with `seed` feeds every
resample, drawn in a fixed order (ratings then preferences, aspects in order of first appearance): the same
records and seed give the same dict."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from metrics.human_eval import agreement, correlation, preferences, ratings, significance
from metrics.human_eval.bootstrap import CONFIDENCE, RESAMPLES, generator
from metrics.human_eval.records import Preference, Rating, by_aspect, parse


def analyse(records: Iterable[Mapping[str, Any]], *, seed: int = 0, resamples: int = RESAMPLES,
            permutation_resamples: int = significance.PERMUTATION_RESAMPLES, confidence: float = CONFIDENCE,
            resample: str = "items", scale: Sequence[float] | None = None,
            automatic: correlation.SegmentScores | None = None,
            automatic_systems: correlation.SystemScores | None = None) -> dict[str, Any]:
    """The analysis dict. `automatic` holds segment scores {metric: {system: {item: score}}}, `automatic_systems`
    system scores {metric: {system: score}} (else the mean of the segment scores); `scale` the rating scale (else
    the values seen); `resample` "items" or "items+judges" for the rating intervals; `resamples` the bootstrap's,
    `permutation_resamples` the random sign patterns of a permutation test on more than
    significance.EXACT_ITEMS items (exact by enumeration up to there)."""
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if permutation_resamples < 1:
        raise ValueError(f"permutation_resamples must be at least 1, got {permutation_resamples}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    if resample not in ratings.RESAMPLING:
        raise ValueError(f"resample must be one of {', '.join(ratings.RESAMPLING)}, not {resample!r}")
    rating_records, preference_records = parse(records)
    rng = generator(seed)
    system_automatic = correlation.system_scores_of(automatic or {}, automatic_systems) if (
        automatic or automatic_systems) else {}
    result: dict[str, Any] = {
        "settings": {"seed": seed, "resamples": resamples, "permutation_resamples": permutation_resamples,
                     "permutation_exact_items": significance.EXACT_ITEMS, "confidence": confidence,
                     "rating_resampling": resample, "preference_resampling": "items", "interval": "percentile",
                     "ties": "half a win to each side", "bradley_terry": "choix.ilsr_pairwise_dense"},
        "ratings": {aspect: _ratings(group, rng, resamples, permutation_resamples, confidence, resample, scale,
                                     automatic or {}, system_automatic)
                    for aspect, group in by_aspect(rating_records).items()},
        "preferences": {aspect: _preferences(group, rng, resamples, permutation_resamples, confidence,
                                             system_automatic)
                        for aspect, group in by_aspect(preference_records).items()},
    }
    return result


def _ratings(group: list[Rating], rng: np.random.Generator, resamples: int, permutation_resamples: int,
             confidence: float, resample: str, scale: Sequence[float] | None, automatic: correlation.SegmentScores,
             system_automatic: Mapping[str, Mapping[str, float | None]]) -> dict[str, Any]:
    systems = ratings.rating_summary(group, rng, resamples, confidence, resample)
    per_item = ratings.system_item_means(group)
    result: dict[str, Any] = {
        "judges": len({rating.judge for rating in group}), "items": len({rating.item for rating in group}),
        "ratings": len(group), "systems": systems,
        "comparisons": significance.compare_all(per_item, list(systems), rng, resamples, confidence, wilcoxon=True,
                                                permutation_resamples=permutation_resamples),
        "alpha_ordinal": agreement.rating_alpha(group, scale),
    }
    if automatic or system_automatic:
        means = {system: row["mean"] for system, row in systems.items()}
        result["correlation"] = {"segment": correlation.segment_level(per_item, automatic),
                                 "system": correlation.system_level(means, system_automatic)}
    return result


def _preferences(group: list[Preference], rng: np.random.Generator, resamples: int, permutation_resamples: int,
                 confidence: float, system_automatic: Mapping[str, Mapping[str, float | None]]) -> dict[str, Any]:
    fitted = preferences.bradley_terry(group, rng, resamples, confidence)
    systems = preferences.systems_of(group)
    items, wins = preferences.item_wins(group, systems)
    position = {name: n for n, name in enumerate(systems)}

    def difference(a: str, b: str) -> dict[str, float]:
        i, j = position[a], position[b]
        judged = wins[:, i, j] + wins[:, j, i]
        return {items[k]: float((wins[k, i, j] - wins[k, j, i]) / judged[k]) for k in np.flatnonzero(judged)}

    order = list(fitted["systems"])
    result: dict[str, Any] = {
        "judges": len({p.judge for p in group}), "items": len(items), "judgements": len(group),
        "bradley_terry": fitted["systems"], "regularised": fitted["regularised"],
        "regularised_resamples": fitted["regularised_resamples"],
        "pairs": preferences.pair_table(group), "win_matrix": fitted["win_matrix"],
        "comparisons": significance.compare_all({}, order, rng, resamples, confidence, wilcoxon=False,
                                                difference=difference, permutation_resamples=permutation_resamples),
        "alpha_nominal": agreement.preference_alpha(group),
    }
    if system_automatic:
        scores = {system: row["score"] for system, row in fitted["systems"].items()}
        result["correlation"] = {"system": correlation.system_level(scores, system_automatic)}
    return result
