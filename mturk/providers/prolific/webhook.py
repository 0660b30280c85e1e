"""The receiver of Prolific's webhooks (`POST /hooks/prolific/`).

It only verifies and stores: the signature and timestamp are checked against PROLIFIC_WEBHOOK_SECRET, the event
is stored once per X-Event-ID, and its handling (which reads Prolific's current state) is queued for a
background job. No call to Prolific is made inside the request, so the answer is fast and a Prolific outage
never fails a delivery. Any 2xx tells Prolific the event arrived; other answers make it retry."""
from __future__ import annotations

import json
import logging

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from .events import MalformedEvent, request_problem, store_event

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 * 1024  # Prolific's events are a few hundred bytes


def answer(status: int, detail: str, **extra: object) -> JsonResponse:
    return JsonResponse({"detail": detail, **extra}, status=status)


@csrf_exempt
@never_cache
@require_POST
def receive(request: HttpRequest) -> JsonResponse:
    secret = settings.PROLIFIC_WEBHOOK_SECRET
    if not secret:
        return answer(503, "Webhooks are not configured on this server: PROLIFIC_WEBHOOK_SECRET is not set "
                           "(run `manage.py manage_prolific_hooks subscribe` and export the secret it prints).")
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > MAX_BODY_BYTES:
        return answer(413, f"The body is larger than {MAX_BODY_BYTES} bytes.")
    raw = request.body
    if len(raw) > MAX_BODY_BYTES:
        return answer(413, f"The body is larger than {MAX_BODY_BYTES} bytes.")

    problem = request_problem(secret, request.headers.get("X-Prolific-Request-Timestamp", ""), raw,
                              request.headers.get("X-Prolific-Request-Signature", ""))
    if problem:
        log.warning("refused a Prolific webhook call: %s", problem)
        return answer(401, f"Not a verified Prolific webhook call: {problem}.")

    try:
        payload = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return answer(400, "The body is not JSON.")
    try:
        stored = store_event(request.headers.get("X-Event-ID", ""), payload)
    except MalformedEvent as exc:
        return answer(400, f"Malformed event: {exc}.")
    if not stored:
        return answer(200, "Already received.", duplicate=True)
    return answer(200, "Received.", duplicate=False)
