"""Krippendorff's alpha of ratings (the krippendorff package, ordinal level) and each rating's agreement with the
others, against values computed by hand."""
from __future__ import annotations

import math

import krippendorff
import pytest

from metrics.rating_agreement import alpha, answer_agreement, chance_distance, unit_alpha, unit_means

NAN = math.nan


def test_two_coders_ordinal_alpha_by_hand():
    """Units (1,1), (2,3), (3,3). Values n1=2, n2=1, n3=3, n=6. Ordinal distances (sum of n_g from c to k minus
    (n_c + n_k)/2, squared): d(1,2)=(3-1.5)^2=2.25, d(2,3)=(4-2)^2=4, d(1,3)=(6-2.5)^2=12.25.
    Observed: only unit 2 disagrees, coincidences o23=o32=1: Do = (1+1)*4/6 = 4/3.
    Expected: 2*(2*1*2.25 + 2*3*12.25 + 1*3*4)/(6*5) = 180/30 = 6. alpha = 1 - (4/3)/6 = 7/9."""
    coders = [[1, 2, 3], [1, 3, 3]]
    assert alpha(coders) == pytest.approx(7 / 9)
    assert unit_alpha([[1, 1], [2, 3], [3, 3]]) == pytest.approx(7 / 9)
    # a unit rated once is not pairable and changes nothing
    assert alpha([[1, 2, 3, NAN], [1, 3, 3, 5]]) == pytest.approx(7 / 9)


def test_alpha_matches_the_package_on_a_small_matrix_with_missing_ratings():
    coders = [[1, 2, 3, 4, 5, 1, 2], [2, 2, 3, 5, 5, 2, 1], [1, 3, 3, 4, 4, NAN, 2]]
    expected = krippendorff.alpha(reliability_data=coders, level_of_measurement="ordinal",
                                  value_domain=[1, 2, 3, 4, 5])
    assert alpha(coders) == pytest.approx(expected)
    units = [[v for v in column if not math.isnan(v)] for column in zip(*coders, strict=True)]
    assert unit_alpha(units) == pytest.approx(expected)
    # the level matters: interval differs from ordinal here
    assert alpha(coders, level="interval") != pytest.approx(expected)


def test_nominal_alpha_by_hand():
    """Yes/no as 1/0 on units (1,1), (0,0), (1,0): n0=3, n1=3, n=6; Do = 2/6; De = 2*3*3/(6*5) = 0.6;
    alpha = 1 - (1/3)/0.6 = 4/9."""
    assert unit_alpha([[1, 1], [0, 0], [1, 0]], value_domain=(0, 1), level="nominal") == pytest.approx(4 / 9)


@pytest.mark.parametrize("units", [[[3, 3], [3, 3, 3]], [[1], [5]], []])
def test_undefined_alpha_is_none(units):
    assert unit_alpha(units) is None


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="rating 6 is not in the scale"):
        unit_alpha([[1, 6]])
    with pytest.raises(ValueError, match="level of measurement"):
        unit_alpha([[1, 2]], level="cardinal")


def test_unit_means():
    assert unit_means([[1, 2], [5], []]) == [1.5, 5.0, None]


def test_a_constant_rater_agrees_little_when_the_others_vary():
    """Two raters follow the stories (1,1 then 5,5), a third always says 3. Values: 1 x4, 3 x4, 5 x4, n=12.
    Chance distance = (2*16*4 + 2*16*2 + 2*16*2) / (12*11) = 256/132. The constant rater is 2 from both others
    on every story: 1 - 2/(256/132) < 0, so 0. A following rater: 0 and 2 from the others, mean 1:
    1 - 132/256 = 0.484375."""
    units = [[1, 1, 3], [5, 5, 3], [1, 1, 3], [5, 5, 3]]
    assert chance_distance(units) == pytest.approx(256 / 132)
    assert answer_agreement(units) == [[0.484375, 0.484375, 0.0]] * 4
    # the plain 1 - |r - mean of others| / 4 would give the constant rater 0.5 and the others 0.75


def test_agreement_of_identical_ratings_and_of_a_lone_rating():
    assert answer_agreement([[4, 4], [2]]) == [[1.0, 1.0], [None]]
    assert answer_agreement([[2, 4], [2, 4]]) == [[0.0, 0.0], [0.0, 0.0]]  # always as far apart as chance
