"""Console pages of human evaluation (researchers): every evaluation, and one evaluation's page (its test set,
design and questions, its systems with their automatic scores, the leaderboard with the human figures beside
them, the report and the exports, and the button that analyses the judgements stored so far)."""
from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from metrics.html.page import with_back_link
from mturk.views.researcher import researcher_required

from .aspects import ASPECTS
from .exports import report_html
from .models import Design, EvaluatedSystem, HumanEvaluation
from .selectors import human_evaluations, leaderboard
from .services.analysis import AnalysisError, analyse_evaluation
from .table import leaderboard_table


@require_GET
@researcher_required
def evaluations(request: HttpRequest) -> HttpResponse:
    return render(request, "annotation/human_eval/evaluations.html", {"evaluations": human_evaluations()})


def _questions(evaluation: HumanEvaluation) -> list[dict[str, Any]]:
    pairwise = evaluation.design == Design.PAIRWISE
    return [{"name": name, "question": (aspect.comparison if pairwise else aspect.question) if aspect else "",
             "scale": aspect.scale if aspect and not pairwise else ()}
            for name in evaluation.aspects or [] for aspect in [ASPECTS.get(name)]]


@require_GET
@researcher_required
def evaluation_page(request: HttpRequest, pk: int) -> HttpResponse:
    evaluation = get_object_or_404(HumanEvaluation.objects.select_related("campaign"), pk=pk)
    board = leaderboard(evaluation)
    roles = dict(EvaluatedSystem.Role.choices)
    automatic = {row["system"]: row["automatic"] for row in board["rows"]}
    systems = [{**system, "role_label": roles.get(system["role"], system["role"]),
                "scores": [automatic.get(system["name"], {}).get(metric) for metric in board["metrics"]]}
               for system in evaluation.systems.order_by("id").values("name", "role", "file_name")]
    return render(request, "annotation/human_eval/evaluation.html", {
        "evaluation": evaluation, "board": board, "table": leaderboard_table(board), "systems": systems,
        "questions": _questions(evaluation), "items": evaluation.items.count()})


@require_POST
@researcher_required
def analyse(request: HttpRequest, pk: int) -> HttpResponse:
    """Analyse the judgements stored so far (the same service as the API and the CLI), then back to the page."""
    evaluation = get_object_or_404(HumanEvaluation, pk=pk)
    try:
        analyse_evaluation(evaluation)
    except AnalysisError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Analysed {evaluation.analysed_judgements} judgements.")
    return redirect("human-evaluation", pk=evaluation.pk)


@require_GET
@researcher_required
def report(request: HttpRequest, pk: int) -> HttpResponse:
    """The HTML report as the console shows it: the file the API and the CLI give, with a link back."""
    evaluation = get_object_or_404(HumanEvaluation, pk=pk)
    page = with_back_link(report_html(evaluation), reverse("human-evaluation", args=[evaluation.pk]),
                          evaluation.name)
    return HttpResponse(page, content_type="text/html; charset=utf-8")
