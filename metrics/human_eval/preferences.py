"""Pairwise preferences with ties: win rates, the pairwise win matrix and Bradley-Terry scores.

A tie counts as half a win for each side everywhere here: a pair's win rate is (wins + ties / 2) / judgements,
and the Bradley-Terry model is fitted on the matrix of wins in which each tie adds 0.5 to both cells (the usual
reduction of ties to the plain model; it keeps the model of `choix` and needs no tie parameter).

Bradley-Terry: P(i preferred to j) = 1 / (1 + exp(s_j - s_i)). The scores s are the maximum-likelihood estimate of
`choix.ilsr_pairwise_dense` (iterative Luce spectral ranking, Maystre and Grossglauser 2015), natural-log
strengths centred at 0. The estimate exists (is finite) only when every system can be reached from every other
through wins (the win graph is strongly connected); otherwise, and only then, the fit is regularised with
`choix`'s alpha = REGULARISATION (a small pseudo-count on every pair) and the result says so. The intervals
resample items (every judgement of a drawn item comes along), percentile; a resample whose win graph is not
strongly connected is fitted with the same regularisation, and their number is reported.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from metrics.human_eval.bootstrap import percentile_interval, resample_counts
from metrics.human_eval.records import TIE, Preference

REGULARISATION = 0.01
MAX_ITER = 1000
TOL = 1e-8


def systems_of(preferences: Sequence[Preference]) -> list[str]:
    return sorted({p.system for p in preferences} | {p.other for p in preferences})


def item_wins(preferences: Sequence[Preference], systems: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """The items (sorted) and an (items, systems, systems) array: [k, i, j] the wins of i over j on item k, a tie
    adding 0.5 to [k, i, j] and to [k, j, i]."""
    position = {name: n for n, name in enumerate(systems)}
    items = sorted({p.item for p in preferences})
    item_position = {item: n for n, item in enumerate(items)}
    wins = np.zeros((len(items), len(systems), len(systems)))
    for p in preferences:
        k, a, b = item_position[p.item], position[p.system], position[p.other]
        if p.choice == TIE:
            wins[k, a, b] += 0.5
            wins[k, b, a] += 0.5
        elif p.choice == p.system:
            wins[k, a, b] += 1.0
        else:
            wins[k, b, a] += 1.0
    return items, wins


def pair_table(preferences: Sequence[Preference]) -> list[dict[str, Any]]:
    """One row per pair of systems compared (a before b alphabetically): judgements, wins of a, wins of b, ties,
    a's win rate with ties as half a win, and a's share of the decided judgements (None when all are ties)."""
    counts: dict[tuple[str, str], list[int]] = {}
    for p in preferences:
        a, b = sorted((p.system, p.other))
        row = counts.setdefault((a, b), [0, 0, 0])
        row[2 if p.choice == TIE else 0 if p.choice == a else 1] += 1
    table = []
    for (a, b), (wins_a, wins_b, ties) in sorted(counts.items()):
        n = wins_a + wins_b + ties
        table.append({"a": a, "b": b, "judgements": n, "wins_a": wins_a, "wins_b": wins_b, "ties": ties,
                      "win_rate_a": (wins_a + ties / 2) / n,
                      "decided_win_rate_a": wins_a / (wins_a + wins_b) if wins_a + wins_b else None})
    return table


def win_matrix(wins: np.ndarray) -> list[list[float | None]]:
    """[i][j]: the share of judgements between i and j that i won (ties as half), None where never compared or
    on the diagonal. `wins` is the (systems, systems) matrix of wins with ties as halves."""
    total = wins + wins.T
    return [[float(wins[i, j] / total[i, j]) if total[i, j] > 0 else None for j in range(len(wins))]
            for i in range(len(wins))]


def win_rates(wins: np.ndarray) -> np.ndarray:
    """Each system's share of all its judgements that it won (ties as half), NaN for a system never judged."""
    judged = wins.sum(axis=1) + wins.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return wins.sum(axis=1) / judged


def strongly_connected(wins: np.ndarray) -> bool:
    from scipy.sparse.csgraph import connected_components

    count, _ = connected_components(wins > 0, directed=True, connection="strong")
    return bool(count == 1)


def fit(wins: np.ndarray, initial: np.ndarray | None = None) -> tuple[np.ndarray, bool]:
    """Bradley-Terry scores of a (systems, systems) win matrix and whether the fit had to be regularised."""
    import choix

    regularised = not strongly_connected(wins)
    alpha = REGULARISATION if regularised else 0.0
    scores = choix.ilsr_pairwise_dense(wins, alpha=alpha, initial_params=initial, max_iter=MAX_ITER, tol=TOL)
    return np.asarray(scores, dtype=float), regularised


def bradley_terry(preferences: Sequence[Preference], rng: np.random.Generator, resamples: int,
                  confidence: float) -> dict[str, Any]:
    """{"systems": {system: {score, low, high, win_rate, win_low, win_high}} best first, "regularised": bool,
    "regularised_resamples": int, "win_matrix": {"systems": [...], "rates": [[...]]}} for one aspect's preferences.
    A system's win rate is the share of all its judgements that it won (ties as half), with the percentile interval
    of the same item resamples as its score."""
    systems = systems_of(preferences)
    _, per_item = item_wins(preferences, systems)
    total = per_item.sum(axis=0)
    scores, regularised = fit(total)
    counts = resample_counts(rng, per_item.shape[0], resamples)
    flat = per_item.reshape(per_item.shape[0], -1)
    distribution = np.empty((resamples, len(systems)))
    win_distribution = np.empty((resamples, len(systems)))
    regularised_resamples = 0
    for row in range(resamples):
        resampled = (counts[row] @ flat).reshape(len(systems), len(systems))
        distribution[row], was_regularised = fit(resampled, initial=scores)
        win_distribution[row] = win_rates(resampled)
        regularised_resamples += was_regularised
    rates = win_rates(total)
    rows = {}
    for n in sorted(range(len(systems)), key=lambda n: (-scores[n], systems[n])):
        low, high = percentile_interval(distribution[:, n], confidence)
        win_low, win_high = percentile_interval(win_distribution[:, n], confidence)
        rows[systems[n]] = {"score": float(scores[n]), "low": low, "high": high,
                            "win_rate": None if np.isnan(rates[n]) else float(rates[n]),
                            "win_low": win_low, "win_high": win_high}
    return {"systems": rows, "regularised": regularised, "regularised_resamples": regularised_resamples,
            "win_matrix": {"systems": systems, "rates": win_matrix(total)}}
