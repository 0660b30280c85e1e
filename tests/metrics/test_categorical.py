"""Majority vote, Dawid-Skene and MACE over (task, worker, label) rows (crowd-kit), on hand-made cases."""
from __future__ import annotations

import pytest

from metrics.categorical import DAWID_SKENE, MACE, MAJORITY, dawid_skene, mace, majority

TRUTH = {f"pair{n}": n % 3 != 0 for n in range(9)}  # yes, except pairs 0, 3, 6


def crowd() -> list[tuple[str, str, bool]]:
    """Three careful workers always right, one always wrong, on nine pairs."""
    rows = []
    for task, truth in TRUTH.items():
        rows += [(task, worker, truth) for worker in ("ann", "bob", "cid")]
        rows.append((task, "contrarian", not truth))
    return rows


@pytest.mark.parametrize("aggregate", [majority, dawid_skene, mace])
def test_the_always_wrong_worker_is_outvoted_and_has_the_lowest_skill(aggregate):
    result = aggregate(crowd())
    assert result.labels == TRUTH
    assert min(result.skill, key=result.skill.get) == "contrarian"
    assert result.skill["contrarian"] < 0.1
    assert all(result.skill[w] > 0.8 for w in ("ann", "bob", "cid"))


def test_majority_posterior_is_the_vote_share_and_skill_the_share_agreeing():
    result = majority(crowd())
    assert result.method == MAJORITY
    assert set(result.posterior.values()) == {0.75}  # 3 of 4 votes
    assert result.skill == {"ann": 1.0, "bob": 1.0, "cid": 1.0, "contrarian": 0.0}
    assert result.mean_posterior() == 0.75


def test_dawid_skene_skill_is_the_prior_weighted_diagonal():
    """Everyone answers every pair, the careful ones always right: their confusion matrix is the identity
    (clipped at crowd-kit's epsilon), so skill = prior(no) * 1 + prior(yes) * 1 = 1; the contrarian's diagonal
    is 0."""
    result = dawid_skene(crowd())
    assert result.method == DAWID_SKENE
    assert result.skill["ann"] == pytest.approx(1.0)
    assert result.skill["contrarian"] == pytest.approx(0.0, abs=1e-6)
    assert all(p == pytest.approx(1.0) for p in result.posterior.values())


def test_dawid_skene_trusts_the_reliable_workers_where_the_majority_is_wrong():
    """Ann and Bob are always right. Cid, Dan and Eve are each wrong on 3 of pairs 0-7 (so the majority is right
    there) and all three wrong on pairs 8 and 9, where the majority (3 against 2) is therefore wrong. Their
    error rate, 5 in 10, is a coin's: Dawid-Skene learns it and follows Ann and Bob on 8 and 9."""
    truth = {task: task % 2 == 0 for task in range(10)}
    wrong = {"cid": {0, 1, 2, 8, 9}, "dan": {3, 4, 5, 8, 9}, "eve": {6, 7, 0, 8, 9}}
    rows = [(task, worker, truth[task]) for task in truth for worker in ("ann", "bob")]
    rows += [(task, worker, truth[task] != (task in tasks)) for task in truth for worker, tasks in wrong.items()]
    voted = majority(rows)
    assert [task for task in truth if voted.labels[task] != truth[task]] == [8, 9]
    modelled = dawid_skene(rows)
    assert modelled.labels == truth
    assert modelled.skill["ann"] == pytest.approx(1.0, abs=1e-3)
    assert all(modelled.skill[w] == pytest.approx(0.5, abs=0.05) for w in wrong)


def test_a_tie_goes_to_the_smaller_label_every_time():
    rows = [("t", "a", True), ("t", "b", False)]
    assert majority(rows).labels == {"t": False}
    assert majority(list(reversed(rows))).labels == {"t": False}
    assert dawid_skene(rows).labels == {"t": False}
    assert dawid_skene(rows).posterior["t"] == pytest.approx(0.5)


@pytest.mark.parametrize("aggregate", [majority, dawid_skene, mace])
def test_degenerate_input_does_not_crash(aggregate):
    empty = aggregate([])
    assert (empty.labels, empty.posterior, empty.skill) == ({}, {}, {})
    assert empty.mean_posterior() is None
    one_worker = aggregate([("t", "w", 2), ("u", "w", 3)])
    assert one_worker.labels == {"t": 2, "u": 3}
    one_label = aggregate([("t", "w", "yes"), ("t", "v", "yes"), ("u", "w", "yes")])
    assert one_label.labels == {"t": "yes", "u": "yes"}
    assert set(one_label.skill) == {"w", "v"}


def test_tuples_as_tasks_and_mace_is_seeded():
    rows = [((1, 10), w, (w + t) % 3 != 0) for t in range(1) for w in range(5)]
    rows += [((2, 20), w, w % 2 == 0) for w in range(5)]
    first, second = mace(rows, seed=3), mace(rows, seed=3)
    assert first.method == MACE
    assert set(first.labels) == {(1, 10), (2, 20)}
    assert first == second
    assert all(0.0 <= s <= 1.0 for s in first.skill.values())
