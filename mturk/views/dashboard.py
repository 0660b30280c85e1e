"""The dashboard: totals, submissions per day and every campaign with its progress and cost."""
from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from config.lockouts import active_lockouts

from ..selectors import campaigns_with_progress, progress_of
from ..selectors_charts import DASHBOARD_DAYS, dashboard_totals, submissions_per_day
from .access import researcher_required
from .campaign_charts import submissions_plot


@require_GET
@researcher_required
def dashboard(request: HttpRequest) -> HttpResponse:
    campaigns = list(campaigns_with_progress())
    rows = [(campaign, progress_of(campaign)) for campaign in campaigns]
    lockouts = active_lockouts()
    if lockouts:
        messages.warning(request, f"{lockouts} login(s) locked out after repeated wrong passwords: "
                                  "see Admin › Access attempts.")
    per_day = submissions_per_day() if rows else None
    return render(request, "mturk/dashboard.html", {
        "rows": rows,
        "totals": dashboard_totals(rows),
        "per_day": submissions_plot(per_day, f"Submissions per day (at most the last {DASHBOARD_DAYS} days)")
        if per_day else None,
    })
