"""The read-side API (leaderboard, analyse, report, exports) and the console pages: staff only, the same figures
as the services, and a number of queries that does not grow with the judgements."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from evaluation.exports import report_html
from evaluation.models import HumanEvaluation, HumanJudgement
from evaluation.services.analysis import analyse_evaluation
from mturk.datasets.views.exports import REPORT_CSP
from tests.evaluation.report_data import build_evaluation, judges
from tests.queries import queries_for

pytestmark = pytest.mark.django_db

GETS = ["leaderboard/", "report.html", "analysis.json", "judgements.jsonl", "judgements.csv"]


def _read(client, url: str) -> tuple[int, bytes]:
    """Queries and body of a GET, a streamed body read to its end inside the count."""
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        body = b"".join(response.streaming_content) if response.streaming else response.content
    return len(ctx.captured_queries), body


def test_every_endpoint_is_staff_only():
    evaluation = build_evaluation(assignments=[])
    user = get_user_model().objects.create_user("bob", password="x")
    client = APIClient()
    client.force_authenticate(user)
    for path in GETS:
        assert client.get(f"/api/human-evaluations/{evaluation.pk}/{path}").status_code == 403
    assert client.post(f"/api/human-evaluations/{evaluation.pk}/analyse/").status_code == 403
    assert APIClient().get(f"/api/human-evaluations/{evaluation.pk}/leaderboard/").status_code in (401, 403)
    assert HumanEvaluation.objects.get().analysed_at is None


def test_analyse_then_read_the_leaderboard(api):
    evaluation = build_evaluation()
    response = api.post(f"/api/human-evaluations/{evaluation.pk}/analyse/")
    assert response.status_code == 200
    assert response.json()["analysed_judgements"] == 36
    evaluation.refresh_from_db()
    board = api.get(f"/api/human-evaluations/{evaluation.pk}/leaderboard/").json()
    means = evaluation.analysis["ratings"]["describes"]["systems"]
    best_first = sorted(means, key=lambda name: (-means[name]["mean"], name))  # read back: the keys' order may differ
    assert [row["system"] for row in board["rows"]] == best_first
    assert [row["human"]["describes"]["mean"] for row in board["rows"]] == [means[name]["mean"] for name in best_first]
    report = api.get(f"/api/human-evaluations/{evaluation.pk}/report.html").content.decode()
    shown = sorted(best_first, key=lambda name: report.index(f">{name}<"))
    assert shown == best_first  # the report lists them best first too
    assert api.get("/api/human-evaluations/999999/leaderboard/").status_code == 404


def test_analyse_takes_the_permutation_resamples_and_refuses_them_out_of_range(api):
    evaluation = build_evaluation()
    url = f"/api/human-evaluations/{evaluation.pk}/analyse/"
    response = api.post(url, {"permutation_resamples": 250000}, format="json")
    assert response.status_code == 200
    assert response.json()["analysis"]["settings"]["permutation_resamples"] == 250000
    evaluation.refresh_from_db()
    stored = evaluation.analysed_at
    for bad, message in ((999, "from 1,000 to 1,000,000, not 999"), (2_000_000, "not 2000000")):
        refused = api.post(url, {"permutation_resamples": bad}, format="json")
        assert refused.status_code == 400 and message in refused.json()["detail"]
    assert api.post(url, {"permutation_resamples": "many"}, format="json").status_code == 400
    evaluation.refresh_from_db()
    assert evaluation.analysed_at == stored and evaluation.analysis["settings"]["permutation_resamples"] == 250000


def test_console_analyse_form_sets_the_permutation_resamples(researcher_client):
    evaluation = build_evaluation()
    page = researcher_client.get(f"/human-evaluations/{evaluation.pk}/").content.decode()
    assert 'name="permutation_resamples" value="100000"' in page  # the default until an analysis sets one
    response = researcher_client.post(f"/human-evaluations/{evaluation.pk}/analyse/",
                                      {"permutation_resamples": "30000"}, follow=True)
    assert "Analysed 36 judgements." in response.content.decode()
    evaluation.refresh_from_db()
    assert evaluation.analysis["settings"]["permutation_resamples"] == 30000
    assert 'name="permutation_resamples" value="30000"' in response.content.decode()
    refused = researcher_client.post(f"/human-evaluations/{evaluation.pk}/analyse/",
                                     {"permutation_resamples": "5"}, follow=True).content.decode()
    assert "from 1,000 to 1,000,000, not 5" in refused


def test_analyse_with_nothing_to_analyse_is_a_400(api):
    evaluation = build_evaluation(assignments=[])
    response = api.post(f"/api/human-evaluations/{evaluation.pk}/analyse/")
    assert response.status_code == 400
    assert "has no judgement to analyse yet" in response.json()["detail"]


def test_downloads_are_the_exports_and_their_queries_do_not_grow_with_the_judgements(api):
    small = build_evaluation("small", items=2)
    large = build_evaluation("large", items=4, assignments=judges(count=4))
    for evaluation in (small, large):
        analyse_evaluation(evaluation)
    counts = {}
    for evaluation in (small, large):
        for path in GETS:
            counts[(evaluation.name, path)], body = _read(api, f"/api/human-evaluations/{evaluation.pk}/{path}")
            if path == "judgements.jsonl":
                lines = body.decode().splitlines()
                assert len(lines) == HumanJudgement.objects.filter(evaluation=evaluation).count()
                assert {json.loads(line)["evaluation"] for line in lines} == {evaluation.name}
            elif path == "judgements.csv":
                rows = list(csv.DictReader(io.StringIO(body.decode())))
                assert len(rows) == HumanJudgement.objects.filter(evaluation=evaluation).count()
            elif path == "report.html":
                evaluation.refresh_from_db()
                assert body.decode() == report_html(evaluation)
    for path in GETS:
        assert counts[("small", path)] == counts[("large", path)], path


def test_streamed_exports_are_attachments(api):
    evaluation = build_evaluation()
    response = api.get(f"/api/human-evaluations/{evaluation.pk}/judgements.csv")
    assert response.streaming and response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"] == 'attachment; filename="captions-judgements.csv"'


def test_console_pages_and_the_analyse_button(researcher_client):
    small = build_evaluation("small", items=2)
    large = build_evaluation("large", items=4, assignments=judges(count=4))
    assert queries_for(researcher_client, "/human-evaluations/") > 0
    page = researcher_client.get("/human-evaluations/").content.decode()
    assert "small" in page and "large" in page
    response = researcher_client.post(f"/human-evaluations/{large.pk}/analyse/", follow=True)
    assert "Analysed 48 judgements." in response.content.decode()
    analyse_evaluation(small)
    assert queries_for(researcher_client, f"/human-evaluations/{small.pk}/") == queries_for(
        researcher_client, f"/human-evaluations/{large.pk}/")
    page = researcher_client.get(f"/human-evaluations/{large.pk}/").content.decode()
    large.refresh_from_db()
    best = next(iter(large.analysis["ratings"]["describes"]["systems"].items()))
    assert f'<th scope="row">{best[0]}</th><td>0.' in page  # the best system first, its BLEU-4 then its mean
    assert f'{best[1]["mean"]:.2f} <small>[{best[1]["low"]:.2f}, {best[1]["high"]:.2f}]</small>' in page
    report = researcher_client.get(f"/human-evaluations/{large.pk}/report/")
    assert report.status_code == 200 and b"Back" in report.content


def test_the_report_is_served_with_the_reports_content_security_policy(researcher_client, api):
    evaluation = build_evaluation()
    analyse_evaluation(evaluation)
    page = researcher_client.get(f"/human-evaluations/{evaluation.pk}/report/")
    download = api.get(f"/api/human-evaluations/{evaluation.pk}/report.html")
    for response in (page, download):
        assert response.status_code == 200
        assert response["Content-Security-Policy"] == REPORT_CSP  # the exports' and compositional reports' policy
        assert "script-src" not in REPORT_CSP and "default-src 'none'" in REPORT_CSP and "sandbox" in REPORT_CSP
    assert page["X-Content-Type-Options"] == "nosniff"


def test_console_analyse_with_nothing_to_analyse_says_why(researcher_client):
    evaluation = build_evaluation(assignments=[])
    response = researcher_client.post(f"/human-evaluations/{evaluation.pk}/analyse/", follow=True)
    assert "has no judgement to analyse yet" in response.content.decode()
