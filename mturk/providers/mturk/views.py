"""The task page inside MTurk's iframe (ExternalQuestion).

MTurk opens `task_url(hit)` (our signed HIT token `h` and campaign id `c`) and appends `assignmentId`,
`hitId`, `workerId` and `turkSubmitTo`. Those ids are not signed: the HIT comes from our token, the
marketplace ids must agree with it, the hand-off origin must be allow-listed, arrivals are rate-limited
per client, eligibility is checked on our side, and each arrival works on its own unconfirmed record
until the marketplace reports it (providers.mturk.arrivals). No cookies: the page carries a signed
assignment token, as on the local crowd's pages."""
from __future__ import annotations

import json
import re

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from ...models import HIT, Assignment
from ...states import ANSWERED, AssignmentStatus
from ...work.services.assignments import NoTaskAvailable
from ...work.throttle import arrival_allowed
from ...work.tokens import TokenError, assignment_token, read_preview_token
from ...work.views.worker import _render_task, arrival_refused, frameable, worker_message
from .arrivals import accept_marketplace_assignment, completion_code
from .submit_hosts import handoff_url

PREVIEW_ASSIGNMENT = "ASSIGNMENT_ID_NOT_AVAILABLE"
_MARKETPLACE_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")  # MTurk ids are upper-case letters and digits


@never_cache
@require_GET
def task_page(request: HttpRequest) -> HttpResponse:
    """Preview (read-only) before the worker accepts the HIT; the task, or the hand-off again, after."""
    params = request.GET
    try:
        hit_id = read_preview_token(params.get("h", ""))
    except TokenError as exc:
        return worker_message(request, "Link not valid", str(exc), status=403)
    hit = HIT.objects.select_related("campaign").filter(pk=hit_id).first()
    if hit is None:
        return worker_message(request, "Task not found", "This task does not exist.", status=404)
    campaign = hit.campaign
    if params.get("c") != str(campaign.pk) or campaign.provider != "mturk":
        return worker_message(request, "Link not valid", "This link does not match its task.", status=403)
    if "hitId" in params and params["hitId"] != hit.external_id:
        return worker_message(request, "Link not valid", "This task link is forged or mismatched.", status=403)

    assignment_id = params.get("assignmentId", "")
    if assignment_id in ("", PREVIEW_ASSIGNMENT):
        return _render_task(request, campaign, hit, token=None, next_url=None)

    worker_id = params.get("workerId", "")
    submit_to = params.get("turkSubmitTo", "")
    if not (worker_id and assignment_id and submit_to):
        return worker_message(request, "Link not valid",
                              "This task link is missing workerId, assignmentId or turkSubmitTo.", status=400)
    if not (_MARKETPLACE_ID.fullmatch(worker_id) and _MARKETPLACE_ID.fullmatch(assignment_id)):
        return worker_message(request, "Link not valid", "This task link has a malformed worker or assignment id.",
                              status=400)
    handoff = handoff_url(submit_to)
    if handoff is None:
        return worker_message(request, "Link not valid", "This task link names an unknown MTurk site (turkSubmitTo).",
                              status=400)

    if not arrival_allowed(request):
        return arrival_refused(request)
    try:
        assignment = accept_marketplace_assignment(hit, worker_id, assignment_id)
    except NoTaskAvailable as exc:
        return worker_message(request, "Task not available", str(exc), status=403)
    if assignment.status in ANSWERED:
        return _already_submitted(request, assignment, assignment_id, handoff)
    if assignment.status != AssignmentStatus.ACCEPTED:
        return worker_message(request, "Task no longer available",
                              f"This task was {assignment.get_status_display().lower()} and can no longer be done.",
                              status=410)
    return _render_task(request, campaign, hit, token=assignment_token(assignment.pk, worker_id), next_url=None,
                        handoff={"url": handoff, "assignment_id": assignment_id}, assignment=assignment)


def _already_submitted(request: HttpRequest, assignment: Assignment, assignment_id: str, handoff: str) -> HttpResponse:
    """The answer is stored: offer the hand-off to MTurk again (it may have failed the first time).

    The completion code and the answer are only shown for the assignment id they were stored under:
    a visitor who merely guessed a worker id learns nothing."""
    if assignment.external_id != assignment_id:
        return worker_message(request, "Already submitted", "Your answer to this task has been received. Thank you!")
    context = {
        "title": "Already submitted",
        "completion_code": completion_code(assignment),
        "handoff_url": handoff,
        "assignment_id": assignment_id,
        "answer_json": json.dumps(assignment.answer, ensure_ascii=False, separators=(",", ":")),
    }
    return frameable(render(request, "mturk/mturk_submitted.html", context))
