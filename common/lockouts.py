"""Reads of the login lock-outs (django-axes' access attempts), for the notice on the researcher dashboard."""
from __future__ import annotations

from axes.models import AccessAttempt
from django.conf import settings
from django.utils import timezone


def active_lockouts() -> int:
    """How many (username, address) pairs are locked out now: at the failure limit within the cool-off."""
    since = timezone.now() - settings.AXES_COOLOFF_TIME
    return AccessAttempt.objects.filter(
        failures_since_start__gte=settings.AXES_FAILURE_LIMIT, attempt_time__gte=since
    ).count()
