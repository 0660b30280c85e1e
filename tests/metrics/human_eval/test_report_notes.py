"""The caveats of the human evaluation report, each a sentence a paper's reader understands: the regularised
Bradley-Terry fits (whole and bootstrap), the Monte-Carlo permutation p-values with their standard error."""
from __future__ import annotations

from metrics.human_eval import analyse
from metrics.human_eval.report_html import human_eval_report_html


def _never_wins(items: int) -> list[dict]:
    """c never wins; a and b beat each other: the win graph is not strongly connected."""
    records = []
    for item in range(items):
        records += [{"design": "pairwise", "system": "a", "other": "c", "item": item, "judge": "j", "choice": "a"},
                    {"design": "pairwise", "system": "b", "other": "c", "item": item, "judge": "j", "choice": "b"},
                    {"design": "pairwise", "system": "a", "other": "b", "item": item, "judge": "j",
                     "choice": "a" if item % 2 else "b"}]
    return records


def test_the_regularised_fits_are_explained():
    analysis = analyse(_never_wins(6), resamples=200, permutation_resamples=1000)
    figures = analysis["preferences"]["overall"]
    assert figures["regularised"] is True and figures["regularised_resamples"] == 200
    page = human_eval_report_html(analysis)
    assert "never won a judgement against the others, so the Bradley-Terry scores that best fit the judgements " \
           "do not exist" in page
    assert "their order holds, but the size of the gap to such a system reflects that choice" in page
    assert "In 200 of the 200 bootstrap resamples (100%), the resampled items left some system without a win" in page
    assert "more than the share of resamples left outside each end of the interval (2.5%)" in page
    assert "read them as open-ended" in page
    assert "resamples were fitted with the same regularisation.<" not in page  # never the bare count alone


def test_few_regularised_resamples_are_said_to_fall_in_the_tails():
    # c loses everywhere but one item, where it beats a: a resample drops that item with probability (1 - 1/40)^40.
    records = _never_wins(40)
    records[0] = {"design": "pairwise", "system": "a", "other": "c", "item": 0, "judge": "j", "choice": "c"}
    analysis = analyse(records, resamples=1000, permutation_resamples=1000)
    figures = analysis["preferences"]["overall"]
    assert figures["regularised"] is False and 300 < figures["regularised_resamples"] < 420
    page = human_eval_report_html(analysis)
    assert f"In {figures['regularised_resamples']:,} of the 1,000 bootstrap resamples" in page
    assert "read them as open-ended" in page


def test_monte_carlo_p_values_show_their_standard_error_and_floor():
    records = [{"design": "rating", "system": s, "item": i, "judge": "j", "value": 4 if s == "a" else 2}
               for s in "ab" for i in range(30)]
    analysis = analyse(records, resamples=100, permutation_resamples=5000)
    [row] = analysis["ratings"]["overall"]["comparisons"]
    assert row["permutation_exact"] is False and row["p_permutation"] == 2 / 5001
    page = human_eval_report_html(analysis)
    assert f'4.0e-04 <small>± {row["p_permutation_se"]:.1e}</small>' in page
    assert "so 5,000 random swaps were drawn (Monte Carlo); ± is the standard error" in page
    assert "no p-value can be below 2 / (5,000 + 1) = 4.0e-04" in page
    assert "5,000 random sign patterns" in page
