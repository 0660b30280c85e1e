"""The leaderboard of a test set across its evaluations: one row per system name with, per evaluation, its figures
from that evaluation's stored analysis (None where it was not judged), ranked on the newest analysed evaluation;
the console page and the API, in a number of queries that does not grow with the evaluations."""
from __future__ import annotations

from urllib.parse import quote

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from evaluation import selectors  # by the module: pytest would collect test_set_leaderboard
from evaluation.models import EvaluatedSystem, HumanEvaluation
from evaluation.services.analysis import analyse_evaluation
from tests.evaluation.report_data import build_evaluation
from tests.queries import queries_for

pytestmark = pytest.mark.django_db

TEST_SET = "image_set:1"  # build_evaluation's
API = f"/api/human-evaluations/test-sets/{TEST_SET}/leaderboard/"
PAGE = f"/human-evaluations/test-sets/?test_set={quote(TEST_SET)}"


def _two_evaluations() -> tuple[HumanEvaluation, HumanEvaluation]:
    """A rating evaluation, then a pairwise one on the same test set where sys-b's place is taken by sys-c; both
    analysed. Another test set's evaluation beside them."""
    rating = build_evaluation("rating")
    pairwise = build_evaluation("pairwise", design="pairwise")
    EvaluatedSystem.objects.filter(evaluation=pairwise, name="sys-b").update(name="sys-c")
    other = build_evaluation("elsewhere", assignments=[])
    HumanEvaluation.objects.filter(pk=other.pk).update(test_set="image_set:2")
    EvaluatedSystem.objects.filter(evaluation=other, name="sys-a").update(name="sys-z")
    for evaluation in (rating, pairwise):
        analyse_evaluation(evaluation)
        evaluation.refresh_from_db()
    return rating, pairwise


def test_rows_cells_and_order():
    rating, pairwise = _two_evaluations()
    board = selectors.test_set_leaderboard(TEST_SET)
    assert [evaluation["name"] for evaluation in board["evaluations"]] == ["pairwise", "rating"]  # newest first
    assert board["ranked_by"] == {"evaluation": "pairwise", "aspect": "describes"}
    scores = pairwise.analysis["preferences"]["describes"]["bradley_terry"]
    pairwise_order = sorted(scores, key=lambda name: (-scores[name]["score"], name))
    assert "attention" not in pairwise_order and len(pairwise_order) == 3
    assert [row["system"] for row in board["rows"]] == [*pairwise_order, "sys-b"]  # sys-b: not in the pairwise one
    rows = {row["system"]: row for row in board["rows"]}
    assert "attention" not in rows and "sys-z" not in rows
    assert rows["sys-b"]["human"]["pairwise"] is None
    assert rows["sys-c"]["human"]["rating"] is None
    means = rating.analysis["ratings"]["describes"]["systems"]
    assert rows["sys-b"]["human"]["rating"]["describes"]["mean"] == means["sys-b"]["mean"]
    assert rows["sys-c"]["human"]["pairwise"]["describes"]["score"] == scores["sys-c"]["score"]
    assert rows["sys-c"]["human"]["pairwise"]["describes"]["win_rate"] == scores["sys-c"]["win_rate"]
    # the same figures as each evaluation's own leaderboard
    own = {row["system"]: row["human"] for row in selectors.leaderboard(rating)["rows"]}
    assert all(rows[name]["human"]["rating"] == own[name] for name in own)
    assert rows["sys-a"]["automatic"] == {"bleu4": 0.2} and rows["sys-a"]["automatic_from"] == "pairwise"
    assert rows["reference"]["role"] == EvaluatedSystem.Role.REFERENCE
    assert not any(evaluation["stale"] for evaluation in board["evaluations"])


def test_the_newest_analysed_evaluation_ranks_and_the_newest_scores_are_taken():
    _two_evaluations()
    later = build_evaluation("later", assignments=[])  # the newest, not analysed
    EvaluatedSystem.objects.filter(evaluation=later, name="sys-a").update(automatic={"bleu4": {"system": 0.9}})
    board = selectors.test_set_leaderboard(TEST_SET)
    assert [evaluation["name"] for evaluation in board["evaluations"]] == ["later", "pairwise", "rating"]
    assert board["ranked_by"]["evaluation"] == "pairwise"
    rows = {row["system"]: row for row in board["rows"]}
    assert rows["sys-a"]["automatic"] == {"bleu4": 0.9} and rows["sys-a"]["automatic_from"] == "later"
    assert rows["sys-c"]["automatic_from"] == "pairwise"
    assert rows["sys-a"]["human"]["later"] == {} and rows["sys-c"]["human"]["later"] is None
    assert board["evaluations"][0]["aspects"] == [] and board["evaluations"][0]["analysed_at"] is None


def test_no_evaluation_analysed_orders_by_name():
    build_evaluation("draft", assignments=[])
    board = selectors.test_set_leaderboard(TEST_SET)
    assert board["ranked_by"] is None
    assert [row["system"] for row in board["rows"]] == ["reference", "sys-a", "sys-b"]


def test_api_is_staff_only_404s_and_its_queries_do_not_grow(api):
    _two_evaluations()
    user = get_user_model().objects.create_user("bob", password="x")
    client = APIClient()
    client.force_authenticate(user)
    assert client.get(API).status_code == 403
    body = api.get(API).json()
    assert [row["system"] for row in body["rows"]][-1] == "sys-b" and body["rows"][-1]["human"]["pairwise"] is None
    assert api.get("/api/human-evaluations/test-sets/image_set:999/leaderboard/").status_code == 404
    before = queries_for(api, API)
    build_evaluation("later", assignments=[])
    EvaluatedSystem.objects.create(evaluation=HumanEvaluation.objects.get(name="later"), name="sys-d")
    after = queries_for(api, API)
    assert len(api.get(API).json()["rows"]) == 5
    assert before == after


def test_console_page_links_and_404(researcher_client):
    rating, pairwise = _two_evaluations()
    page = researcher_client.get(PAGE).content.decode()
    assert "pairwise <small>(Pairwise preference (with a tie))</small>" in page
    assert "rating <small>(Absolute rating (Likert))</small>" in page
    assert page.index(">sys-b<") > page.index(">sys-c<")
    figures = rating.analysis["ratings"]["describes"]["systems"]["sys-b"]
    assert f'{figures["mean"]:.2f} <small>[{figures["low"]:.2f}, {figures["high"]:.2f}]</small>' in page
    assert ">attention<" not in page and 'class="table-scroll"' in page
    link = "/human-evaluations/test-sets/?test_set=image_set%3A1"
    assert link in researcher_client.get("/human-evaluations/").content.decode()
    assert link in researcher_client.get(f"/human-evaluations/{rating.pk}/").content.decode()
    assert researcher_client.get("/human-evaluations/test-sets/?test_set=image_set:999").status_code == 404
    assert researcher_client.get("/human-evaluations/test-sets/").status_code == 404
    before = queries_for(researcher_client, PAGE)
    build_evaluation("later", assignments=[])
    assert queries_for(researcher_client, PAGE) == before
