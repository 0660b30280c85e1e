"""Console pages (placeholder, replaced by the console work)."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, path

from .researcher import researcher_required


@researcher_required
def index(request: HttpRequest) -> HttpResponse:
    return HttpResponse("Not built yet.")


urlpatterns: list[URLPattern] = [path("", index, name="imports")]
