"""Every statistic of metrics.human_eval against hand computation or the library's own result."""
from __future__ import annotations

import itertools
import math

import krippendorff
import numpy as np
import pytest
from scipy import stats

from metrics.human_eval import RecordError, analyse
from metrics.human_eval.agreement import preference_alpha, rating_alpha
from metrics.human_eval.bootstrap import generator, resample_counts
from metrics.human_eval.preferences import bradley_terry, fit, pair_table
from metrics.human_eval.ratings import rating_summary
from metrics.human_eval.records import Preference, Rating, parse
from metrics.human_eval.significance import compare_all


def rating(system: str, item: int, judge: str, value: float, aspect: str = "overall") -> Rating:
    return Rating(system, str(item), judge, aspect, float(value))


def preference(a: str, b: str, item: int, judge: str, choice: str) -> Preference:
    return Preference(a, b, str(item), judge, "overall", choice)


# Balanced: every system rated by the same two judges on every item.
VALUES = {"a": [5, 4, 4, 3, 5, 4], "b": [3, 3, 2, 4, 2, 3]}
RATINGS = [rating(system, item // 2, f"j{item % 2}", value)
           for system, values in VALUES.items() for item, value in enumerate(values)]


def test_rating_means_and_bootstrap_interval_match_scipy_bootstrap():
    summary = rating_summary(RATINGS, generator(7), 2000, 0.9)
    assert summary["a"]["mean"] == pytest.approx(25 / 6)
    assert summary["b"]["mean"] == pytest.approx(17 / 6)
    assert list(summary) == ["a", "b"]
    assert (summary["a"]["ratings"], summary["a"]["items"]) == (6, 3)
    # Items resampled with the draw scipy makes: the same interval as scipy.stats.bootstrap on the item means.
    item_means = np.array([4.5, 3.5, 4.5])
    expected = stats.bootstrap((item_means,), np.mean, n_resamples=2000, confidence_level=0.9,
                               method="percentile", rng=np.random.default_rng(7), vectorized=True)
    assert summary["a"]["low"] == pytest.approx(expected.confidence_interval.low)
    assert summary["a"]["high"] == pytest.approx(expected.confidence_interval.high)


def test_bootstrap_is_reproducible_with_a_seed():
    values = np.random.default_rng(0).integers(1, 6, 40)
    ratings = [rating("ab"[n % 2], n // 2, "j", value) for n, value in enumerate(values)]
    first = rating_summary(ratings, generator(3), 500, 0.95)
    assert rating_summary(ratings, generator(3), 500, 0.95) == first
    assert rating_summary(ratings, generator(4), 500, 0.95) != first


def test_items_and_judges_resampling_weighs_each_rating_by_item_and_judge_draws():
    rng = generator(11)
    summary = rating_summary(RATINGS, rng, 200, 0.8, resample="items+judges")
    check = generator(11)
    items, judges = resample_counts(check, 3, 200), resample_counts(check, 2, 200)
    means = []
    for row in range(200):
        weights = [items[row, int(r.item)] * judges[row, int(r.judge[1])] for r in RATINGS if r.system == "a"]
        values = [r.value for r in RATINGS if r.system == "a"]
        means.append(np.dot(weights, values) / sum(weights))
    assert summary["a"]["low"] == pytest.approx(np.quantile(means, 0.1))
    assert summary["a"]["high"] == pytest.approx(np.quantile(means, 0.9))


def test_bradley_terry_two_systems_known_solution():
    # a beats b 3 times, b beats a once, one tie: wins 3.5 to 1.5, so s_a - s_b = log(3.5 / 1.5), centred at 0.
    prefs = [preference("a", "b", item, "j", choice)
             for item, choice in enumerate(["a", "a", "b", "tie", "a"])]
    result = bradley_terry(prefs, generator(0), 50, 0.95)
    gap = math.log(3.5 / 1.5)
    assert result["systems"]["a"]["score"] == pytest.approx(gap / 2)
    assert result["systems"]["b"]["score"] == pytest.approx(-gap / 2)
    assert result["regularised"] is False
    assert result["win_matrix"] == {"systems": ["a", "b"], "rates": [[None, 0.7], [0.3, None]]}


def test_bradley_terry_three_systems_satisfies_the_likelihood_equations():
    wins = np.array([[0, 6, 8], [4, 0, 7], [2, 3, 0]], dtype=float)
    scores, regularised = fit(wins)
    assert not regularised
    strength = np.exp(scores)
    for i in range(3):  # at the maximum, each system's wins equal its expected wins
        expected = sum((wins[i, j] + wins[j, i]) * strength[i] / (strength[i] + strength[j])
                       for j in range(3) if j != i)
        assert wins[i].sum() == pytest.approx(expected)
    assert scores.sum() == pytest.approx(0)


def test_bradley_terry_regularises_a_system_that_never_wins():
    prefs = [preference("a", "b", item, "j", "a") for item in range(4)]
    result = bradley_terry(prefs, generator(0), 20, 0.95)
    assert result["regularised"] is True
    assert result["regularised_resamples"] == 20
    assert result["systems"]["a"]["score"] > result["systems"]["b"]["score"]


def test_pair_table_counts_ties_as_half():
    prefs = [preference("b", "a", 1, "j1", "a"), preference("a", "b", 2, "j1", "tie"),
             preference("a", "b", 3, "j2", "b"), preference("a", "b", 4, "j2", "a")]
    assert pair_table(prefs) == [{"a": "a", "b": "b", "judgements": 4, "wins_a": 2, "wins_b": 1, "ties": 1,
                                  "win_rate_a": 2.5 / 4, "decided_win_rate_a": 2 / 3}]


def test_exact_permutation_test_equals_scipy_and_wilcoxon_equals_scipy():
    a = {"1": 4.0, "2": 5.0, "3": 3.0, "4": 4.5, "5": 2.0}
    b = {"1": 3.0, "2": 3.5, "3": 3.5, "4": 2.0, "5": 1.0}
    [row] = compare_all({"a": a, "b": b}, ["a", "b"], generator(0), 64, 0.95, wilcoxon=True)
    x, y = np.array(list(a.values())), np.array(list(b.values()))
    expected = stats.permutation_test((x, y), lambda u, v, axis: np.mean(u - v, axis=axis),
                                      permutation_type="samples", vectorized=True)
    assert row["permutation_exact"] is True
    assert row["p_permutation"] == pytest.approx(expected.pvalue)
    # By hand: differences 1, 1.5, -0.5, 2.5, 1 (sum 5.5); of the 32 sign patterns only two reach a sum of 5.5 or
    # more (the observed one and the one with 0.5 positive: 6.5); doubled, over 32.
    assert row["p_permutation"] == pytest.approx(2 * 2 / 32)
    assert row["mean_difference"] == pytest.approx(1.1)
    assert row["p_wilcoxon"] == pytest.approx(stats.wilcoxon(x - y).pvalue)


def test_paired_bootstrap_by_hand():
    a = {str(i): float(v) for i, v in enumerate([3, 4, 2, 5, 4, 3, 4])}
    b = {str(i): float(v) for i, v in enumerate([2, 4, 3, 3, 3, 3, 2])}
    [row] = compare_all({"a": a, "b": b}, ["a", "b"], generator(5), 1000, 0.95, wilcoxon=False)
    check = generator(5)
    counts = resample_counts(check, 7, 1000)
    diffs = np.array([a[k] - b[k] for k in sorted(a)])
    means = counts @ diffs / 7
    assert row["low"] == pytest.approx(np.quantile(means, 0.025))
    assert row["high"] == pytest.approx(np.quantile(means, 0.975))
    below, above = np.sum(means <= 0), np.sum(means >= 0)
    assert row["p_bootstrap"] == pytest.approx(min(1, 2 * (min(below, above) + 1) / 1001))
    assert "p_wilcoxon" not in row


def test_rating_alpha_equals_krippendorff():
    data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan], [1, 2, 3, 3, 2, 2, 4, 1, 2, 5], [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5]]
    ratings = [rating("s", unit, f"j{judge}", value)
               for judge, row in enumerate(data) for unit, value in enumerate(row) if not np.isnan(value)]
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal")
    assert rating_alpha(ratings) == pytest.approx(expected)
    # A declared scale with an unused point changes nothing for the ordinal metric's observed counts.
    assert rating_alpha(ratings, scale=[1, 2, 3, 4, 5]) == pytest.approx(expected)


def test_preference_alpha_equals_krippendorff_nominal():
    # Three judges on four (item, pair) units: 0 = the alphabetically first system preferred, 1 = second, 2 = tie.
    data = [[0, 1, 2, 0], [0, 1, 0, 0], [0, 0, 2, np.nan]]
    names = {0: "a", 1: "b", 2: "tie"}
    prefs = [preference("b", "a", unit, f"j{judge}", names[int(value)])
             for judge, row in enumerate(data) for unit, value in enumerate(row) if not np.isnan(value)]
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert preference_alpha(prefs) == pytest.approx(expected)


def test_alpha_is_none_when_undefined():
    assert rating_alpha([rating("s", 1, "j1", 3), rating("s", 1, "j2", 3)]) is None
    assert preference_alpha([preference("a", "b", 1, "j1", "a")]) is None


def test_correlations_equal_scipy_and_none_when_undefined():
    records = [{"design": "rating", "system": s, "item": i, "judge": "j", "value": v}
               for s, values in {"x": [1, 2, 4], "y": [3, 5, 4], "z": [2, 2, 1]}.items()
               for i, v in enumerate(values)]
    bleu = {"x": {0: 0.1, 1: 0.3, 2: 0.35}, "y": {0: 0.2, 1: 0.5, 2: 0.45}, "z": {0: 0.3, 1: 0.1, 2: 0.05}}
    flat = {"x": {0: 0.5, 1: 0.5, 2: 0.5}, "y": {0: 0.5, 1: 0.5, 2: 0.5}, "z": {0: 0.5, 1: 0.5, 2: 0.5}}
    result = analyse(records, resamples=10, automatic={"bleu": bleu, "flat": flat})
    table = result["ratings"]["overall"]["correlation"]
    human = [1, 2, 4, 3, 5, 4, 2, 2, 1]
    scores = [0.1, 0.3, 0.35, 0.2, 0.5, 0.45, 0.3, 0.1, 0.05]
    segment = table["segment"]["bleu"]
    assert segment["n"] == 9
    assert segment["pearson_r"] == pytest.approx(stats.pearsonr(scores, human).statistic)
    assert segment["spearman_p"] == pytest.approx(stats.spearmanr(scores, human).pvalue)
    assert segment["kendall_tau"] == pytest.approx(stats.kendalltau(scores, human).statistic)
    system_scores, system_human = [0.75 / 3, 1.15 / 3, 0.45 / 3], [7 / 3, 4, 5 / 3]
    system = table["system"]["bleu"]
    assert system["n"] == 3
    assert system["pearson_r"] == pytest.approx(stats.pearsonr(system_scores, system_human).statistic)
    assert table["segment"]["flat"]["pearson_r"] is None
    assert "constant" in table["segment"]["flat"]["note"]
    two = analyse(records[:6], resamples=10, automatic={"bleu": bleu})["ratings"]["overall"]["correlation"]
    assert two["system"]["bleu"]["kendall_tau"] is None and two["system"]["bleu"]["n"] == 2


def test_analysis_is_reproducible_and_json_ready():
    import json

    records = [{"design": "rating", "system": r.system, "item": r.item, "judge": r.judge, "value": r.value}
               for r in RATINGS]
    records += [{"design": "pairwise", "system": "a", "other": "b", "item": i, "judge": j, "choice": c}
                for (i, j), c in zip(itertools.product(range(3), ["j0", "j1"]), "aabtab", strict=True)
                for c in [{"t": "tie"}.get(c, c)]]
    first = analyse(records, seed=9, resamples=200)
    assert json.loads(json.dumps(first)) == first
    assert analyse(records, seed=9, resamples=200) == first
    assert first["preferences"]["overall"]["judgements"] == 6


@pytest.mark.parametrize(("record", "message"), [
    ({"design": "rating", "system": "a", "item": 1, "judge": "j"}, "record 2: a rating's 'value'"),
    ({"design": "pairwise", "system": "a", "other": "a", "item": 1, "judge": "j", "choice": "a"}, "record 2: a pre"),
    ({"design": "pairwise", "system": "a", "other": "b", "item": 1, "judge": "j", "choice": "c"}, "'choice' must"),
    ({"design": "likert", "system": "a", "item": 1, "judge": "j", "value": 3}, "record 2: 'design'"),
    ({"design": "rating", "system": "", "item": 1, "judge": "j", "value": 3}, "record 2: 'system'"),
])
def test_bad_records_are_refused_with_their_position(record, message):
    good = {"design": "rating", "system": "a", "item": 1, "judge": "j", "value": 3}
    with pytest.raises(RecordError, match=message):
        parse([good, record])
