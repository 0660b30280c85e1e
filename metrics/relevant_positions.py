"""Where the relevant items of each query fall in its ranking (ranking.py's judged metrics): per query the
number R of relevant items, how many are among the first R and the position of the first, under the pessimistic
tie rule. NumPy, no Django.

Cost: with few relevant items per query (judged pools are sparse: the top k of some systems per query), (relevant
pairs) x (items per query) comparisons in chunks of bounded memory; with many (on average more than 4 log2 of the
items per query), one sort of every query instead."""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

_CHUNK = 2_000_000  # comparisons per chunk (bounds the temporary bool matrix to a few MB)
# Sorting every query costs about n log n, comparing (relevant items) x n: sort above this many relevant items per
# query (on average) times log2 of the items per query (measured: the crossover is near 4 on 1,000 and 5,000 items).
_SORT_FACTOR = 4.0


def relevant_positions(scores: NDArray[np.float64], relevant: NDArray[np.bool_]) -> tuple[NDArray[np.int64], ...]:
    """Per query (row), the number R of relevant items, how many of them are among the first R, and the position
    of the first relevant one (0 when R = 0), all under the pessimistic tie rule.

    A relevant item's position is its place among the relevant items (score descending) plus the non-relevant
    items scoring at least as high. Few relevant items per query: count those by comparison; many: sort."""
    n_queries, n_items = scores.shape
    if np.count_nonzero(relevant) > _SORT_FACTOR * np.log2(max(n_items, 2)) * n_queries:
        return _positions_sorted(scores, relevant)
    return _positions_compared(scores, relevant)


def _positions_sorted(scores: NDArray[np.float64], relevant: NDArray[np.bool_]) -> tuple[NDArray[np.int64], ...]:
    n_queries, n_items = scores.shape
    order = np.argsort(-scores, axis=1)  # tied items end up next to each other, in any order
    ordered = np.take_along_axis(scores, order, axis=1)
    rel = np.take_along_axis(relevant, order, axis=1)
    last = np.ones(ordered.shape, dtype=bool)
    last[:, :-1] = ordered[:, 1:] != ordered[:, :-1]
    places = np.arange(n_items, dtype=np.int32)
    tie_end = np.minimum.accumulate(np.where(last, places, n_items)[:, ::-1], axis=1)[:, ::-1]
    seen = np.cumsum(rel, axis=1, dtype=np.int32)  # relevant items up to here: m at a relevant item
    relevant_at_least = np.take_along_axis(seen, tie_end, axis=1)
    position = seen + (tie_end + 1 - relevant_at_least)
    n_relevant = seen[:, -1].astype(np.int64)
    hits = np.count_nonzero(rel & (position <= n_relevant[:, None]), axis=1).astype(np.int64)
    first = np.where(rel, position, n_items + 1).min(axis=1).astype(np.int64)
    first[n_relevant == 0] = 0
    return n_relevant, hits, first


def _positions_compared(scores: NDArray[np.float64], relevant: NDArray[np.bool_]) -> tuple[NDArray[np.int64], ...]:
    n_queries, n_items = scores.shape
    q, j = np.nonzero(relevant)
    r = scores[q, j]
    order = np.lexsort((-r, q))  # by query, then score descending
    q, r = q[order], r[order]
    n_relevant = np.bincount(q, minlength=n_queries)
    start = np.concatenate(([0], np.cumsum(n_relevant)))[q]
    idx = np.arange(q.size)
    m = idx - start + 1  # 1-based place among the query's relevant items
    # Relevant items of the same query scoring at least r: up to the end of r's tie group.
    last = np.ones(q.size, dtype=bool)
    last[:-1] = (q[1:] != q[:-1]) | (r[1:] != r[:-1])
    tie_end = np.minimum.accumulate(np.where(last, idx, q.size)[::-1])[::-1]
    relevant_at_least = tie_end - start + 1
    all_at_least = np.empty(q.size, dtype=np.int64)
    step = max(1, _CHUNK // n_items)
    for lo in range(0, q.size, step):
        hi = min(lo + step, q.size)
        all_at_least[lo:hi] = np.count_nonzero(scores[q[lo:hi]] >= r[lo:hi, None], axis=1)
    position = m + (all_at_least - relevant_at_least)
    hits = np.bincount(q, weights=position <= n_relevant[q], minlength=n_queries).astype(np.int64)
    first = np.zeros(n_queries, dtype=np.int64)
    first[q[m == 1]] = position[m == 1]
    return n_relevant, hits, first
