"""The local crowd's browser identity: a returning browser is the same worker, so per-worker limits hold.

Two ways, both carrying the same signed identity token (tokens.identity_token, WORKER_IDENTITY_MAX_AGE):
- a cookie, HttpOnly, renewed on every start: over HTTPS `SameSite=None; Secure; Partitioned` (CHIPS: inside another
  site's iframe, browsers that block third-party cookies keep a partitioned one for that site; browsers without CHIPS
  ignore the attribute), over plain HTTP `SameSite=Lax` (then not kept inside another site's iframe);
- the page's own storage, for browsers that keep neither inside iframes but give the frame (partitioned) storage:
  the task page's script keeps the token in localStorage (or sessionStorage), and the start page's script sends it
  back as the form field `i`.
The worker token `w` of a "Next task" link (in the URL) names the worker too, and comes first."""
from __future__ import annotations

from http.cookies import Morsel

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from ...models import Worker
from ...providers.registry import own_crowd
from ..tokens import TokenError, identity_token, read_identity_token

IDENTITY_COOKIE = "local_worker"
IDENTITY_FIELD = "i"


def _external_ids(request: HttpRequest) -> list[str]:
    tokens = [request.COOKIES.get(IDENTITY_COOKIE, "")]
    if request.method == "POST":
        tokens.append(request.POST.get(IDENTITY_FIELD, ""))
    ids = []
    for token in tokens:
        if not token:
            continue
        try:
            ids.append(read_identity_token(token))
        except TokenError:
            continue  # forged, damaged or too old: the browser is not known
    return ids


def remembered_worker(request: HttpRequest) -> Worker | None:
    """The local worker this browser was (the cookie first, then the page's storage); None: not known. One query,
    none without an identity."""
    ids = _external_ids(request)
    if not ids:
        return None
    known = Worker.objects.filter(provider=own_crowd().name, external_id__in=ids)
    found = {worker.external_id: worker for worker in known}
    return next((found[external_id] for external_id in ids if external_id in found), None)


class _PartitionedMorsel(Morsel):
    """A cookie with the `Partitioned` attribute (Python's http.cookies knows it only from 3.14)."""

    def OutputString(self, attrs: list[str] | None = None) -> str:  # noqa: N802 (the standard library's name)
        return super().OutputString(attrs) + "; Partitioned"


def remember_worker(request: HttpRequest, response: HttpResponse, worker: Worker) -> HttpResponse:
    """Set (renew) the identity cookie on a response to this worker's browser."""
    secure = request.is_secure()
    response.set_cookie(
        IDENTITY_COOKIE, identity_token(worker.external_id), max_age=settings.WORKER_IDENTITY_MAX_AGE,
        path="/", secure=secure, httponly=True, samesite="None" if secure else "Lax",
    )
    if secure:
        partitioned = _PartitionedMorsel()
        plain = response.cookies[IDENTITY_COOKIE]
        partitioned.set(plain.key, plain.value, plain.coded_value)
        partitioned.update(plain)
        response.cookies[IDENTITY_COOKIE] = partitioned
    return response
