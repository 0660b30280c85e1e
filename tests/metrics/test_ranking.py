"""Ranking metrics on small pools computed by hand (3 images x 6 captions, two original captions per image)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from metrics import relevant_positions
from metrics.ranking import (
    cohen_kappa,
    description_ranks,
    evaluate_matrix,
    expert_grade,
    kappa_at_thresholds,
    median_rank,
    original_mask,
    r_precision,
    recall_at,
    scores_from_rankings,
    search_ranks,
    spearman_rho,
    success_at,
    top_k,
)

# Captions 0, 1 belong to image 0; 2, 3 to image 1; 4, 5 to image 2.
CAPTION_IMAGE = np.array([0, 0, 1, 1, 2, 2])
S = np.array([
    [0.9, 0.1, 0.8, 0.2, 0.3, 0.4],
    [0.5, 0.6, 0.7, 0.1, 0.9, 0.2],
    [0.3, 0.2, 0.1, 0.8, 0.6, 0.4],
])


def test_description_rank_is_that_of_the_best_original_caption() -> None:
    # Image 0: original 0 scores best (rank 1). Image 1: best original 2 (0.7) behind caption 4 (0.9): rank 2.
    # Image 2: best original 4 (0.6) behind caption 3 (0.8): rank 2; its other original 5 does not count.
    assert description_ranks(S, CAPTION_IMAGE).tolist() == [1, 2, 2]


def test_search_rank_of_the_original_image() -> None:
    # Columns: c0 0.9 best -> 1; c1 0.1 lowest -> 3; c2 0.7 after 0.8 -> 2; c3 0.1 lowest -> 3;
    # c4 0.6 after 0.9 -> 2; c5 0.4 tied with image 0's 0.4 -> pessimistic 2.
    assert search_ranks(S, CAPTION_IMAGE).tolist() == [1, 3, 2, 3, 2, 2]


def test_recall_and_median() -> None:
    ranks = [1, 3, 2, 3, 2, 2]
    assert recall_at(ranks, 1) == pytest.approx(1 / 6)
    assert recall_at(ranks, 2) == pytest.approx(4 / 6)
    assert recall_at(ranks, 5) == 1.0
    assert median_rank(ranks) == 2.0
    assert median_rank([1, 2, 3, 10]) == 2.5
    with pytest.raises(ValueError, match="k must be at least 1"):
        recall_at(ranks, 0)
    with pytest.raises(ValueError, match="index 1"):
        median_rank([1, 0])


def test_ties_are_pessimistic() -> None:
    constant = np.zeros((3, 6))
    # Every caption ties: the best original ranks after the 4 non-original captions; the image after the 2 others.
    assert description_ranks(constant, CAPTION_IMAGE).tolist() == [5, 5, 5]
    assert search_ranks(constant, CAPTION_IMAGE).tolist() == [3, 3, 3, 3, 3, 3]
    # Two originals tied at the top do not push each other down; a non-original tied with them does.
    scores = S.copy()
    scores[0] = [0.9, 0.9, 0.1, 0.1, 0.1, 0.1]
    scores[1] = [0.1, 0.1, 0.5, 0.5, 0.5, 0.1]
    assert description_ranks(scores, CAPTION_IMAGE).tolist()[:2] == [1, 2]


def test_bad_input_names_the_index() -> None:
    bad = S.copy()
    bad[1, 4] = np.nan
    with pytest.raises(ValueError, match=r"\[1, 4\]"):
        description_ranks(bad, CAPTION_IMAGE)
    with pytest.raises(ValueError, match=r"caption_image\[2\] = 7"):
        search_ranks(S, [0, 0, 7, 1, 2, 2])
    with pytest.raises(ValueError, match="one image index per caption"):
        search_ranks(S, [0, 1, 2])
    with pytest.raises(ValueError, match="image 2 has no original caption"):
        description_ranks(S, [0, 0, 1, 1, 1, 1])


@pytest.fixture(params=[4.0, 0.0], ids=["compared", "sorted"])
def counting(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run a test with relevant items counted both ways: by comparison (few per query) and by sorting (many)."""
    monkeypatch.setattr(relevant_positions, "_SORT_FACTOR", request.param)


# Relevant: image 0 <- captions 0, 1; image 1 <- captions 2, 0; image 2 <- none.
RELEVANT = np.zeros((3, 6), dtype=bool)
RELEVANT[0, [0, 1]] = True
RELEVANT[1, [2, 0]] = True


def test_several_relevant_items_per_query(counting: None) -> None:
    # Image 0 ranks c0 .9, c2 .8, c5 .4, c4 .3, c3 .2, c1 .1: one relevant in the first R = 2 -> 1/2; first at 1.
    # Image 1 ranks c4 .9, c2 .7, c1 .6, c0 .5, ...: first R = 2 hold c2 -> 1/2; first relevant at 2.
    # Image 2 has no relevant caption and is left out.
    assert r_precision(S, RELEVANT, axis=1) == pytest.approx(0.5)
    assert success_at(S, RELEVANT, 1, axis=1) == pytest.approx(0.5)
    assert success_at(S, RELEVANT, 2, axis=1) == 1.0
    assert success_at(S, RELEVANT, 5, axis=1) == 1.0


def test_search_direction_and_relevant_items_tied_with_each_other(counting: None) -> None:
    relevant = np.zeros((3, 6), dtype=bool)
    relevant[[0, 2], 5] = True  # caption 5: images 0 and 2 tie at 0.4, both relevant -> both in the first 2
    relevant[[1, 2], 1] = True  # caption 1: images 1 (.6), 2 (.2), 0 (.1) -> 1 and 2 are the first 2
    relevant[0, 3] = True  # caption 3: images 2 (.8), 0 (.2), 1 (.1) -> R = 1, first 1 is image 2: 0
    assert r_precision(S, relevant, axis=0) == pytest.approx((1 + 1 + 0) / 3)
    assert success_at(S, relevant, 1, axis=0) == pytest.approx(2 / 3)
    assert success_at(S, relevant, 2, axis=0) == 1.0


def test_relevant_items_tied_with_unjudged_ones_rank_after_them(counting: None) -> None:
    scores = np.array([[1.0, 1.0, 1.0, 0.0, 0.0, 0.0]])
    relevant = np.array([[True, False, False, False, False, False]])
    assert r_precision(scores, relevant, axis=1) == 0.0
    assert success_at(scores, relevant, 2, axis=1) == 0.0
    assert success_at(scores, relevant, 3, axis=1) == 1.0


def test_a_system_that_ranks_nothing_relevant(counting: None) -> None:
    scores = np.array([[0.1, 0.2, 0.9, 0.8, 0.7, 0.6], [0.6, 0.7, 0.1, 0.2, 0.8, 0.9]])
    relevant = np.zeros((2, 6), dtype=bool)
    relevant[0, [0, 1]] = True  # ranked last two
    relevant[1, [2, 3]] = True  # ranked last two
    assert r_precision(scores, relevant, axis=1) == 0.0
    for k in (1, 4):
        assert success_at(scores, relevant, k, axis=1) == 0.0
    assert success_at(scores, relevant, 5, axis=1) == 1.0


def test_no_relevant_item_at_all_is_an_error() -> None:
    with pytest.raises(ValueError, match="no query has a relevant item"):
        r_precision(S, np.zeros((3, 6), dtype=bool), axis=1)
    with pytest.raises(ValueError, match="shape"):
        r_precision(S, np.zeros((3, 5), dtype=bool), axis=1)
    with pytest.raises(ValueError, match="axis must be"):
        success_at(S, RELEVANT, 1, axis=2)


def test_evaluate_matrix_both_directions() -> None:
    result = evaluate_matrix(S, CAPTION_IMAGE)
    assert result["description"] == {"R@1": pytest.approx(1 / 3), "R@5": 1.0, "R@10": 1.0, "median_rank": 2.0,
                                      "queries": 3}
    assert result["search"]["R@1"] == pytest.approx(1 / 6)
    assert result["search"]["median_rank"] == 2.0
    json.dumps(result)


def test_evaluate_matrix_with_judgements_counts_originals_as_relevant(counting: None) -> None:
    judged = RELEVANT.copy()
    judged[2, 0] = True  # judged, not relevant
    result = evaluate_matrix(S, CAPTION_IMAGE, RELEVANT, judged=judged)
    # With the originals: image 0 <- {0, 1}: 1/2; image 1 <- {0, 2, 3}: first 3 are c4, c2, c1 -> 1/3;
    # image 2 <- {4, 5}: c3 .8, c4 .6 -> 1/2.
    description = result["description"]
    assert description["r_precision"] == pytest.approx((1 / 2 + 1 / 3 + 1 / 2) / 3)
    assert description["success@1"] == pytest.approx(1 / 3)
    assert description["success@5"] == 1.0
    assert description["queries_with_relevant"] == 3
    everything = RELEVANT | original_mask(CAPTION_IMAGE, 3)
    assert result["search"]["r_precision"] == pytest.approx(r_precision(S, everything, axis=0))
    assert result["relevant_pairs"] == 7
    assert result["judged_pairs"] == 5
    json.dumps(result)
    alone = evaluate_matrix(S, CAPTION_IMAGE, RELEVANT, originals_relevant=False)
    assert alone["description"]["queries_with_relevant"] == 2
    assert alone["description"]["r_precision"] == pytest.approx(0.5)
    assert alone["judged_pairs"] is None


def test_top_k_best_first_with_ties_to_the_lower_index() -> None:
    assert top_k(S, 2, axis=1).tolist() == [[0, 2], [4, 2], [3, 4]]
    assert top_k(S, 1, axis=0).tolist() == [[0], [1], [0], [2], [1], [0]]
    tied = np.array([[0.5, 0.9, 0.5, 0.5, 0.1]])
    assert top_k(tied, 3, axis=1).tolist() == [[1, 0, 2]]
    assert top_k(tied, 9, axis=1).tolist() == [[1, 0, 2, 3, 4]]


def test_cohen_kappa_by_hand() -> None:
    # Labels 0, 1, 2: agreement 3/4; chance 0.5*0.5 + 0.25*0.5 + 0.25*0 = 0.375 -> (0.75-0.375)/0.625 = 0.6.
    assert cohen_kappa([0, 1, 2, 0], [0, 1, 1, 0]) == pytest.approx(0.6)
    # Both raters constant and equal: p_o = p_e = 1, kappa 0/0, undefined.
    assert cohen_kappa([True, True], [True, True]) is None
    assert cohen_kappa([2, 2, 2], [2, 2, 2]) is None
    # Constant but different: p_o = 0, p_e = 0 -> 0; one constant, the other not: p_e < 1, defined.
    assert cohen_kappa([True, True], [False, False]) == 0.0
    assert cohen_kappa([True, True], [True, False]) == 0.0
    with pytest.raises(ValueError, match="same items"):
        cohen_kappa([1, 2], [1])


def test_kappa_at_thresholds_by_hand() -> None:
    binary = np.array([True, True, True, False, False, False, True, False])
    grades = np.array([4, 4, 2, 1, 2, 1, 4, 3])  # the released scale: 4 describes the image
    # t=4: expert yes at 0,1,6 -> agree on 7/8; chance .5*3/8 + .5*5/8 = .5 -> 0.75.
    # t=3: expert yes at 0,1,6,7 -> agree 6/8; chance .5 -> 0.5.  t=2: yes at 0,1,2,4,6,7 -> 6/8, chance .5 -> 0.5.
    assert kappa_at_thresholds(binary, grades) == {4: pytest.approx(0.75), 3: pytest.approx(0.5),
                                                    2: pytest.approx(0.5)}
    with pytest.raises(ValueError, match="index 2"):
        kappa_at_thresholds(binary, np.array([1, 1, 5, 4, 3, 4, 1, 2]))
    # Every pair judged relevant and graded 4: at each threshold both raters say "relevant" to all -> undefined.
    assert kappa_at_thresholds(np.array([True, True]), np.array([4, 4])) == {4: None, 3: None, 2: None}
    # Graded 2: t=4, 3 expert says no to all, crowd yes to all -> 0; t=2 both yes to all -> undefined.
    assert kappa_at_thresholds(np.array([True, True]), np.array([2, 2])) == {4: 0.0, 3: 0.0, 2: None}


@pytest.mark.parametrize("grades, grade", [
    ([3], 3), ([4, 2, 1], 2),
    ([4, 3], 4), ([3, 4], 4), ([1, 2], 2), ([2, 2], 2),  # two grades: the better one
    ([4, 4, 2, 1], 4), ([1, 2, 3, 4], 3), ([2, 1, 1, 3], 2),  # four: the better of the two middle ones
])
def test_the_expert_grade_of_a_pair_is_the_median_and_the_better_middle_grade_of_an_even_number(grades, grade):
    assert expert_grade(grades) == grade


def test_expert_grade_of_no_grade_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least one grade"):
        expert_grade([])


def test_spearman_on_two_orderings_of_systems() -> None:
    # Ranks 1,4,3,2 and 1,4,2,3: sum d^2 = 2 -> 1 - 6*2/(4*15) = 0.8.
    assert spearman_rho([0.1, 0.4, 0.3, 0.2], [10, 40, 20, 30]) == pytest.approx(0.8)
    assert spearman_rho([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert spearman_rho([1, 1, 1], [1, 2, 3]) is None  # no ordering to compare


def test_scores_from_partial_rankings() -> None:
    description, search = scores_from_rankings(3, 4, {0: [2, 0], 2: [3]}, {1: [2, 1, 0], 3: []})
    assert description is not None and search is not None
    assert description.tolist() == [[1, 0, 2, 0], [0, 0, 0, 0], [0, 0, 0, 1]]
    assert search[:, 1].tolist() == [1, 2, 3]
    assert search[:, [0, 2, 3]].sum() == 0
    # Captions 0 -> image 0, 1 -> 1, 2 and 3 -> 2. Image 0: c0 behind c2 -> 2; image 1 ranks nothing: its
    # caption ties with the 3 others -> 4; image 2: c3 first -> 1.
    assert description_ranks(description, [0, 1, 2, 2]).tolist() == [2, 4, 1]
    assert scores_from_rankings(3, 4, None, {0: [1]})[0] is None


def test_scores_from_rankings_names_the_bad_entry() -> None:
    with pytest.raises(ValueError, match="description: image 0, position 2: caption 2 is ranked twice"):
        scores_from_rankings(3, 4, {0: [2, 0, 2]}, None)
    with pytest.raises(ValueError, match="search: caption 1, position 0: 3 is not one of the image indices"):
        scores_from_rankings(3, 4, None, {1: [3]})
    with pytest.raises(ValueError, match="search: 4 is not one of the caption indices"):
        scores_from_rankings(3, 4, None, {4: [0]})


def _pessimistic_order(scores: list[float], relevant: list[bool]) -> list[int]:
    """One query's items written out one by one: score descending, non-relevant first among ties."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], relevant[i]))


@pytest.mark.parametrize("sort_factor", [4.0, 0.0], ids=["compared", "sorted"])
def test_vectorised_metrics_match_a_one_query_at_a_time_reading(sort_factor: float,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(relevant_positions, "_SORT_FACTOR", sort_factor)  # both ways of counting relevant items
    rng = np.random.default_rng(7)
    scores = rng.integers(0, 4, size=(9, 14)).astype(float)  # few values: many ties
    owners = np.concatenate([np.arange(9), rng.integers(0, 9, size=5)])
    relevant = rng.random((9, 14)) < 0.25
    for axis in (1, 0):
        queries = scores if axis == 1 else scores.T
        judged = relevant if axis == 1 else relevant.T
        precisions, firsts = [], []
        for row, rel in zip(queries.tolist(), judged.tolist(), strict=True):
            if not any(rel):
                continue
            order = _pessimistic_order(row, rel)
            size = sum(rel)
            precisions.append(sum(rel[i] for i in order[:size]) / size)
            firsts.append(next(p for p, i in enumerate(order, 1) if rel[i]))
        assert r_precision(scores, relevant, axis) == pytest.approx(np.mean(precisions))
        for k in (1, 3, 5):
            assert success_at(scores, relevant, k, axis) == pytest.approx(np.mean([f <= k for f in firsts]))
    originals = original_mask(owners, 9)
    # The best original's place when non-originals go first among ties: 1 + non-originals scoring at least as high.
    expected = [1 + sum(1 for j in range(14) if not rel[j] and row[j] >= max(row[i] for i in range(14) if rel[i]))
                for row, rel in zip(scores.tolist(), originals.tolist(), strict=True)]
    assert description_ranks(scores, owners).tolist() == expected
    assert top_k(scores, 4, axis=1).tolist() == np.argsort(-scores, axis=1, kind="stable")[:, :4].tolist()
    assert top_k(scores, 4, axis=0).tolist() == np.argsort(-scores.T, axis=1, kind="stable")[:, :4].tolist()
