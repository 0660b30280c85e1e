"""Reading values out of Prolific's payloads, the same way wherever they are read."""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_datetime


def normalised_status(value: Any) -> str:
    """One spelling of Prolific's statuses: AWAITING_REVIEW -> AWAITING REVIEW, TIMED OUT -> TIMED-OUT."""
    return str(value or "").strip().upper().replace("_", " ").replace("TIMED OUT", "TIMED-OUT")


def moment(value: Any) -> datetime | None:
    """An ISO 8601 time (naive ones are UTC), or None."""
    parsed = parse_datetime(value) if isinstance(value, str) and value else None
    if parsed is not None and timezone.is_naive(parsed):
        parsed = timezone.make_aware(parsed, UTC)
    return parsed
