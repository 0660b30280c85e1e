"""The worker page: one worker (provider, id, blocked or not and why, block or unblock after a confirmation),
their measured quality in every campaign with totals per task kind, and their latest answers, each linking to
its review card."""
from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_GET

from ...models import Worker
from ...providers.registry import provider_label
from ...quality.views.gold import answer_text, kind_label
from ...selectors.quality import kind_totals, latest_answers, worker_quality
from ...services.review import ReviewError, set_worker_blocked
from ...views.access import confirmed_action, researcher_required
from ...views.campaign_confirm import Confirmation

ANSWERS_PER_PAGE = 20


@require_GET
@researcher_required
def worker_page(request: HttpRequest, pk: int) -> HttpResponse:
    worker = get_object_or_404(Worker, pk=pk)
    scores = worker_quality(worker)
    page = Paginator(latest_answers(worker), ANSWERS_PER_PAGE).get_page(request.GET.get("page"))
    answers = [(a, kind_label(a.hit.campaign.task_kind), answer_text(a.hit.campaign.task_kind, a.answer))
               for a in page.object_list]
    context = {
        "worker": worker,
        "provider": provider_label(worker.provider),
        "scores": [(score, kind_label(score.campaign.task_kind)) for score in scores],
        "totals": kind_totals(scores),
        "page": page,
        "answers": answers,
    }
    return render(request, "mturk/workers/page.html", context)


@confirmed_action
@researcher_required
def worker_block(request: HttpRequest, pk: int) -> HttpResponse:
    """Block (with a reason) or unblock a worker on every task; GET: the confirmation step, POST: the action."""
    worker = get_object_or_404(Worker, pk=pk)
    params = request.POST if request.method == "POST" else request.GET
    unblock = params.get("action") == "unblock"
    reason = params.get("reason", "").strip()
    if request.method == "GET":
        return _confirm(request, worker, unblock, reason)
    try:
        set_worker_blocked(worker, not unblock, reason)
    except ReviewError as exc:
        messages.error(request, f"Worker {worker.external_id} unchanged: {exc}")
    else:
        messages.success(request, f"Worker {worker.external_id} {'unblocked' if unblock else 'blocked'}.")
    return redirect("worker-page", pk=worker.pk)


def _confirm(request: HttpRequest, worker: Worker, unblock: bool, reason: str) -> HttpResponse:
    where = provider_label(worker.provider)
    if unblock:
        confirmation = Confirmation(
            title=f"Unblock worker {worker.external_id}?", action_url=reverse("worker-page-block", args=[worker.pk]),
            button=f"Unblock worker {worker.external_id}",
            what=[f"Worker {worker.external_id} can take your tasks on {where} again."],
            hidden={"action": "unblock", "reason": reason},
            refused=None if worker.blocked else "this worker is not blocked")
    else:
        confirmation = Confirmation(
            title=f"Block worker {worker.external_id}?", action_url=reverse("worker-page-block", args=[worker.pk]),
            button=f"Block worker {worker.external_id}",
            what=[f"Worker {worker.external_id} will no longer get any of your tasks on {where}, in every campaign.",
                  "Work they already submitted stays to be reviewed."],
            hidden={"action": "block", "reason": reason}, facts=[("Reason", reason)] if reason else [],
            danger=True,
            refused="blocking needs a reason" if not reason else "this worker is already blocked" if worker.blocked
            else None)
    return render(request, "mturk/confirm_action.html", {
        "confirmation": confirmation, "back": reverse("worker-page", args=[worker.pk]), "here": request.path,
        "provider_label": where,
    })


urlpatterns: list[URLPattern] = [
    path("<int:pk>/", worker_page, name="worker-page"),
    path("<int:pk>/block/", worker_block, name="worker-page-block"),
]
