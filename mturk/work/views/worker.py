"""Worker-facing pages: the campaign link (start page), the one task route, return (skip), activity, submission.

The worker's identity travels in signed tokens in the URL and the page, so no page needs a cookie; the local crowd
also remembers the browser (views.worker_identity) so that a worker who opens the link again is the same worker."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from common.json_input import JsonInputError, parse_json

from ...models import HIT, Assignment, Campaign, Worker
from ...providers.registry import get_provider, own_crowd
from ...selectors.campaigns import assignment_for_page
from ...states import ANSWERED, AssignmentStatus, CampaignStatus
from ...task_kinds import get_task_kind
from ..services.activity import record_activity
from ..services.assignments import (
    NoTaskAvailable,
    ReturnRefused,
    SubmissionError,
    open_assignment,
    return_assignment,
    start_local_task,
    submit_answer,
)
from ..task_frame import duration_text, frame_for
from ..throttle import arrival_allowed, retry_after_seconds
from ..tokens import (
    TokenError,
    assignment_token,
    identity_token,
    read_assignment_token,
    read_campaign_token,
    read_preview_token,
    read_worker_token,
)
from .identity import IDENTITY_FIELD, remember_worker, remembered_worker


def frameable(response: HttpResponse) -> HttpResponse:
    """Task pages may be shown inside the marketplaces' iframes, and nowhere else."""
    response.xframe_options_exempt = True
    response["Content-Security-Policy"] = "frame-ancestors " + " ".join(settings.TASK_FRAME_ANCESTORS)
    response["Referrer-Policy"] = "no-referrer"
    return response


def worker_message(request: HttpRequest, title: str, message: str, status: int = 200,
                   next_url: str | None = None) -> HttpResponse:
    context = {"title": title, "message": message, "next_url": next_url}
    return frameable(render(request, "mturk/worker_message.html", context, status=status))


def after_answer_url(assignment: Assignment, worker_external_id: str) -> str | None:
    """Where the worker goes after this task (the provider's: e.g. the worker's next task on our server)."""
    return get_provider(assignment.hit.campaign.provider).after_answer_url(assignment, worker_external_id)


def arrival_refused(request: HttpRequest, title: str = "Too many requests",
                    next_url: str | None = None) -> HttpResponse:
    """429 for a client over ARRIVAL_RATE, with Retry-After (shared by every way of arriving for a task)."""
    seconds = retry_after_seconds()
    response = worker_message(
        request, title,
        f"Too many tasks were started from your network in a short time. Please try again in {seconds} seconds.",
        status=429, next_url=next_url,
    )
    response["Retry-After"] = str(seconds)
    return response


def _task_redirect(assignment: Assignment) -> HttpResponse:
    token = assignment_token(assignment.pk, assignment.worker.external_id)
    response = redirect(f"{reverse('task-page')}?t={token}")
    response.status_code = 303  # after a POST: the browser GETs the task page
    return response


def _link_redirect(request: HttpRequest, campaign: Campaign, assignment: Assignment) -> HttpResponse:
    """To the task page from the campaign link; the browser is remembered as this worker (providers that do)."""
    response = _task_redirect(assignment)
    if get_provider(campaign.provider).remembers_browser:
        remember_worker(request, response, assignment.worker)
    return response


@dataclass(frozen=True)
class _Entry:
    campaign: Campaign
    worker: Worker | None


def _read_entry(request: HttpRequest, token: str) -> _Entry | HttpResponse:
    """The campaign (and the returning worker: named by `w`, else the browser's identity) a campaign link names,
    or the error page."""
    try:
        campaign_id = read_campaign_token(token)
    except TokenError as exc:
        return worker_message(request, "Link not valid", str(exc), status=400)
    campaign = Campaign.objects.filter(pk=campaign_id, provider=own_crowd().name).first()
    if campaign is None:
        return worker_message(request, "Campaign not found", "This campaign does not exist.", status=404)
    worker_param = request.POST.get("w") or request.GET.get("w")
    if not worker_param:
        return _Entry(campaign, remembered_worker(request))
    try:
        external_id = read_worker_token(worker_param, campaign.pk)
    except TokenError as exc:
        return worker_message(request, "Link not valid", str(exc), status=400)
    worker = Worker.objects.filter(provider=own_crowd().name, external_id=external_id).first()
    if worker is None:
        return worker_message(request, "Link not valid", "This worker link is unknown.", status=400)
    return _Entry(campaign, worker)


@never_cache
@csrf_exempt  # no cookies are involved: the signed campaign (and worker) tokens are the whole credential
@require_http_methods(["GET", "HEAD", "POST"])
def campaign_entry(request: HttpRequest, token: str) -> HttpResponse:
    """The local crowd's campaign link. GET shows the start page and takes nothing (link previews,
    prefetching); the worker's explicit "Start task" (POST) creates the worker if new and takes a slot."""
    entry = _read_entry(request, token)
    if isinstance(entry, HttpResponse):
        return entry
    campaign, worker = entry.campaign, entry.worker
    if request.method != "POST":
        if worker is not None and (resumed := open_assignment(campaign, worker)) is not None:
            return _link_redirect(request, campaign, resumed)
        if campaign.status != CampaignStatus.ACTIVE:
            return worker_message(request, "Not open", "This campaign is not accepting work at the moment.")
        context = {"campaign": campaign, "kind": get_task_kind(campaign.task_kind),
                   "time_limit": duration_text(campaign.time_limit_seconds),
                   "worker_param": request.GET.get("w", ""), "returning": worker is not None,
                   "identity_field": IDENTITY_FIELD}
        return frameable(render(request, "mturk/start_task.html", context))
    if not arrival_allowed(request):
        return arrival_refused(request)
    try:
        assignment = start_local_task(campaign, worker)
    except NoTaskAvailable as exc:
        return worker_message(request, "No task left", str(exc))
    return _link_redirect(request, campaign, assignment)


@csrf_exempt  # no cookies are involved: the signed assignment token in the form authenticates the worker
@require_POST
def return_task(request: HttpRequest) -> HttpResponse:
    """Return (skip) a local task: its slot is released at once, then the worker gets their next task."""
    try:
        claim = read_assignment_token(request.POST.get("t", ""))
    except TokenError as exc:
        return worker_message(request, "Link not valid", str(exc), status=403)
    assignment = assignment_for_page(claim.assignment_id)
    if assignment is not None and not get_provider(assignment.hit.campaign.provider).can_return:
        return worker_message(request, "Return it on the marketplace",
                              "Tasks taken on a marketplace are returned with the marketplace's own button.",
                              status=400)
    try:
        returned = return_assignment(assignment_id=claim.assignment_id, worker_external_id=claim.worker_external_id)
    except ReturnRefused as exc:
        return worker_message(request, "Task not returned", exc.message, status=exc.status_code)
    campaign = returned.hit.campaign
    next_url = after_answer_url(returned, claim.worker_external_id)
    if not arrival_allowed(request):
        return arrival_refused(request, title="Task returned", next_url=next_url)
    try:
        assignment = start_local_task(campaign, returned.worker)
    except NoTaskAvailable as exc:
        return worker_message(request, "Task returned", str(exc))
    return _link_redirect(request, campaign, assignment)


@never_cache
@require_GET
def task_page(request: HttpRequest) -> HttpResponse:
    """The one route that serves every task page, for every task kind; `preview` is read-only."""
    if "preview" in request.GET:
        return _preview_page(request, request.GET["preview"])
    try:
        claim = read_assignment_token(request.GET.get("t", ""))
    except TokenError as exc:
        return worker_message(request, "Link not valid", str(exc), status=403)
    assignment = assignment_for_page(claim.assignment_id)
    if assignment is None or assignment.worker.external_id != claim.worker_external_id:
        return worker_message(request, "Not your task", "This task does not belong to you.", status=403)
    campaign = assignment.hit.campaign
    next_url = after_answer_url(assignment, claim.worker_external_id)
    if assignment.status in ANSWERED:
        return worker_message(
            request, "Already submitted", "Your answer to this task has been received. Thank you!", next_url=next_url
        )
    if not _workable(assignment):
        return worker_message(
            request, "Task no longer available",
            f"This task was {assignment.get_status_display().lower()} and can no longer be done.",
            status=410, next_url=next_url,
        )
    return _render_task(request, campaign, assignment.hit, token=request.GET["t"], next_url=next_url,
                        can_return=get_provider(campaign.provider).can_return, assignment=assignment)


def _workable(assignment: Assignment) -> bool:
    """Accepted, or left (abandoned) within its time limit: the worker may still answer (services.activity)."""
    if assignment.status == AssignmentStatus.ABANDONED:
        return assignment.deadline > timezone.now()
    return assignment.status == AssignmentStatus.ACCEPTED


def _preview_page(request: HttpRequest, token: str) -> HttpResponse:
    try:
        hit_id = read_preview_token(token)
    except TokenError as exc:
        return worker_message(request, "Link not valid", str(exc), status=403)
    hit = HIT.objects.select_related("campaign").filter(pk=hit_id).first()
    if hit is None:
        return worker_message(request, "Task not found", "This task does not exist.", status=404)
    return _render_task(request, hit.campaign, hit, token=None, next_url=None)


def _render_task(request: HttpRequest, campaign: Campaign, hit: HIT, token: str | None,
                 next_url: str | None, handoff: dict[str, str] | None = None,
                 can_return: bool = False, assignment: Assignment | None = None) -> HttpResponse:
    """`handoff` ({"url", "assignment_id"}): where the browser posts the stored answer (marketplaces);
    `can_return`: the page offers "Return this task" (local crowd; marketplaces have their own button);
    `assignment`: the worker's (None on a preview), for the frame's time left and position."""
    kind = get_task_kind(campaign.task_kind)
    provider = get_provider(campaign.provider)
    working = assignment if token is not None else None  # the worker's own task (not a preview)
    context: dict[str, Any] = {
        "campaign": campaign,
        "kind": kind,
        "options": kind.options(campaign),
        "payload": kind.build_payloads(campaign, [hit])[hit.pk],
        "token": token,
        "preview": token is None,
        "submit_url": reverse("task-submit"),
        "next_url": next_url,
        # The worker's draft is kept per assignment: nothing on the page names the HIT (a gold HIT and a real one
        # showing the same items give the same page); a preview (no assignment) keys it by its own token.
        "draft_key": f"draft:{campaign.pk}:a{assignment.pk}" if assignment is not None and token
        else f"draft:{campaign.pk}:preview:{request.GET.get('preview', '')}",
        "handoff": handoff,
        "return_url": reverse("task-return") if can_return and token else None,
        "frame": frame_for(campaign, assignment if token else None),
        # The page reports activity (and its closing) so a left task goes back early (services.activity) ...
        "activity_url": reverse("task-activity")
        if working is not None and provider.releases_idle_tasks and working.active_until is not None else None,
        "activity_every": max(5, min(60, settings.TASK_INACTIVITY_SECONDS // 3)),
        # ... and keeps the browser's identity where cookies may be blocked (views.worker_identity).
        "identity": identity_token(working.worker.external_id)
        if working is not None and provider.remembers_browser else None,
    }
    return frameable(render(request, "mturk/task_page.html", context))


@csrf_exempt  # no cookies are involved: the signed assignment token in the form authenticates the worker
@require_POST
def task_activity(request: HttpRequest) -> JsonResponse:
    """A sign of activity from a task page (`left=1`: the page was closed), sent by fetch or navigator.sendBeacon as
    a form: `t=<assignment token>`. Answers {"state": "active" | "released" | "closed"}."""
    try:
        claim = read_assignment_token(request.POST.get("t", ""))
    except TokenError as exc:
        return _json_error(403, str(exc))
    state = record_activity(assignment_id=claim.assignment_id, worker_external_id=claim.worker_external_id,
                            left=request.POST.get("left") == "1")
    return JsonResponse({"state": state.value})


def _json_error(status: int, message: str, fields: dict[str, Any] | None = None) -> JsonResponse:
    body: dict[str, Any] = {"error": message}
    if fields:
        body["fields"] = fields
    return JsonResponse(body, status=status)


@csrf_exempt  # no cookies are involved: the signed token in the body authenticates the worker
@require_POST
def submit(request: HttpRequest) -> JsonResponse:
    """Store a worker's answer: validated, atomic, idempotent per (assignment, worker)."""
    if request.content_type != "application/json":
        return _json_error(415, "Send the answer as JSON (Content-Type: application/json).")
    try:
        body = parse_json(request.body)
    except JsonInputError as exc:
        return _json_error(400, f"The answer was refused: {exc}")
    if not isinstance(body, dict):
        return _json_error(400, "Expected a JSON object with 'token' and 'answer'.")
    unknown = sorted(set(body) - {"token", "answer"})
    if unknown:
        return _json_error(400, f"Unknown field(s): {', '.join(unknown)}.")
    if "answer" not in body:
        return _json_error(400, "The 'answer' field is missing.")
    try:
        claim = read_assignment_token(str(body.get("token") or ""))
    except TokenError as exc:
        return _json_error(403, str(exc))
    try:
        result = submit_answer(
            assignment_id=claim.assignment_id, worker_external_id=claim.worker_external_id, answer=body["answer"]
        )
    except SubmissionError as exc:
        return _json_error(exc.status_code, exc.message, exc.errors)
    campaign = result.assignment.hit.campaign
    next_url = after_answer_url(result.assignment, claim.worker_external_id)
    response: dict[str, Any] = {
        "status": "stored" if result.created else "already_stored",
        "message": "Thank you! Your answer has been saved." if result.created
        else "Your answer had already been received.",
        "assignment": result.assignment.pk,
        "next_url": next_url,
    }
    response.update(get_provider(campaign.provider).submission_response(result.assignment))
    return JsonResponse(response, status=201 if result.created else 200)
