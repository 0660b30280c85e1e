"""The records the analysis reads, and the automatic scores it correlates, against the stored rows."""
from __future__ import annotations

import pytest

from evaluation.models import EvaluatedSystem, HumanJudgement
from evaluation.selectors import automatic_scores, judgement_records
from tests.evaluation.report_data import build_evaluation

pytestmark = pytest.mark.django_db


def _expected(evaluation, pairwise: bool) -> list[dict]:
    """The records worked out from model instances (not from the selector's query)."""
    rows = []
    for judgement in HumanJudgement.objects.filter(evaluation=evaluation).order_by("id"):
        if EvaluatedSystem.Role.ATTENTION in (judgement.output.system.role,
                                              judgement.other.system.role if judgement.other else None):
            continue
        record = {"design": "pairwise" if pairwise else "rating", "system": judgement.output.system.name,
                  "item": judgement.item.name, "judge": str(judgement.assignment.worker.pk), "aspect": "describes"}
        if pairwise:
            record["other"] = judgement.other.system.name
            record["choice"] = judgement.preferred.system.name if judgement.preferred else "tie"
        else:
            record["value"] = judgement.value
        rows.append(record)
    return rows


def test_rating_records_match_the_rows_without_the_attention_checks(django_assert_num_queries):
    evaluation = build_evaluation()
    with django_assert_num_queries(3):  # the outputs, the items, the judgements
        records = list(judgement_records(evaluation))
    assert records == _expected(evaluation, pairwise=False)
    assert {record["system"] for record in records} == {"sys-a", "sys-b", "reference"}
    # 3 judges x 4 items x 3 judged systems; the attention outputs' 12 ratings are stored but left out
    assert len(records) == 36
    assert HumanJudgement.objects.filter(evaluation=evaluation, output__system__name="attention").count() == 12


def test_pairwise_records_name_the_preferred_system_or_a_tie():
    evaluation = build_evaluation(design="pairwise")
    records = list(judgement_records(evaluation))
    assert records == _expected(evaluation, pairwise=True)
    assert {(r["system"], r["other"]) for r in records} == {("sys-a", "sys-b"), ("sys-a", "reference"),
                                                            ("sys-b", "reference")}
    assert {r["choice"] for r in records if r["judge"] == records[0]["judge"]} == {"sys-a", "sys-b"}
    assert sum(r["choice"] == "tie" for r in records) == 12  # judge 1: 4 items x 3 pairs


def test_a_judgement_without_a_worker_is_its_assignments_workers(django_assert_num_queries):
    evaluation = build_evaluation()
    first = HumanJudgement.objects.filter(evaluation=evaluation).order_by("id").first()
    HumanJudgement.objects.filter(assignment=first.assignment).update(worker=None)
    with django_assert_num_queries(4):  # one more: the workers of the assignments of those judgements
        records = list(judgement_records(evaluation))
    assert records == _expected(evaluation, pairwise=False)
    assert records[0]["judge"] == str(first.assignment.worker_id)


def test_records_of_one_evaluation_only():
    first = build_evaluation("first")
    build_evaluation("second")
    assert len(list(judgement_records(first))) == 36


def test_automatic_scores_are_the_options_of_the_analysis():
    evaluation = build_evaluation()
    scores = automatic_scores(evaluation)
    stored = {system.name: system.automatic for system in evaluation.systems.exclude(role="attention")}
    assert scores["automatic_systems"] == {"bleu4": {name: value["bleu4"]["system"] for name, value in stored.items()}}
    assert scores["automatic"] == {"bleu4": {name: value["bleu4"]["items"] for name, value in stored.items()}}
    assert "attention" not in scores["automatic"]["bleu4"]
