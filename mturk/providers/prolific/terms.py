"""Prolific's terms: rejection categories and message length, the pay floor, auto-approval, money in minor
units, and how a campaign maps onto a study (reward per submission, estimated minutes, places)."""
from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

from ..base import money

if TYPE_CHECKING:
    from ...models import Campaign

REJECTION_CATEGORIES = ("TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL", "FAILED_CHECK",
                        "LOW_EFFORT", "MALINGERING", "NO_CODE", "BAD_CODE", "NO_DATA", "UNSUPP_DEVICE", "OTHER")
MIN_REJECTION_MESSAGE = 100  # characters; Prolific refuses shorter messages
# Prolific's pay floor (researcher help, "Prolific's payment principles"): 6.00 per hour (GBP; USD 8.00).
MIN_HOURLY = {"GBP": Decimal("6.00"), "USD": Decimal("8.00")}
AUTO_APPROVAL_DAYS = 21  # unreviewed submissions are approved by Prolific after this many days


def cents(amount: Decimal) -> int:
    """Major units (Decimal) to Prolific's minor units (an int); half a cent rounds up."""
    return int((amount * 100).quantize(Decimal("1"), rounding=ROUND_HALF_UP))


def major(minor: int | str | Decimal) -> Decimal:
    return (Decimal(minor) / 100).quantize(Decimal("0.01"))


def bundle_reward(campaign: Campaign) -> Decimal:
    """What one submission (a bundle of tasks_per_submission tasks) pays, in major units."""
    return money(campaign.reward * campaign.tasks_per_submission)


def estimated_minutes(campaign: Campaign) -> int:
    spec = campaign.qualifications or {}
    if spec.get("estimated_minutes"):
        return int(spec["estimated_minutes"])
    # Without an estimate, a quarter of the time limit per task (time limits are generous upper bounds).
    return max(1, math.ceil(campaign.tasks_per_submission * campaign.time_limit_seconds / 60 / 4))


def places_for(slots: int, tasks_per_submission: int) -> int:
    return math.ceil(slots / max(1, tasks_per_submission))
