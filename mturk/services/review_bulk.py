"""Approve or reject a selection of assignments at once, with the review services, reporting per assignment."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..models import Assignment, Campaign
from ..providers.registry import get_provider
from ..states import InvalidTransition
from .review import ReviewError, approve_assignment, reject_assignment

ACTIONS = ("approve", "reject")


@dataclass
class SelectionReview:
    done: list[int] = field(default_factory=list)
    failed: dict[int, str] = field(default_factory=dict)  # assignment id -> why it was left as it was
    # flagged by the checks, left out of an approval: assignment id -> the checks that flagged it
    left_flagged: dict[int, list[str]] = field(default_factory=dict)


def review_selection(campaign: Campaign, assignment_ids: Iterable[int], action: str, feedback: str = "",
                     category: str = "", *, leave_flagged: bool = False) -> SelectionReview:
    """Approve or reject each selected assignment of the campaign. One that is refused (feedback missing or
    too short for the marketplace, a decision the state machine forbids, a marketplace error) is left
    unchanged and reported; the others are decided. `leave_flagged`: an approval leaves out the assignments
    the automatic checks flagged (listed in `left_flagged` with their checks, unchanged)."""
    if action not in ACTIONS:
        raise ReviewError("Unknown review action.")
    wanted = sorted(set(assignment_ids))
    found = {a.pk: a for a in Assignment.objects.filter(hit__campaign=campaign, pk__in=wanted)
             .select_related("hit__campaign", "worker")}
    result = SelectionReview()
    for pk in wanted:
        assignment = found.get(pk)
        if assignment is None:
            result.failed[pk] = "not an assignment of this campaign."
            continue
        if action == "approve" and leave_flagged and assignment.check_flags:
            result.left_flagged[pk] = [str(flag) for flag in assignment.check_flags]
            continue
        try:
            if action == "approve":
                approve_assignment(assignment, feedback.strip(), announce=False)
            else:
                reject_assignment(assignment, feedback, category=category)
        except (ReviewError, InvalidTransition) as exc:
            result.failed[pk] = str(exc)
            continue
        result.done.append(pk)
    if action == "approve" and result.done:  # one hand-off for the batch, as approve_submitted does
        get_provider(campaign.provider).decisions_recorded(campaign)
    return result
