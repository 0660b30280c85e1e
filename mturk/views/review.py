"""The review of a campaign's assignments."""
from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.http import HttpRequest
from django.urls import URLPattern

from ..models import Campaign
from ..selectors import campaign_assignments
from ..states import AssignmentStatus
from ..task_kinds import TaskKind

ASSIGNMENTS_PER_PAGE = 50


def campaign_section(request: HttpRequest, campaign: Campaign, kind: TaskKind) -> dict[str, Any]:
    """Context of mturk/campaign/assignments.html."""
    status = request.GET.get("status") or None
    page = Paginator(campaign_assignments(campaign, status), ASSIGNMENTS_PER_PAGE).get_page(request.GET.get("page"))
    assignments = list(page.object_list)
    payloads = kind.build_payloads(campaign, list({a.hit_id: a.hit for a in assignments}.values()))
    rows = [(a, kind.summary(a.answer), payloads.get(a.hit_id, {})) for a in assignments]
    return {"page": page, "rows": rows, "status_filter": status, "statuses": AssignmentStatus.choices}


urlpatterns: list[URLPattern] = []
