"""The task page inside MTurk's iframe (ExternalQuestion)."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse


def task_page(request: HttpRequest) -> HttpResponse:
    return HttpResponse(status=501)
