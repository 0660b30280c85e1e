"""A Prolific participant's pages: the study link (start page), the session's continue page, the completion page.

Prolific opens `/p/<campaign token>/?PROLIFIC_PID=..&STUDY_ID=..&SESSION_ID=..`. GET shows the start page and
takes nothing (link prefetching and previews; no call to Prolific either); the participant's "Start task"
(POST) confirms the session with Prolific (providers.prolific.arrivals) and sends the browser to the ordinary
task page. After each stored answer the task page goes to the session's signed continue link: "Next task
(k of N)" (a POST takes it), or, when the bundle is done, the completion page, which sends the browser back to
Prolific with the study's completion code and also shows the code and a link, in case the redirect fails.
No cookies: the session travels in signed tokens, as on the other worker pages."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from ...models import Campaign
from ...states import CampaignStatus
from ...task_kinds import get_task_kind
from ...work.task_frame import duration_text
from ...work.throttle import arrival_allowed
from ...work.tokens import TokenError, read_campaign_token, read_session_token
from ...work.views.worker import _task_redirect, arrival_refused, frameable, worker_message
from .arrivals import (
    ArrivalRefused,
    answered_count,
    bundle_done,
    check_ids,
    continue_url,
    finish,
    next_task,
    open_task,
    start_session,
    study_of,
)
from .models import ProlificSubmission

ID_PARAMS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")


def _refused(request: HttpRequest, exc: ArrivalRefused) -> HttpResponse:
    response = worker_message(request, exc.title, exc.message, status=exc.status_code)
    if exc.status_code == 503:
        response["Retry-After"] = "10"
    return response


def _see_other(url: str) -> HttpResponse:
    response = redirect(url)
    response.status_code = 303  # after a POST: the browser GETs the page
    return response


@never_cache
@csrf_exempt  # no cookies are involved: the signed campaign token and Prolific's confirmation are the credential
@require_http_methods(["GET", "HEAD", "POST"])
def study_entry(request: HttpRequest, token: str) -> HttpResponse:
    """The study's external URL. GET: the start page (takes nothing, asks Prolific nothing). POST ("Start task"):
    the session confirmed with Prolific and stored, then its open or next task."""
    try:
        campaign_id = read_campaign_token(token)
    except TokenError as exc:
        return worker_message(request, "Link not valid", str(exc), status=400)
    campaign = Campaign.objects.select_related("prolific_study").filter(pk=campaign_id, provider="prolific").first()
    if campaign is None:
        return worker_message(request, "Study not found", "This study does not exist.", status=404)
    source = request.POST if request.method == "POST" else request.GET
    pid, study_id, session_id = (source.get(name, "").strip() for name in ID_PARAMS)
    try:
        check_ids(pid, study_id, session_id)
        study_of(campaign, study_id)
    except ArrivalRefused as exc:
        return _refused(request, exc)
    if request.method != "POST":
        if campaign.status != CampaignStatus.ACTIVE:
            return worker_message(request, "Not open", "This study is not accepting work at the moment.")
        n = campaign.tasks_per_submission
        context = {"campaign": campaign, "kind": get_task_kind(campaign.task_kind), "tasks": n,
                   "time_limit": duration_text(campaign.time_limit_seconds),
                   "ids": dict(zip(ID_PARAMS, (pid, study_id, session_id), strict=True))}
        return frameable(render(request, "mturk/prolific_start.html", context))
    if not arrival_allowed(request):
        return arrival_refused(request)
    try:
        submission = start_session(campaign, pid, study_id, session_id)
        assignment = next_task(submission)
        if assignment is None:  # the bundle was done already (a second visit): the completion page again
            finish(submission)
            return _see_other(continue_url(submission.submission_id, pid))
    except ArrivalRefused as exc:
        return _refused(request, exc)
    return _task_redirect(assignment)


@never_cache
@csrf_exempt  # no cookies are involved: the signed session token is the credential
@require_http_methods(["GET", "HEAD", "POST"])
def session_continue(request: HttpRequest) -> HttpResponse:
    """GET: the session's open task, "Next task (k of N)", or (bundle done) the completion page.
    POST: the next task, or (none left after an answer) the completion page."""
    try:
        claim = read_session_token((request.POST.get("s") or request.GET.get("s") or "").strip())
    except TokenError as exc:
        return worker_message(request, "Link not valid", str(exc), status=403)
    submission = (ProlificSubmission.objects.select_related("study__campaign", "worker")
                  .filter(submission_id=claim.submission_id).first())
    if submission is None or submission.worker.external_id != claim.participant_id:
        return worker_message(request, "Not your session", "This session does not belong to you.", status=403)
    campaign = submission.study.campaign
    url = continue_url(submission.submission_id, claim.participant_id)
    try:
        if request.method == "POST":
            if not arrival_allowed(request):
                return arrival_refused(request, title="Please wait", next_url=url)
            assignment = next_task(submission)
            if assignment is not None:
                return _task_redirect(assignment)
            finish(submission)
            return _see_other(url)
        answered = answered_count(submission)
        if bundle_done(submission, campaign, answered):
            return _completion_page(request, submission, finish(submission))
        if (resumed := open_task(submission)) is not None:
            return _task_redirect(resumed)
    except ArrivalRefused as exc:
        return _refused(request, exc)
    context = {"campaign": campaign, "answered": answered, "tasks": campaign.tasks_per_submission,
               "number": answered + 1, "continue_url": url}
    return frameable(render(request, "mturk/prolific_continue.html", context))


def _completion_page(request: HttpRequest, submission: ProlificSubmission, url: str) -> HttpResponse:
    """Sends the browser on to Prolific at once (meta refresh: no script needed), and shows the code and a
    "Return to Prolific" link for when that redirect fails."""
    context = {"completion_url": url, "completion_code": submission.study.completion_code}
    response = frameable(render(request, "mturk/prolific_complete.html", context))
    response["Refresh"] = f"0; url={url}"
    return response
