"""The raw exports (JSON Lines, CSV) against the stored rows, the analysis JSON, the HTML report's figures and the
report_human_eval command."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command

from evaluation.exports import analysis_json, judgements_csv, judgements_jsonl, report_html
from evaluation.models import HumanJudgement
from evaluation.selectors import EXPORT_COLUMNS
from evaluation.services.analysis import analyse_evaluation
from tests.evaluation.report_data import build_evaluation

pytestmark = pytest.mark.django_db


def _stored(evaluation) -> list[dict]:
    rows = []
    for j in HumanJudgement.objects.filter(evaluation=evaluation).order_by("id"):
        pairwise = evaluation.design == "pairwise"
        rows.append({"evaluation": evaluation.name, "design": evaluation.design, "system": j.output.system.name,
                     "item": j.item.name, "judge": str(j.worker.pk), "aspect": j.aspect,
                     "value": None if pairwise else j.value,
                     "choice": (j.preferred.system.name if j.preferred else "tie") if pairwise else None,
                     "other": j.other.system.name if pairwise else None, "position": j.position,
                     "time": j.created_at.isoformat(), "assignment": j.assignment_id})
    return rows


@pytest.mark.parametrize("design", ["rating", "pairwise"])
def test_jsonl_and_csv_hold_every_column_of_every_stored_judgement(design, django_assert_num_queries):
    evaluation = build_evaluation(design=design)
    expected = _stored(evaluation)
    with django_assert_num_queries(1):
        lines = list(judgements_jsonl(evaluation))
    assert [json.loads(line) for line in lines] == expected
    text = "".join(judgements_csv(evaluation))
    reader = csv.DictReader(io.StringIO(text))
    assert tuple(reader.fieldnames or ()) == EXPORT_COLUMNS
    assert list(reader) == [{key: "" if value is None else str(value) for key, value in row.items()}
                            for row in expected]
    assert any("attention" in (row["system"], row["other"]) for row in expected)  # raw: every stored judgement


def test_analysis_json_holds_the_stored_analysis():
    evaluation = build_evaluation()
    analysis = analyse_evaluation(evaluation)
    document = json.loads(analysis_json(evaluation))
    assert document["analysis"] == json.loads(json.dumps(analysis))
    assert document["analysed_judgements"] == 36 and document["evaluation"] == "captions"


def test_report_holds_the_figures_of_the_analysis():
    evaluation = build_evaluation()
    analysis = analyse_evaluation(evaluation)
    page = report_html(evaluation)
    assert page.startswith("<!DOCTYPE html>")
    assert not any(asset in page for asset in ("<script", "<link", " src=", " href="))  # self-contained
    for name, row in analysis["ratings"]["describes"]["systems"].items():
        assert f'<th scope="row">{name}</th><td class="num">{row["mean"]:.2f}</td>' in page
        assert f'[{row["low"]:.2f}, {row["high"]:.2f}]' in page
    assert f'{analysis["ratings"]["describes"]["alpha_ordinal"]:.3f}' in page
    assert "Does this caption describe the image?" in page
    assert 'role="img"' in page and "attention" not in page
    assert "BLEU-4 against mean rating, one dot per system." in page


def test_report_p_values_are_exact_for_three_systems_and_say_how_they_were_computed():
    evaluation = build_evaluation()
    analysis = analyse_evaluation(evaluation)
    page = report_html(evaluation)
    system = analysis["ratings"]["describes"]["correlation"]["system"]["bleu4"]
    # BLEU-4 orders the three systems as their mean ratings do: rho = tau = 1, exact p = 2 / 3! = 1/3, never "(0)"
    assert system["n"] == 3 and system["spearman_rho"] == pytest.approx(1.0)
    assert system["spearman_p"] == pytest.approx(1 / 3) and system["spearman_method"] == "exact: all 6 orderings"
    assert '<td class="num">1.000 (0.333)</td><td class="num">1.000 (0.333)</td>' in page
    assert "(0)" not in page
    assert ("computed as follows: system level, Pearson and Spearman: exact: all 6 orderings, Kendall: exact: "
            "Kendall&#x27;s distribution (no ties); segment level, Pearson: t test, Spearman: t approximation, "
            "Kendall: normal approximation.") in page
    # 4 items: every permutation test enumerates its 16 sign patterns, and the report says so
    comparisons = analysis["ratings"]["describes"]["comparisons"]
    assert {row["permutation_patterns"] for row in comparisons} == {16}
    assert page.count("<small>exact</small>") == 2 * len(comparisons)  # the permutation and Wilcoxon p-values
    assert all(row["wilcoxon_exact"] for row in comparisons)
    assert "every one of the 2<sup>n</sup> ways of swapping or keeping" in page
    assert "multiply a p-value by the number of pairs (Bonferroni)" in page
    assert "cannot be smaller than 2 / (1,000 + 1) = 0.002" in page
    assert "Permutation tests</th><td>exact (every sign pattern) for a pair judged on up to 20 items; above, " \
           "100,000 random sign patterns" in page


def test_report_of_preferences_has_the_win_matrix_with_counts():
    evaluation = build_evaluation(design="pairwise")
    analysis = analyse_evaluation(evaluation)
    page = report_html(evaluation)
    matrix = analysis["preferences"]["describes"]["win_matrix"]
    a, b = matrix["systems"].index("sys-a"), matrix["systems"].index("sys-b")
    # sys-a over sys-b: 12 judgements, 8 won and 4 ties -> 10/12
    assert matrix["rates"][a][b] == pytest.approx(10 / 12)
    assert "0.83<small>n=12</small>" in page
    assert "Which caption describes the image better?" in page


def test_an_evaluation_not_analysed_yet_has_a_report_that_says_so():
    assert "No judgement has been analysed yet." in report_html(build_evaluation(assignments=[]))


def test_command_writes_the_four_files(tmp_path):
    evaluation = build_evaluation()
    out = tmp_path / "report"
    call_command("report_human_eval", "captions", "--out", str(out), "--analyse", stdout=io.StringIO())
    assert sorted(path.name for path in out.iterdir()) == ["analysis.json", "judgements.csv", "judgements.jsonl",
                                                          "report.html"]
    evaluation.refresh_from_db()
    assert json.loads((out / "analysis.json").read_text())["analysis"] == json.loads(json.dumps(evaluation.analysis))
    assert len((out / "judgements.jsonl").read_text().splitlines()) == HumanJudgement.objects.count()


def test_command_sets_the_permutation_resamples_of_the_analysis(tmp_path):
    evaluation = build_evaluation()
    call_command("report_human_eval", "captions", "--out", str(tmp_path / "a"), "--analyse",
                 "--permutation-resamples", "20000", stdout=io.StringIO())
    evaluation.refresh_from_db()
    assert evaluation.analysis["settings"]["permutation_resamples"] == 20000
    call_command("report_human_eval", "captions", "--out", str(tmp_path / "b"), "--analyse", stdout=io.StringIO())
    evaluation.refresh_from_db()
    assert evaluation.analysis["settings"]["permutation_resamples"] == 20000  # kept when not given again
    stored = evaluation.analysed_at
    with pytest.raises(CommandError, match="permutation resamples: a whole number from 1,000 to 1,000,000, not 10"):
        call_command("report_human_eval", "captions", "--out", str(tmp_path / "c"), "--analyse",
                     "--permutation-resamples", "10")
    with pytest.raises(CommandError, match="--permutation-resamples applies to an analysis: add --analyse"):
        call_command("report_human_eval", "captions", "--out", str(tmp_path / "d"), "--permutation-resamples", "5000")
    evaluation.refresh_from_db()
    assert evaluation.analysed_at == stored and not (tmp_path / "c").exists() and not (tmp_path / "d").exists()


def test_command_errors(tmp_path):
    with pytest.raises(CommandError, match="no human evaluation 'missing'"):
        call_command("report_human_eval", "missing", "--out", str(tmp_path))
    build_evaluation(assignments=[])
    with pytest.raises(CommandError, match="has no judgement"):
        call_command("report_human_eval", "captions", "--out", str(tmp_path / "x"), "--analyse")
    a_file = tmp_path / "file"
    a_file.write_text("")
    with pytest.raises(CommandError, match="is a file"):
        call_command("report_human_eval", "captions", "--out", str(a_file))
