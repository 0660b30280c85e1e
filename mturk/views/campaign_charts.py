"""The campaign page's charts section (submissions over time, time on task, effective hourly pay)."""
from __future__ import annotations

from typing import Any

from ..models import Campaign


def campaign_section(campaign: Campaign) -> dict[str, Any]:
    """Context of mturk/campaign/charts.html."""
    return {}
