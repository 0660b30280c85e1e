"""Box-set agreement: IoU, best-match IoU, one-to-one matching at a threshold, averaging over pairs."""
from __future__ import annotations

import pytest

from metrics.box_agreement import iou, pair_agreement, set_agreement


def box(x: int, y: int, w: int, h: int, label: str = "dog") -> dict[str, object]:
    return {"x": x, "y": y, "width": w, "height": h, "label": label}


def test_iou_of_identical_disjoint_and_half_overlapping_boxes():
    assert iou(box(0, 0, 10, 10), box(0, 0, 10, 10)) == 1.0
    assert iou(box(0, 0, 10, 10), box(20, 20, 5, 5)) == 0.0
    assert iou(box(0, 0, 10, 10), box(5, 0, 10, 10)) == pytest.approx(50 / 150)
    assert iou(box(0, 0, 0, 0), box(0, 0, 0, 0)) == 0.0  # no area: no division by zero


def test_identical_sets_agree_fully():
    boxes = [box(0, 0, 10, 10), box(50, 50, 20, 20, "cat")]
    result = pair_agreement(boxes, list(reversed(boxes)))
    assert (result.mean_iou, result.matched) == (1.0, 1.0)


def test_labels_must_be_equal():
    result = pair_agreement([box(0, 0, 10, 10, "dog")], [box(0, 0, 10, 10, "cat")])
    assert (result.mean_iou, result.matched) == (0.0, 0.0)


def test_a_missing_box_and_a_shifted_box():
    first = [box(0, 0, 10, 10), box(100, 100, 10, 10, "cat")]
    second = [box(5, 0, 10, 10)]  # IoU 1/3 with the dog, below 0.5: no match; no cat at all
    result = pair_agreement(first, second)
    assert result.mean_iou == pytest.approx((1 / 3 + 0 + 1 / 3) / 3)
    assert result.matched == 0.0
    close = pair_agreement(first, [box(1, 0, 10, 10)])  # IoU 90/110 >= 0.5: one of three boxes pairs up
    assert close.matched == pytest.approx(2 / 3)


def test_matching_is_one_to_one():
    one = [box(0, 0, 10, 10)]
    two = [box(0, 0, 10, 10), box(0, 0, 10, 10)]
    result = pair_agreement(one, two)
    assert result.matched == pytest.approx(2 / 3)  # the second copy has no partner left
    assert result.mean_iou == 1.0  # but each box has a perfect best match


def test_empty_sets():
    assert pair_agreement([], []).matched == 1.0
    assert pair_agreement([box(0, 0, 10, 10)], []).mean_iou == 0.0


def test_set_agreement_averages_every_pair():
    a, b, c = [box(0, 0, 10, 10)], [box(0, 0, 10, 10)], [box(0, 0, 10, 10, "cat")]
    result = set_agreement([a, b, c])
    assert result is not None and result.pairs == 3
    assert result.matched == pytest.approx(1 / 3)  # a-b agree, a-c and b-c do not
    assert set_agreement([a]) is None
