"""Console pages of human evaluation (researchers): every evaluation with the form that creates one, and one
evaluation's page (its test set, design and questions, its systems with their automatic scores and the form that
uploads one, the budget and the launch while it is a draft, the leaderboard with the human figures beside the
automatic ones, the report and the exports, and the button that analyses the judgements stored so far), and the
leaderboard of one test set across its evaluations. Every write goes through the services the API and the
commands use."""
from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from metrics.html.page import with_back_link
from mturk.datasets.views.exports import REPORT_CSP
from mturk.providers.registry import default_provider_name
from mturk.views.access import researcher_required

from .aspects import ASPECTS
from .budget import Budget, estimate
from .exports import report_html
from .forms import AnalyseForm, BudgetForm, LaunchForm, NewEvaluationForm, UploadForm
from .listing import SIMULATED, is_simulated, status_labels
from .models import Design, EvaluatedSystem, HumanEvaluation
from .selectors import human_evaluations, leaderboard, test_set_leaderboard
from .services.analysis import AnalysisError, analyse_evaluation, permutation_resamples_of
from .services.evaluations import EvaluationError, create_evaluation
from .services.launch import LaunchedNotPublished, launch_evaluation
from .services.uploads import UploadError, upload_outputs
from .table import leaderboard_table, test_set_table


@require_http_methods(["GET", "POST"])
@researcher_required
def evaluations(request: HttpRequest) -> HttpResponse:
    form = NewEvaluationForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            evaluation = create_evaluation(
                name=data["name"], test_set=data["test_set"], design=data["design"], aspects=form.aspect_names(),
                judges=data["judges"], include_reference=data["include_reference"],
                attention_rate=data["attention_rate"], seed=data["seed"], created_by=request.user)
        except EvaluationError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Human evaluation '{evaluation.name}' created: upload the systems' outputs.")
            return redirect("human-evaluation-page", pk=evaluation.pk)
    rows = list(human_evaluations())
    statuses = status_labels(rows)
    return render(request, "evaluation/evaluations.html", {
        "evaluations": [(evaluation, statuses[evaluation.pk], is_simulated(evaluation)) for evaluation in rows],
        "form": form, "simulated_note": SIMULATED}, status=400 if request.method == "POST" else 200)


def _questions(evaluation: HumanEvaluation) -> list[dict[str, Any]]:
    pairwise = evaluation.design == Design.PAIRWISE
    return [{"name": name, "question": (aspect.comparison if pairwise else aspect.question) if aspect else "",
             "scale": aspect.scale if aspect and not pairwise else ()}
            for name in evaluation.aspects or [] for aspect in [ASPECTS.get(name)]]


def _budget(evaluation: HumanEvaluation, form: BudgetForm) -> tuple[Budget | None, str]:
    """The estimate the researcher asked for (the form sent), or the reason it cannot be made."""
    if evaluation.status != HumanEvaluation.Status.DRAFT or not form.is_bound or not form.is_valid():
        return None, ""
    try:
        return estimate(evaluation, reward=form.cleaned_data["reward"], provider=form.cleaned_data["provider"]), ""
    except EvaluationError as exc:
        return None, str(exc)


def _post(request: HttpRequest, evaluation: HumanEvaluation) -> tuple[UploadForm, LaunchForm, list[str]]:
    """An upload or a launch; the forms (bound to what was sent) and the refusal's messages, [] when it worked."""
    upload, launch = UploadForm(), LaunchForm(initial={"provider": default_provider_name()})
    if request.POST.get("action") == "upload":
        upload = UploadForm(request.POST, request.FILES)
        if not upload.is_valid():
            return upload, launch, ["the form has errors"]
        file = upload.cleaned_data["file"]
        if file.size > settings.RUN_MAX_BYTES:
            return upload, launch, [f"{file.name}: the file is larger than {settings.RUN_MAX_BYTES} bytes"]
        try:
            system = upload_outputs(evaluation, system=upload.cleaned_data["system"], content=file.read(),
                                    file_name=file.name or "")
        except UploadError as exc:
            return upload, launch, exc.errors
        messages.success(request, f"{system.name}'s outputs stored and scored.")
        return upload, launch, []
    launch = LaunchForm(request.POST)
    if not launch.is_valid():
        return upload, launch, ["the form has errors"]
    try:
        campaign = launch_evaluation(evaluation, provider=launch.cleaned_data["provider"],
                                     reward=launch.cleaned_data["reward"], created_by=request.user,
                                     publish=launch.cleaned_data["publish"], settings=launch.campaign_settings())
    except EvaluationError as exc:
        return upload, launch, [str(exc)]
    except LaunchedNotPublished as exc:  # launched: the page shows it, with the marketplace job's failure
        messages.error(request, str(exc))
        return upload, launch, []
    messages.success(request, f"Campaign '{campaign.name}' made ({campaign.get_status_display().lower()}).")
    return upload, launch, []


@require_http_methods(["GET", "POST"])
@researcher_required
def evaluation_page(request: HttpRequest, pk: int) -> HttpResponse:
    evaluation = get_object_or_404(HumanEvaluation.objects.select_related("campaign"), pk=pk)
    upload, launch = UploadForm(), LaunchForm(initial={"provider": default_provider_name()})
    errors: list[str] = []
    if request.method == "POST":
        upload, launch, errors = _post(request, evaluation)
        if not errors:
            return redirect("human-evaluation-page", pk=evaluation.pk)
        evaluation.refresh_from_db()
    budget_form = BudgetForm(request.GET if "provider" in request.GET else None, auto_id="budget_%s",
                             initial={"provider": default_provider_name()})
    budget, budget_error = _budget(evaluation, budget_form)
    if budget is not None and request.method == "GET":  # the launch takes the settings just estimated
        launch = LaunchForm(initial={"provider": budget.provider, "reward": budget_form.cleaned_data["reward"]})
    board = leaderboard(evaluation)
    roles = dict(EvaluatedSystem.Role.choices)
    automatic = {row["system"]: row["automatic"] for row in board["rows"]}
    systems = [{**system, "role_label": roles.get(system["role"], system["role"]),
                "scores": [automatic.get(system["name"], {}).get(metric) for metric in board["metrics"]]}
               for system in evaluation.systems.order_by("id").values("name", "role", "file_name", "scoring__status",
                                                                      "scoring__error")]
    return render(request, "evaluation/evaluation.html", {
        "evaluation": evaluation, "status": status_labels([evaluation])[evaluation.pk],
        "simulated": SIMULATED if is_simulated(evaluation) else "", "board": board,
        "table": leaderboard_table(board), "systems": systems,
        "questions": _questions(evaluation), "items": evaluation.items.count(), "upload": upload,
        "launch": launch, "errors": errors, "action": request.POST.get("action", ""), "budget_form": budget_form,
        "budget": budget, "budget_error": budget_error, "analyse_form": AnalyseForm(
            initial={"permutation_resamples": permutation_resamples_of(evaluation)}, auto_id="analyse_%s"),
        "draft": evaluation.status == HumanEvaluation.Status.DRAFT}, status=400 if errors else 200)


@require_POST
@researcher_required
def analyse(request: HttpRequest, pk: int) -> HttpResponse:
    """Analyse the judgements stored so far (the same service as the API and the CLI), then back to the page."""
    evaluation = get_object_or_404(HumanEvaluation, pk=pk)
    form = AnalyseForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Permutation resamples: a whole number.")
        return redirect("human-evaluation-page", pk=evaluation.pk)
    try:
        analyse_evaluation(evaluation, permutation_resamples=form.cleaned_data["permutation_resamples"])
    except AnalysisError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Analysed {evaluation.analysed_judgements} judgements.")
    return redirect("human-evaluation-page", pk=evaluation.pk)


@require_GET
@researcher_required
def report(request: HttpRequest, pk: int) -> HttpResponse:
    """The HTML report as the console shows it: the file the API and the CLI give, with a link back, served with
    the other reports' Content-Security-Policy (no script, no outside resource, in a sandbox)."""
    evaluation = get_object_or_404(HumanEvaluation, pk=pk)
    page = with_back_link(report_html(evaluation), reverse("human-evaluation-page", args=[evaluation.pk]),
                          evaluation.name)
    response = HttpResponse(page, content_type="text/html; charset=utf-8")
    response["Content-Security-Policy"] = REPORT_CSP
    response["X-Content-Type-Options"] = "nosniff"
    return response


@require_GET
@researcher_required
def test_set_page(request: HttpRequest) -> HttpResponse:
    """The leaderboard of one test set (?test_set=<source>:<key>) across every evaluation of it; 404 when none."""
    board = test_set_leaderboard(request.GET.get("test_set", ""))
    if not board["evaluations"]:
        raise Http404("No human evaluation of this test set.")
    designs = dict(Design.choices)
    for evaluation in board["evaluations"]:
        evaluation["design_label"] = designs.get(evaluation["design"], evaluation["design"])
    table = test_set_table(board)
    for group in table["evaluations"]:
        group["design_label"] = designs.get(group["design"], group["design"])
    return render(request, "evaluation/test_set.html", {"board": board, "table": table})
