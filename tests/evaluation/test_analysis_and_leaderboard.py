"""Analysing an evaluation stores metrics.human_eval.analyse's dict; the leaderboard reads the stored analysis."""
from __future__ import annotations

import pytest

from evaluation.selectors import automatic_scores, judgement_records, leaderboard
from evaluation.services.analysis import AnalysisError, analyse_evaluation, numeric_seed
from evaluation.table import leaderboard_table
from metrics.human_eval import analyse
from tests.evaluation.report_data import build_evaluation

pytestmark = pytest.mark.django_db


def test_analysis_is_stored_with_its_judgements_and_equals_a_direct_run():
    evaluation = build_evaluation()
    stored = analyse_evaluation(evaluation)
    evaluation.refresh_from_db()
    assert evaluation.analysis == stored
    assert evaluation.analysed_judgements == 36
    assert evaluation.analysed_at is not None
    direct = analyse(list(judgement_records(evaluation)), seed=numeric_seed("report-tests"), scale=[1, 2, 3, 4],
                     **automatic_scores(evaluation))
    assert stored == direct
    means = stored["ratings"]["describes"]["systems"]
    # sys-a: base 2, +1 on items 1 and 3, -1 from judge 2 -> (2+3+2+3)*2 + (1+2+1+2) over 12 = 26/12
    assert means["sys-a"]["mean"] == pytest.approx(26 / 12)
    assert "attention" not in means


def test_nothing_to_analyse_is_refused_and_nothing_stored():
    evaluation = build_evaluation(assignments=[])
    with pytest.raises(AnalysisError, match="no judgement"):
        analyse_evaluation(evaluation)
    evaluation.refresh_from_db()
    assert evaluation.analysis == {} and evaluation.analysed_at is None


def test_leaderboard_orders_by_the_first_aspect_and_puts_automatic_and_human_side_by_side():
    evaluation = build_evaluation()
    evaluation.analysis = {"ratings": {"describes": {"systems": {
        "sys-b": {"mean": 3.5, "low": 3.1, "high": 3.9, "ratings": 12, "items": 4},
        "reference": {"mean": 3.2, "low": 2.9, "high": 3.6, "ratings": 12, "items": 4},
        "sys-a": {"mean": 1.5, "low": 1.2, "high": 1.8, "ratings": 12, "items": 4}}}}, "preferences": {}}
    evaluation.analysed_judgements = 36
    evaluation.save()
    board = leaderboard(evaluation)
    assert [row["system"] for row in board["rows"]] == ["sys-b", "reference", "sys-a"]
    assert board["rows"][0]["human"]["describes"]["mean"] == 3.5
    assert board["rows"][0]["automatic"] == {"bleu4": 0.1}  # sys-b's stored system score
    assert board["stale"] is False and board["judgements"] == 36
    table = leaderboard_table(board)
    assert table["automatic"] == ["BLEU-4"]
    assert table["rows"][0]["cells"] == [{"value": "0.100", "interval": ""},
                                         {"value": "3.50", "interval": "[3.10, 3.90]"}]


def test_preference_leaderboard_shows_bradley_terry_and_win_rate():
    evaluation = build_evaluation(design="pairwise")
    analyse_evaluation(evaluation)
    board = leaderboard(evaluation)
    systems = evaluation.analysis["preferences"]["describes"]["bradley_terry"]
    assert [row["system"] for row in board["rows"]] == list(systems)  # best first, as fitted
    assert [row["system"] for row in board["rows"]][0] == "sys-a"  # preferred by two judges of three, else ties
    first = board["rows"][0]["human"]["describes"]
    # sys-a against sys-b and the reference: 4 items x 3 judges each; two judges prefer it, one ties -> 5/6
    assert first["win_rate"] == pytest.approx(5 / 6)
    assert first["win_low"] <= first["win_rate"] <= first["win_high"]
    assert len(leaderboard_table(board)["rows"][0]["cells"]) == 1 + 2  # BLEU-4, then score and win rate


def test_judgements_after_the_analysis_make_it_stale():
    evaluation = build_evaluation()
    analyse_evaluation(evaluation)
    evaluation.judgements.first().delete()
    assert leaderboard(evaluation)["stale"] is True
