"""The former command names, kept for one release: each runs its new command (the same output) and says on stderr
which command to use instead."""
from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from tests.evaluation.report_data import build_evaluation

pytestmark = pytest.mark.django_db


def run(name: str, *args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(name, *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_human_eval_budget_runs_estimate_human_eval_and_warns():
    build_evaluation()
    new_out, new_err = run("estimate_human_eval", "captions", "--reward", "0.25")
    old_out, old_err = run("human_eval_budget", "captions", "--reward", "0.25")
    assert "HITs" in new_out and old_out == new_out
    assert new_err == ""
    assert old_err.strip().splitlines() == ["human_eval_budget is deprecated: use estimate_human_eval (the old name "
                                            "goes in the next release)"]


def test_human_eval_report_runs_report_human_eval_and_warns(tmp_path):
    build_evaluation()
    new_out, new_err = run("report_human_eval", "captions", "--out", str(tmp_path / "new"), "--analyse")
    old_out, old_err = run("human_eval_report", "captions", "--out", str(tmp_path / "old"), "--analyse")
    written = ["analysis.json", "judgements.csv", "judgements.jsonl", "report.html"]
    assert sorted(path.name for path in (tmp_path / "old").iterdir()) == written
    assert old_out == new_out.replace(str(tmp_path / "new"), str(tmp_path / "old"))
    assert new_err == ""
    assert old_err.strip().splitlines() == ["human_eval_report is deprecated: use report_human_eval (the old name "
                                            "goes in the next release)"]
