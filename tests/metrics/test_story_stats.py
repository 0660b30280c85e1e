"""Tier statistics (Table 2) and top words by normalized PMI (Table 3) on a corpus small enough to count by hand.

    dii: "a man sitting", "a man standing"   6 tokens: a 2, man 2, sitting 1, standing 1
    dis: "a man ."                           3 tokens: a 1, man 1, . 1
    sis: "we went .", "we went home ."       7 tokens: we 2, went 2, . 2, home 1
    N = 16 tokens; totals: a 3, man 3, . 3, we 2, went 2, sitting 1, standing 1, home 1
"""
from __future__ import annotations

import math

import pytest

from metrics.story_stats import TierStats, npmi, tier_statistics, top_words

TIERS = {"sis": ["we went .", "we went home ."], "dii": ["a man sitting", "a man standing"], "dis": ["a man ."]}


def words(result, tier):
    return [(score.word, score.npmi, score.count, score.total) for score in result[tier]]


def test_table_2_columns():
    assert tier_statistics(TIERS) == [
        TierStats("dii", pairs=2, tokens=6, vocabulary=2, vocabulary_all=4, mean_tokens=3.0),
        TierStats("dis", pairs=1, tokens=3, vocabulary=0, vocabulary_all=3, mean_tokens=3.0),
        TierStats("sis", pairs=2, tokens=7, vocabulary=3, vocabulary_all=4, mean_tokens=3.5),  # we, went, .
    ]


def test_empty_and_unknown_tiers():
    assert tier_statistics({"sis": []}) == [TierStats("sis", 0, 0, 0, 0, None)]
    assert top_words({"sis": []}) == {"sis": []}
    with pytest.raises(ValueError, match="unknown tier 'SIS'"):
        tier_statistics({"SIS": ["x"]})


def test_npmi_by_hand():
    # we in sis: p(w,t) = 2/16, p(w) = 2/16, p(t) = 7/16 -> log(16/7) / log(8)
    assert npmi(2, 2, 7, 16) == pytest.approx(math.log(16 / 7) / math.log(8))
    assert npmi(2, 2, 7, 16) == pytest.approx(0.39755, abs=1e-5)
    assert npmi(1, 2, 5, 10) == 0.0  # spread in proportion to the tier's size
    assert npmi(3, 3, 3, 3) == 1.0  # the whole corpus is this word in this tier (0/0, defined as 1)
    assert npmi(0, 3, 3, 9) == -1.0


def test_top_words_with_minimum_count_two():
    result = top_words(TIERS, k=10, min_count=2)
    dii = math.log(16 / 9) / math.log(8)  # a (and man) in dii: (2/16) / ((3/16)(6/16)) = 16/9
    sis = math.log(16 / 7) / math.log(8)
    assert words(result, "dii") == [("a", pytest.approx(dii), 2, 3), ("man", pytest.approx(dii), 2, 3)]
    assert words(result, "dis") == []  # every dis word occurs once there
    assert words(result, "sis") == [("we", pytest.approx(sis), 2, 2), ("went", pytest.approx(sis), 2, 2)]
    assert list(result) == ["dii", "dis", "sis"]


def test_punctuation_counts_in_n_but_is_listed_only_on_request():
    result = top_words(TIERS, k=10, min_count=2, words_only=False)
    dot = math.log(32 / 21) / math.log(8)  # . in sis: (2/16) / ((3/16)(7/16)) = 32/21
    assert words(result, "sis")[2] == (".", pytest.approx(dot), 2, 3)
    assert len(result["sis"]) == 3


def test_rare_exclusive_words_rank_first_with_minimum_count_one_and_k_limits():
    result = top_words(TIERS, k=3, min_count=1)
    single = math.log(16 / 6) / math.log(16)  # sitting in dii: (1/16) / ((1/16)(6/16))
    assert [word for word, *_ in words(result, "dii")] == ["sitting", "standing", "a"]
    assert result["dii"][0].npmi == pytest.approx(single)
    assert result["dis"][0].word == "a" and result["dis"][0].npmi == pytest.approx(math.log(16 / 9) / math.log(16))
    assert all(len(scores) <= 3 for scores in result.values())
