"""Ranking evaluation of image description and image search (Hodosh, Young & Hockenmaier, 2013); NumPy, no Django.

A system scores every (image, caption) pair of a test pool: a score matrix S of shape (n_images, n_captions),
higher = better. Row i ranks the captions for image i (**description**, axis=1); column j ranks the images for
caption j (**search**, axis=0). `caption_image[j]` is the row of caption j's original image; an image may have
several original captions.

Automatic metrics (the position of the original item):

- description: per image, the 1-based rank of its best-ranked original caption among all captions;
- search: per caption, the 1-based rank of its original image among all images;
- R@k = share of queries whose rank is <= k; median rank = `numpy.median` of the ranks (the mean of the two middle
  ranks for an even number of queries, so it may end in .5).

Ties (one rule everywhere): **pessimistic**. An item tied with the correct item ranks before it, so the rank of
the correct item is 1 + the number of *other, non-correct* items scoring at least as high. Why: a system cannot
gain from ties (a constant matrix, which ranks nothing, gets the worst rank instead of R@1 = 1), the result does
not depend on sort order or index order, and it is the worst any tie-breaking could give (a reported R@k is
reached whatever order the tied items come in; the average rank would reward ties with a half-credit). Several correct
items tied with each other do not push each other down (for an image with two originals tied at the top, the
first correct caption is at rank 1). The same rule holds with relevance judgements: among tied items, the
non-relevant ones come first.

Judged metrics take a bool matrix `relevant` of the shape of S: True = the pair was judged relevant.
**Unjudged pairs count as not relevant** (the pooled-judging convention: pairs outside every system's top k are
assumed not to describe the image), as do pairs judged not relevant. For a query with R > 0 relevant items:

- R-precision = (relevant items among the first R) / R;
- success@k = 1 when at least one relevant item is among the first k, else 0.

Both are averaged over the queries with at least one relevant item; queries with none are left out (their count
is reported by `evaluate_matrix`). `evaluate_matrix` adds every original pair to `relevant` by default (an
original caption describes its image by construction), so there every query has one.
Where the relevant items fall (and what that costs): `metrics.relevant_positions`.

`top_k` lists the k best items per query, best first; among tied items the lower index comes first (a list has
to pick an order; this makes the pooled pairs deterministic).

Agreement: `cohen_kappa` is written out here (a 2x2 or k x k confusion matrix, a few lines) rather than adding
scikit-learn for one function; `kappa_at_thresholds` compares binary crowd judgements with graded expert scores
on the Flickr8k release's scale (4 = describes the image without errors ... 1 = unrelated) read as relevant when
grade >= t, t = 4, 3, 2; kappa is None (undefined, 0/0) when both raters give every item the same label. A pair
graded by several experts takes `expert_grade`: the median of its grades, and with an even number of grades the
better of the two middle ones ({4, 3} is 4, {4, 4, 2, 1} is 4), the rule the platform kept before and after grades
moved to the release's scale.
`spearman_rho` (SciPy) compares two orderings of systems, e.g. by R@k and by R-precision (None when one of
them gives every system the same value).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from metrics.relevant_positions import relevant_positions

DESCRIPTION = 1  # axis: each row (image) ranks the captions
SEARCH = 0  # axis: each column (caption) ranks the images
RECALL_KS = (1, 5, 10)
SUCCESS_KS = (1, 5, 10)
THRESHOLDS = (4, 3, 2)  # relevant when grade >= t (4 describes the image without errors)
GRADES = (1, 2, 3, 4)


def _scores(S: ArrayLike) -> NDArray[np.float64]:
    matrix = np.asarray(S, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError(f"the score matrix must be 2-D (images x captions), not of shape {matrix.shape}")
    if matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise ValueError(f"the score matrix is empty (shape {matrix.shape})")
    bad = ~np.isfinite(matrix)
    if bad.any():
        row, col = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(f"score matrix [{row}, {col}] is {matrix[row, col]}: every score must be a finite number")
    return matrix


def _caption_image(caption_image: ArrayLike, n_images: int, n_captions: int) -> NDArray[np.intp]:
    owners = np.asarray(caption_image)
    if owners.ndim != 1 or owners.shape[0] != n_captions:
        raise ValueError(f"caption_image must list one image index per caption ({n_captions}), "
                         f"not shape {owners.shape}")
    if owners.size and not np.issubdtype(owners.dtype, np.integer):
        raise ValueError(f"caption_image must hold integer image indices, not {owners.dtype}")
    outside = (owners < 0) | (owners >= n_images)
    if outside.any():
        j = int(np.flatnonzero(outside)[0])
        raise ValueError(f"caption_image[{j}] = {int(owners[j])} is not an image index (0..{n_images - 1})")
    return owners.astype(np.intp)


def _relevant(relevant: ArrayLike, shape: tuple[int, ...]) -> NDArray[np.bool_]:
    matrix = np.asarray(relevant)
    if matrix.shape != shape:
        raise ValueError(f"the relevance matrix has shape {matrix.shape}, the score matrix {shape}")
    if matrix.dtype != np.bool_:
        raise ValueError(f"the relevance matrix must be bool (True = judged relevant), not {matrix.dtype}")
    return matrix


def _axis(axis: int) -> int:
    if axis not in (DESCRIPTION, SEARCH):
        raise ValueError(f"axis must be 1 (description: captions per image) or 0 (search: images per caption), "
                         f"not {axis}")
    return axis


def original_mask(caption_image: ArrayLike, n_images: int) -> NDArray[np.bool_]:
    """The bool matrix (n_images, n_captions) of the original pairs: True at [caption_image[j], j]."""
    owners = _caption_image(caption_image, n_images, len(np.asarray(caption_image)))
    mask = np.zeros((n_images, owners.shape[0]), dtype=bool)
    mask[owners, np.arange(owners.shape[0])] = True
    return mask


def description_ranks(S: ArrayLike, caption_image: ArrayLike) -> NDArray[np.int64]:
    """Per image, the 1-based rank of its best-ranked original caption among all captions (pessimistic ties)."""
    scores = _scores(S)
    n_images, n_captions = scores.shape
    owners = _caption_image(caption_image, n_images, n_captions)
    counts = np.bincount(owners, minlength=n_images)
    if (counts == 0).any():
        i = int(np.flatnonzero(counts == 0)[0])
        raise ValueError(f"image {i} has no original caption, so it has no description rank")
    columns = np.arange(n_captions)
    original = scores[owners, columns]
    best = np.full(n_images, -np.inf)
    np.maximum.at(best, owners, original)
    at_least = (scores >= best[:, None]).sum(axis=1)
    originals_at_least = np.bincount(owners, weights=original >= best[owners], minlength=n_images)
    return (at_least - originals_at_least.astype(np.int64) + 1).astype(np.int64)


def search_ranks(S: ArrayLike, caption_image: ArrayLike) -> NDArray[np.int64]:
    """Per caption, the 1-based rank of its original image among all images (pessimistic ties)."""
    scores = _scores(S)
    owners = _caption_image(caption_image, *scores.shape)
    original = scores[owners, np.arange(scores.shape[1])]
    return (scores >= original[None, :]).sum(axis=0).astype(np.int64)


def _ranks(ranks: ArrayLike) -> NDArray[np.float64]:
    values = np.asarray(ranks, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError("ranks must be a non-empty 1-D sequence")
    if (values < 1).any() or not np.isfinite(values).all():
        raise ValueError(f"rank at index {int(np.flatnonzero((values < 1) | ~np.isfinite(values))[0])} "
                         "is not a rank (>= 1)")
    return values


def recall_at(ranks: ArrayLike, k: int) -> float:
    """R@k: the share of queries whose original item is among the first k."""
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")
    return float(np.mean(_ranks(ranks) <= k))


def median_rank(ranks: ArrayLike) -> float:
    """The median rank of the original item."""
    return float(np.median(_ranks(ranks)))


def top_k(S: ArrayLike, k: int, axis: int) -> NDArray[np.intp]:
    """The indices of the k best items per query, best first, shape (n_queries, k).

    axis=1 (description): per image (row), the k best captions; axis=0 (search): per caption (column), the k
    best images. k larger than the number of items gives them all. Ties: the lower index first."""
    scores = _scores(S)
    queries = scores if _axis(axis) == DESCRIPTION else scores.T
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")
    n_queries, n_items = queries.shape
    k = min(k, n_items)
    if k == n_items:
        return np.argsort(-queries, axis=1, kind="stable")
    chosen = np.argpartition(-queries, k - 1, axis=1)[:, :k]
    chosen_scores = np.take_along_axis(queries, chosen, axis=1)
    # Best first, ties by index: sort on (score descending, index) within the k chosen.
    order = np.lexsort((chosen, -chosen_scores), axis=1)
    chosen = np.take_along_axis(chosen, order, axis=1)
    # Where items tie with the k-th score beyond the k places, argpartition picked among them arbitrarily:
    # those queries are sorted in full (stable: the lower index first).
    kth = np.take_along_axis(chosen_scores, order[:, -1:], axis=1)
    crowded = np.flatnonzero((queries >= kth).sum(axis=1) > k)
    if crowded.size:
        chosen[crowded] = np.argsort(-queries[crowded], axis=1, kind="stable")[:, :k]
    return chosen




def _judged_queries(S: ArrayLike, relevant: ArrayLike, axis: int) -> tuple[NDArray[np.int64], ...]:
    scores = _scores(S)
    judged = _relevant(relevant, scores.shape)
    if _axis(axis) == SEARCH:
        scores, judged = np.ascontiguousarray(scores.T), judged.T
    return relevant_positions(scores, judged)


def _r_precision(n_relevant: NDArray[np.int64], hits: NDArray[np.int64]) -> float:
    scored = n_relevant > 0
    if not scored.any():
        raise ValueError("no query has a relevant item: R-precision is undefined")
    return float(np.mean(hits[scored] / n_relevant[scored]))


def _success(n_relevant: NDArray[np.int64], first: NDArray[np.int64], k: int) -> float:
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")
    scored = n_relevant > 0
    if not scored.any():
        raise ValueError("no query has a relevant item: success@k is undefined")
    return float(np.mean(first[scored] <= k))


def r_precision(S: ArrayLike, relevant: ArrayLike, axis: int) -> float:
    """Mean R-precision over the queries with at least one relevant item (unjudged = not relevant)."""
    n_relevant, hits, _ = _judged_queries(S, relevant, axis)
    return _r_precision(n_relevant, hits)


def success_at(S: ArrayLike, relevant: ArrayLike, k: int, axis: int) -> float:
    """Share of the queries with a relevant item that have one among their first k (unjudged = not relevant)."""
    n_relevant, _, first = _judged_queries(S, relevant, axis)
    return _success(n_relevant, first, k)


def cohen_kappa(a: ArrayLike, b: ArrayLike) -> float | None:
    """Cohen's kappa of two raters' labels for the same items: (p_o - p_e) / (1 - p_e).

    None when it is undefined: both raters give every item one and the same label, so p_e = p_o = 1 and kappa is
    0/0 (as `spearman_rho` is None for a constant ordering)."""
    first, second = np.asarray(a), np.asarray(b)
    if first.ndim != 1 or first.shape != second.shape:
        raise ValueError(f"the two raters must label the same items: shapes {first.shape} and {second.shape}")
    if first.size == 0:
        raise ValueError("no items to compare")
    labels, codes = np.unique(np.concatenate([first, second]), return_inverse=True)
    n = first.size
    confusion = np.zeros((labels.size, labels.size))
    np.add.at(confusion, (codes[:n], codes[n:]), 1)
    confusion /= n
    observed = float(np.trace(confusion))
    expected = float(confusion.sum(axis=1) @ confusion.sum(axis=0))
    if 1.0 - expected <= 1e-12:
        return None
    return (observed - expected) / (1.0 - expected)


def expert_grade(grades: Sequence[int]) -> int:
    """The grade of a pair from its experts' grades (4 describes the image ... 1 unrelated): the median, and with
    an even number of grades the better (higher) of the two middle ones."""
    if not grades:
        raise ValueError("a pair needs at least one grade")
    return sorted(grades)[len(grades) // 2]


def kappa_at_thresholds(binary: ArrayLike, grades: ArrayLike) -> dict[int, float | None]:
    """Kappa between binary judgements (True = relevant) and graded scores (4 describes the image ... 1 unrelated)
    read as relevant when grade >= t (None at a threshold where both are constant and equal: undefined)."""
    crowd = np.asarray(binary)
    expert = np.asarray(grades)
    if crowd.dtype != np.bool_:
        raise ValueError(f"binary judgements must be bool (True = relevant), not {crowd.dtype}")
    if crowd.shape != expert.shape:
        raise ValueError(f"{crowd.shape[0] if crowd.ndim else 0} binary judgements but "
                         f"{expert.shape[0] if expert.ndim else 0} grades: one each per pair")
    outside = ~np.isin(expert, GRADES)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise ValueError(f"grade at index {i} is {expert[i]!r}, not one of {GRADES}")
    return {t: cohen_kappa(crowd, expert >= t) for t in THRESHOLDS}


def spearman_rho(x: ArrayLike, y: ArrayLike) -> float | None:
    """Spearman's rank correlation of two scorings of the same systems (ties get average ranks).

    None when either scoring gives every system the same value: there is no ordering to compare (SciPy would
    give NaN, which JSON cannot hold)."""
    first, second = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if first.ndim != 1 or first.shape != second.shape:
        raise ValueError(f"the two scorings must cover the same systems: shapes {first.shape} and {second.shape}")
    if first.size < 2:
        raise ValueError("Spearman's rho needs at least two systems")
    if np.ptp(first) == 0 or np.ptp(second) == 0:
        return None
    return float(stats.spearmanr(first, second).statistic)


def _ranked_scores(n_queries: int, n_items: int, lists: Mapping[int, Sequence[int]], direction: str,
                   query: str, item: str) -> NDArray[np.float64]:
    scores = np.zeros((n_queries, n_items))
    for key, ranked in lists.items():
        if not isinstance(key, (int, np.integer)) or not 0 <= key < n_queries:
            raise ValueError(f"{direction}: {key!r} is not one of the {query} indices (0..{n_queries - 1})")
        seen: set[int] = set()
        for position, index in enumerate(ranked):
            if not isinstance(index, (int, np.integer)) or not 0 <= index < n_items:
                raise ValueError(f"{direction}: {query} {key}, position {position}: {index!r} is not one "
                                 f"of the {item} indices (0..{n_items - 1})")
            if index in seen:
                raise ValueError(f"{direction}: {query} {key}, position {position}: {item} {index} is ranked twice")
            seen.add(int(index))
        if ranked:
            scores[key, np.asarray(ranked, dtype=np.intp)] = np.arange(len(ranked), 0, -1)
    return scores


def scores_from_rankings(n_images: int, n_captions: int, description: Mapping[int, Sequence[int]] | None,
                         search: Mapping[int, Sequence[int]] | None
                         ) -> tuple[NDArray[np.float64] | None, NDArray[np.float64] | None]:
    """Score matrices (n_images, n_captions) from ranked lists of indices, best first.

    description: {image index: [caption index, ...]}; search: {caption index: [image index, ...]}. A list of
    length L gives its items the scores L, L-1, ..., 1; unranked items (and queries without a list) score 0,
    below every ranked one, and tie among themselves (so, pessimistically, they rank after the listed items and
    after each other). A direction given as None gives None."""
    if n_images < 1 or n_captions < 1:
        raise ValueError(f"a pool needs images and captions, not {n_images} x {n_captions}")
    by_image = (None if description is None else
                _ranked_scores(n_images, n_captions, description, "description", "image", "caption"))
    by_caption = (None if search is None else
                  _ranked_scores(n_captions, n_images, search, "search", "caption", "image").T.copy())
    return by_image, by_caption


def _direction(scores: NDArray[np.float64], ranks: NDArray[np.int64],
               relevant: NDArray[np.bool_] | None) -> dict[str, Any]:
    result: dict[str, Any] = {f"R@{k}": recall_at(ranks, k) for k in RECALL_KS}
    result["median_rank"] = median_rank(ranks)
    result["queries"] = int(ranks.size)
    if relevant is not None:
        n_relevant, hits, first = relevant_positions(np.ascontiguousarray(scores), relevant)
        scored = int((n_relevant > 0).sum())
        result["queries_with_relevant"] = scored
        result["r_precision"] = _r_precision(n_relevant, hits) if scored else None
        for k in SUCCESS_KS:
            result[f"success@{k}"] = _success(n_relevant, first, k) if scored else None
    return result


def evaluate_matrix(S: ArrayLike, caption_image: ArrayLike, relevant: ArrayLike | None = None, *,
                    judged: ArrayLike | None = None, originals_relevant: bool = True) -> dict[str, Any]:
    """Every metric for both directions, as JSON-able numbers.

    {"description": {"R@1", "R@5", "R@10", "median_rank", "queries"}, "search": {...}}; with `relevant` each
    direction also has "r_precision", "success@1", "success@5", "success@10" and "queries_with_relevant", and the
    top level "relevant_pairs" (True in the relevance matrix used, originals included) and "judged_pairs"
    (True in `judged`, the bool matrix of the pairs that have a judgement; None when it is not given).
    `originals_relevant` adds the original pairs to `relevant`."""
    scores = _scores(S)
    owners = _caption_image(caption_image, *scores.shape)
    result: dict[str, Any] = {}
    matrix: NDArray[np.bool_] | None = None
    if relevant is not None:
        matrix = _relevant(relevant, scores.shape)
        if originals_relevant:
            matrix = matrix | original_mask(owners, scores.shape[0])
    result["description"] = _direction(scores, description_ranks(scores, owners), matrix)
    by_caption = None if matrix is None else matrix.T
    result["search"] = _direction(scores.T, search_ranks(scores, owners), by_caption)
    if matrix is not None:
        result["relevant_pairs"] = int(matrix.sum())
        result["judged_pairs"] = None if judged is None else int(_relevant(judged, scores.shape).sum())
    return result
