"""Console pages of ranking evaluation: the test pools, and each pool's leaderboard with its upload form."""
from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from mturk.views.access import researcher_required

from .forms import PoolForm
from .models import TestPool
from .selectors import leaderboard as leaderboard_of
from .selectors import pool_sources, test_pools
from .services.board_queue import requeue_if_stranded
from .services.pooled_judging import judging_campaign
from .services.pools import PoolError, create_test_pool
from .services.submissions import SubmissionError, submit_ranking

METRICS = [("R@1", "R@1"), ("R@5", "R@5"), ("R@10", "R@10"), ("median_rank", "Median rank"),
           ("r_precision", "R-precision"), ("success@1", "S@1"), ("success@5", "S@5"), ("success@10", "S@10"),
           ("judged_pairs", "Judged pairs")]


class SubmissionForm(forms.Form):
    system = forms.CharField(max_length=200, help_text="Your system's name, once per pool.")
    file = forms.FileField(help_text="JSON rankings, or a score matrix (.npy, .npz, .csv) of images x captions.")


@require_http_methods(["GET", "POST"])
@researcher_required
def pools(request: HttpRequest) -> HttpResponse:
    """The test pools, and the form that freezes a new one (through the same service as the API and the CLI)."""
    form = PoolForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            pool = create_test_pool(data["name"], campaigns=list(data["campaigns"]),
                                    all_descriptions=data["all_descriptions"], images=data["images"],
                                    captions_per_image=data["captions_per_image"], created_by=request.user)
        except PoolError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, str(exc))
        else:
            messages.success(request, f"Test pool '{pool.name}' created.")
            return redirect("pools")
    return render(request, "annotation/ranking/pools.html", {
        "pools": test_pools(), "form": form, "sources": pool_sources(), "chosen": form.chosen_campaigns()},
        status=400 if request.method == "POST" else 200)


@require_http_methods(["GET", "POST"])
@researcher_required
def leaderboard(request: HttpRequest, pk: int) -> HttpResponse:
    pool = get_object_or_404(TestPool, pk=pk)
    form = SubmissionForm(request.POST or None, request.FILES or None)
    errors: list[str] = []
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        limit = settings.RANKING_MAX_BYTES
        if upload.size > limit:
            errors = [f"the file is larger than {limit} bytes"]
        else:
            try:
                submission = submit_ranking(pool, form.cleaned_data["system"], upload.read(), upload.name,
                                            created_by=request.user)
            except SubmissionError as exc:
                errors = exc.errors
            else:
                messages.success(request, f"{submission.system} submitted and evaluated; its leaderboard figures "
                                          "follow the current judgements.")
                return redirect("pool-leaderboard", pk=pool.pk)
    board = leaderboard_of(pool)
    requeue_if_stranded(pool, board["stale"])
    rows = [{"system": s["system"], "directions": [
        (direction, [s["directions"][direction].get(key) for key, _ in METRICS])
        for direction in ("description", "search") if direction in s["directions"]]} for s in board["systems"]]
    return render(request, "annotation/ranking/leaderboard.html", {
        "pool": pool, "board": board, "rows": rows, "headers": [label for _, label in METRICS], "form": form,
        "errors": errors, "campaign": judging_campaign(pool),
        "generated": [(s["system"], s["generated"]) for s in board["systems"] if s["generated"]]},
        status=400 if errors else 200)

