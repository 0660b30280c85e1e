"""Word-to-box links: link F1, pairwise F1 and the vote per word, on hand-computed cases."""
from __future__ import annotations

import pytest

from metrics.link_agreement import link_f1, mean_f1_per_set, pairwise_link_f1, vote_links


def test_link_f1_examples():
    assert link_f1({(0, 1), (3, 2)}, {(0, 1), (3, 1), (5, 0)}) == pytest.approx(2 * 1 / (2 + 3))
    assert link_f1({(0, 1), (3, 2)}, [(3, 2), (0, 1)]) == 1.0
    assert link_f1({(0, 1)}, {(0, 2)}) == 0.0  # the same word, another box
    assert link_f1(set(), set()) == 1.0  # both saw nothing to link
    assert link_f1({(0, 1)}, set()) == 0.0


def test_pairwise_link_f1_and_each_set_against_the_others():
    sets = [{(0, 1), (3, 2)}, {(0, 1)}, set()]
    scores = pairwise_link_f1(sets)
    assert scores == {(0, 1): pytest.approx(2 / 3), (0, 2): 0.0, (1, 2): 0.0}
    assert mean_f1_per_set(scores, 3) == pytest.approx([1 / 3, 1 / 3, 0.0])
    assert pairwise_link_f1([sets[0]]) == {} and mean_f1_per_set({}, 1) == [None]


def test_vote_per_word_counts_no_link_as_a_vote():
    sets = [
        {(0, 1), (3, 2), (5, 0)},
        {(0, 1), (5, 1)},
        {(0, 2)},
    ]
    votes = {v.word: v for v in vote_links(sets, quorum=0.5)}  # a box needs 1.5 of 3 votes: 2
    assert sorted(votes) == [0, 3, 5]  # only words someone linked
    assert (votes[0].box, votes[0].votes, votes[0].box_votes) == (1, 2, {1: 2, 2: 1})
    assert (votes[3].box, votes[3].votes, votes[3].box_votes) == (None, 2, {None: 2, 2: 1})  # "no link" won
    assert (votes[5].box, votes[5].box_votes) == (None, {0: 1, 1: 1, None: 1})  # a three-way tie links nothing


def test_vote_quorum_and_ties():
    two = [{(0, 1)}, set()]
    assert vote_links(two, quorum=0.5)[0].box is None  # 1 for box 1, 1 for no link: a tie
    three = [{(0, 1)}, {(0, 1)}, {(0, 2)}, {(0, 3)}]  # box 1 has 2 of 4 votes, more than any other choice
    assert vote_links(three, quorum=0.5)[0].box == 1
    assert vote_links(three, quorum=0.6)[0].box is None  # 2 < 2.4
    assert vote_links([{(0, 1)}] * 5, quorum=0.6)[0].votes == 5
    assert vote_links([], quorum=0.5) == [] and vote_links([set(), set()]) == []
