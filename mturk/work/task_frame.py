"""The frame around every task page: the reward, the time left and the task's position.

The time left is computed on the server (the assignment's deadline minus now) and sent as seconds, so a
wrong clock in the worker's browser changes nothing. The position is "Task n of at most m": n is the
worker's answered tasks in this campaign (in this Prolific session) plus one; m is what honestly bounds it
without counting the campaign: the Prolific bundle size, else the campaign's limit per worker, else nothing
("Task n"). Counting the worker's answered tasks is the frame's one query; it reads the worker's own
assignments only, so it does not grow with the campaign."""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from ..models import Assignment, Campaign
from ..providers.registry import get_provider
from ..states import ANSWERED

WARN_SECONDS = 120  # the warning shows at 2 minutes left, or at a fifth of a shorter time limit
WARN_MIN_SECONDS = 10


@dataclass(frozen=True)
class TaskFrame:
    reward: str
    time_limit_seconds: int
    seconds_left: int | None  # None: a preview (no clock runs)
    warn_at: int
    number: int | None  # None: a preview
    most: int | None
    return_note: str  # how a marketplace's worker gives the task back ("" for the local crowd: a button does)

    @property
    def time_limit(self) -> str:
        return duration_text(self.time_limit_seconds)

    @property
    def clock(self) -> str:
        """The time left as the page's countdown shows it: "12:05", "1:02:03"."""
        return clock_text(self.seconds_left or 0)

    @property
    def position(self) -> str:
        if self.number is None:
            return ""
        return f"Task {self.number} of at most {self.most}" if self.most else f"Task {self.number}"


def duration_text(seconds: int) -> str:
    """3600 -> "1 h", 1800 -> "30 min", 90 -> "1 min 30 s"."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours} h" if hours else "", f"{minutes} min" if minutes else "", f"{secs} s" if secs else ""]
    return " ".join(part for part in parts if part) or "0 s"


def clock_text(seconds: int) -> str:
    hours, rest = divmod(max(0, seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def warn_at(time_limit_seconds: int) -> int:
    return min(WARN_SECONDS, max(WARN_MIN_SECONDS, time_limit_seconds // 5))


def reward_text(campaign: Campaign) -> str:
    return get_provider(campaign.provider).reward_text(campaign)


def most_tasks(campaign: Campaign) -> int | None:
    return get_provider(campaign.provider).most_tasks(campaign)


def answered_before(assignment: Assignment) -> int:
    """The worker's answered tasks in the assignment's campaign (a session's own, for
    providers that count per session)."""
    done = Assignment.objects.filter(worker_id=assignment.worker_id, hit__campaign_id=assignment.hit.campaign_id,
                                     status__in=ANSWERED)
    if get_provider(assignment.hit.campaign.provider).per_session:
        done = done.filter(external_id=assignment.external_id)
    return done.count()


def frame_for(campaign: Campaign, assignment: Assignment | None, now: datetime | None = None) -> TaskFrame:
    """The frame of a task page; `assignment` None: a preview (the time limit, no clock, no position)."""
    seconds_left = number = None
    if assignment is not None:
        remaining = (assignment.deadline - (now or timezone.now())).total_seconds()
        seconds_left = max(0, math.ceil(remaining))  # rounded up: the page's time never ends before the server's
        number = answered_before(assignment) + 1
    return TaskFrame(
        reward=reward_text(campaign),
        time_limit_seconds=campaign.time_limit_seconds,
        seconds_left=seconds_left,
        warn_at=warn_at(campaign.time_limit_seconds),
        number=number,
        most=most_tasks(campaign),
        return_note=get_provider(campaign.provider).return_note,
    )

