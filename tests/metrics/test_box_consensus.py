"""Box consensus: one-to-one matching, F1 against a truth, pairwise scores and CVAT's consensus merge, on
hand-computed cases."""
from __future__ import annotations

import pytest

from metrics.box_consensus import answer_agreement, match, mean_matched_iou, merge, pairwise, set_f1


def box(x: int, y: int, w: int = 10, h: int = 10, label: str = "dog") -> dict[str, object]:
    return {"x": x, "y": y, "width": w, "height": h, "label": label}


# --- matching ----------------------------------------------------------------------------------------


def test_match_pairs_the_largest_iou_first_and_each_box_once():
    first = [box(0, 0)]
    second = [box(1, 0), box(0, 0)]  # IoU 90/110 and 1: the identical box wins
    assert [(m.first, m.second, m.iou) for m in match(first, second)] == [(0, 1, 1.0)]
    # two boxes of one set near one box of the other: only one of them is paired
    crowded = match([box(0, 0), box(1, 0)], [box(0, 0)])
    assert [(m.first, m.second) for m in crowded] == [(0, 0)]


def test_match_needs_the_same_label_unless_told_otherwise():
    first = [box(0, 0, label="dog"), box(20, 0, label="cat")]
    second = [box(1, 0, label="dog"), box(20, 0, label="dog")]
    assert [(m.first, m.second, m.iou) for m in match(first, second)] == [(0, 0, pytest.approx(90 / 110))]
    agnostic = match(first, second, same_label=False)
    assert [(m.first, m.second, m.iou) for m in agnostic] == [(1, 1, 1.0), (0, 0, pytest.approx(90 / 110))]


def test_match_threshold_is_inclusive():
    # (0,0,10,10) and (0,0,10,20): IoU 100/200 = 0.5 exactly
    assert len(match([box(0, 0)], [box(0, 0, 10, 20)], threshold=0.5)) == 1
    assert match([box(0, 0)], [box(0, 0, 10, 20)], threshold=0.51) == []


# --- F1 against a truth ------------------------------------------------------------------------------


def test_set_f1_with_an_unmatched_box_and_a_label_disagreement():
    truth = [box(0, 0, label="dog"), box(50, 50, label="cat")]
    answer = [box(1, 0, label="dog"),  # matches the dog, IoU 90/110
              box(50, 50, label="dog"),  # on the cat, wrong label: no match
              box(100, 100, label="car")]  # nothing there
    score = set_f1(answer, truth)
    assert score.matched == 1
    assert score.precision == pytest.approx(1 / 3)
    assert score.recall == pytest.approx(1 / 2)
    assert score.f1 == pytest.approx(2 * 1 / (3 + 2))
    assert score.mean_iou == pytest.approx(90 / 110)


def test_set_f1_of_empty_sets():
    assert set_f1([], []).f1 == 1.0 and set_f1([], []).mean_iou is None
    assert set_f1([box(0, 0)], []).f1 == 0.0
    assert set_f1([], [box(0, 0)]).f1 == 0.0
    assert set_f1([], [box(0, 0)]).precision == 0.0


def test_mean_matched_iou_averages_the_matched_pairs_only():
    a = [box(0, 0), box(30, 0), box(60, 0)]
    b = [box(0, 0), box(32, 0), box(80, 0)]  # 1, 80/120, and no match (IoU 0)
    assert mean_matched_iou(a, b) == pytest.approx((1 + 80 / 120) / 2)
    assert mean_matched_iou([box(0, 0)], [box(50, 50)]) is None


# --- pairwise ----------------------------------------------------------------------------------------


def test_pairwise_scores_every_pair_and_each_set_against_the_others():
    sets = [
        [box(0, 0), box(30, 0, label="cat")],
        [box(1, 0), box(30, 0, label="cat")],  # agrees with set 0 on both boxes
        [box(1, 0)],  # the dog only
    ]
    scores = pairwise(sets)
    assert sorted(scores) == [(0, 1), (0, 2), (1, 2)]
    assert scores[(0, 1)].f1 == 1.0
    assert scores[(0, 2)].f1 == pytest.approx(2 * 1 / 3)
    assert scores[(1, 2)].f1 == pytest.approx(2 * 1 / 3)
    assert scores[(1, 2)].mean_iou == 1.0 and scores[(0, 1)].mean_iou == pytest.approx((90 / 110 + 1) / 2)
    assert answer_agreement(scores, 3) == pytest.approx([(1 + 2 / 3) / 2, (1 + 2 / 3) / 2, 2 / 3])
    assert pairwise([sets[0]]) == {} and answer_agreement({}, 1) == [None]


# --- merge -------------------------------------------------------------------------------------------


def test_merge_votes_labels_and_drops_clusters_below_the_quorum():
    sets = [
        [box(0, 0, label="dog"), box(50, 0, label="cat"), box(100, 100, label="car")],
        [box(1, 0, label="dog"), box(51, 0, label="cat")],
        [box(0, 1, label="cat")],  # the dog's box, called a cat
    ]
    result = merge(sets, threshold=0.5, quorum=0.5)  # a box needs 1.5 of 3 votes: 2
    assert result.dropped == 1  # the car, drawn by one worker
    dog, cat = result.boxes
    assert dog.votes == 3 and dog.label_votes == {"dog": 2, "cat": 1} and dog.box["label"] == "dog"
    assert dog.members == ((0, 0), (1, 0), (2, 0))
    assert cat.votes == 2 and cat.label_votes == {"cat": 2} and cat.members == ((0, 1), (1, 1))
    # with a lower quorum the car stays; with a higher one the cat goes
    assert len(merge(sets, quorum=0.3).boxes) == 3
    assert [m.box["label"] for m in merge(sets, quorum=0.9).boxes] == ["dog"]


def test_merge_takes_the_member_nearest_the_mean_box_not_the_mean():
    sets = [[box(0, 0)], [box(3, 0)], [box(1, 0)]]  # mean x = 4/3; IoU with it: .76, .71, .94
    (merged,) = merge(sets).boxes
    assert merged.box == {"x": 1, "y": 0, "width": 10, "height": 10, "label": "dog"}
    sizes = [[box(0, 0, 10, 10)], [box(0, 0, 14, 14)], [box(0, 0, 12, 12)]]  # mean 12x12: the third worker's
    assert merge(sizes).boxes[0].box["width"] == 12


def test_merge_keeps_at_most_one_box_per_worker_in_a_cluster():
    sets = [[box(0, 0), box(1, 0)], [box(0, 0)]]  # worker 0 drew the same dog twice
    result = merge(sets, quorum=0.5)
    assert [m.members for m in result.boxes] == [((0, 0), (1, 0)), ((0, 1),)]  # the duplicate stands alone
    assert merge(sets, quorum=1.0).boxes[0].members == ((0, 0), (1, 0))
    assert merge(sets, quorum=1.0).dropped == 1


def test_a_label_tie_goes_to_the_first_worker_and_an_empty_answer_still_votes():
    tie = merge([[box(0, 0, label="cat")], [box(0, 0, label="dog")]])
    assert tie.boxes[0].box["label"] == "cat" and tie.boxes[0].label_votes == {"cat": 1, "dog": 1}
    lonely = merge([[box(0, 0)], [], []], quorum=0.5)  # 1 vote of 3 sets < 1.5
    assert lonely.boxes == [] and lonely.dropped == 1
    assert merge([[], []]).boxes == [] and merge([]).boxes == []


def test_weights_weigh_votes_labels_and_the_quorum():
    sets = [[box(0, 0, label="cat")], [box(0, 0, label="dog")], [box(0, 0, label="dog")], [box(50, 50)]]
    weighted = merge(sets, quorum=0.5, weights=[3, 1, 1, 1])  # 6 in all: a box needs 3
    assert [m.box["label"] for m in weighted.boxes] == ["cat"]
    assert weighted.boxes[0].label_votes == {"cat": 3, "dog": 2}
    assert weighted.dropped == 1  # the box at (50, 50): 1 of 6
    with pytest.raises(ValueError, match="2 weights for 4 box sets"):
        merge(sets, weights=[1, 1])
