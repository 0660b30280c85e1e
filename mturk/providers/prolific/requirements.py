"""A prolific campaign's participant requirements, stored in `Campaign.qualifications`:

    {"devices": ["desktop", "tablet"], "peripherals": ["audio"],
     "filters": [{"filter_id": "approval_rate", "selected_range": {"lower": 95}}],
     "filter_set_id": "...", "estimated_minutes": 4}

All keys are optional. `filters` are sent as given (Prolific's filter ids: `manage.py list_prolific_filters`);
the provider adds the exclusion filters itself (block list, other stages of a chain)."""
from __future__ import annotations

from typing import Any

DEVICES = ("desktop", "tablet", "mobile")
PERIPHERALS = ("audio", "camera", "download", "microphone")
KEYS = ("devices", "peripherals", "filters", "filter_set_id", "estimated_minutes")


def clean_prolific_requirements(spec: Any) -> dict[str, Any]:
    """Check the dict; raises ValueError naming the bad key."""
    if spec in (None, ""):
        return {}
    if not isinstance(spec, dict):
        raise ValueError('qualifications must be an object, e.g. {"devices": ["desktop"]}')
    unknown = sorted(set(spec) - set(KEYS))
    if unknown:
        raise ValueError(f"unknown Prolific requirement(s): {', '.join(unknown)} (known: {', '.join(KEYS)})")
    clean: dict[str, Any] = {}
    for key, allowed in (("devices", DEVICES), ("peripherals", PERIPHERALS)):
        values = spec.get(key)
        if values in (None, []):
            continue
        if not isinstance(values, list) or not all(isinstance(v, str) and v in allowed for v in values):
            raise ValueError(f"{key} must be a list of: {', '.join(allowed)}")
        clean[key] = list(dict.fromkeys(values))
    filters = spec.get("filters")
    if filters not in (None, []):
        if not isinstance(filters, list):
            raise ValueError('filters must be a list of {"filter_id": ..., "selected_values" or '
                             '"selected_range"}')
        for number, item in enumerate(filters, 1):
            if not isinstance(item, dict) or not isinstance(item.get("filter_id"), str) or not item["filter_id"]:
                raise ValueError(f"filter {number} needs a filter_id")
            if ("selected_values" in item) == ("selected_range" in item):
                raise ValueError(f"filter {number} ({item['filter_id']}) needs either selected_values or "
                                 "selected_range")
            if "selected_values" in item and not isinstance(item["selected_values"], list):
                raise ValueError(f"filter {number} ({item['filter_id']}): selected_values must be a list")
            if "selected_range" in item and not isinstance(item["selected_range"], dict):
                raise ValueError(f"filter {number} ({item['filter_id']}): selected_range must be an object")
        clean["filters"] = filters
    if spec.get("filter_set_id"):
        if not isinstance(spec["filter_set_id"], str):
            raise ValueError("filter_set_id must be a string")
        clean["filter_set_id"] = spec["filter_set_id"]
    minutes = spec.get("estimated_minutes")
    if minutes is not None:
        if isinstance(minutes, bool) or not isinstance(minutes, int) or not 1 <= minutes <= 600:
            raise ValueError("estimated_minutes must be a whole number of minutes from 1 to 600")
        clean["estimated_minutes"] = minutes
    return clean
