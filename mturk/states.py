"""Explicit state machines for HIT and assignment status. An invalid transition raises."""
from __future__ import annotations

from dataclasses import dataclass

from django.db import models


class InvalidTransition(Exception):
    """Raised when an object is asked to move to a status its current status cannot reach."""


@dataclass(frozen=True)
class StateMachine:
    name: str
    transitions: dict[str, frozenset[str]]

    def targets(self, current: str) -> frozenset[str]:
        return self.transitions.get(current, frozenset())

    def can(self, current: str, target: str) -> bool:
        return target in self.targets(current)

    def check(self, current: str, target: str) -> None:
        if not self.can(current, target):
            allowed = ", ".join(sorted(self.targets(current))) or "none (final status)"
            raise InvalidTransition(
                f"{self.name} cannot go from '{current}' to '{target}' (allowed from '{current}': {allowed})"
            )


class HITStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    PUBLISHED = "published", "Published"
    EXPIRED = "expired", "Expired"
    DISPOSED = "disposed", "Disposed"


class AssignmentStatus(models.TextChoices):
    ACCEPTED = "accepted", "Accepted"
    SUBMITTED = "submitted", "Submitted"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"
    RETURNED = "returned", "Returned"
    EXPIRED = "expired", "Expired"
    # Left by a local worker (page closed, or no activity for TASK_INACTIVITY_SECONDS): the slot is free for
    # others, while the worker may still submit within the time limit (the late answer is kept).
    ABANDONED = "abandoned", "Abandoned"


class CampaignStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    ACTIVE = "active", "Active"
    PAUSED = "paused", "Paused"
    CLOSED = "closed", "Closed"


H, A, C = HITStatus, AssignmentStatus, CampaignStatus

HIT_MACHINE = StateMachine(
    "HIT",
    {
        H.DRAFT: frozenset({H.PUBLISHED, H.DISPOSED}),
        H.PUBLISHED: frozenset({H.EXPIRED, H.DISPOSED}),
        H.EXPIRED: frozenset({H.PUBLISHED, H.DISPOSED}),  # extending an expired HIT republishes it
        H.DISPOSED: frozenset(),
    },
)

ASSIGNMENT_MACHINE = StateMachine(
    "Assignment",
    {
        A.ACCEPTED: frozenset({A.SUBMITTED, A.RETURNED, A.EXPIRED, A.ABANDONED}),
        A.SUBMITTED: frozenset({A.APPROVED, A.REJECTED}),
        A.REJECTED: frozenset({A.APPROVED}),  # a researcher may override a rejection
        A.APPROVED: frozenset(),
        # A marketplace worker who returned a HIT (or let it expire) may accept it again.
        A.RETURNED: frozenset({A.ACCEPTED}),
        A.EXPIRED: frozenset({A.ACCEPTED}),
        # A left task: answered late (within the time limit), taken up again while its HIT has a free slot,
        # returned with the page's button, or expired at its deadline.
        A.ABANDONED: frozenset({A.SUBMITTED, A.ACCEPTED, A.RETURNED, A.EXPIRED}),
    },
)

CAMPAIGN_MACHINE = StateMachine(
    "Campaign",
    {
        C.DRAFT: frozenset({C.ACTIVE, C.CLOSED}),
        C.ACTIVE: frozenset({C.PAUSED, C.CLOSED}),
        C.PAUSED: frozenset({C.ACTIVE, C.CLOSED}),
        C.CLOSED: frozenset(),
    },
)

# Assignments that hold one of a HIT's slots (returned and expired ones free their slot).
SLOT_HOLDING = (A.ACCEPTED, A.SUBMITTED, A.APPROVED, A.REJECTED)
# Assignments counted against a campaign's per-worker limit: a left task still counts (it may be answered late).
LIMIT_COUNTED = (*SLOT_HOLDING, A.ABANDONED)
# Assignments whose answer has been received.
ANSWERED = (A.SUBMITTED, A.APPROVED, A.REJECTED)
