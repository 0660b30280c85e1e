"""Gold and onboarding items: made, imported, mixed into a campaign's HITs, scored when an answer arrives.

(Interface fixed; bodies to be written.)"""
from __future__ import annotations

from typing import Any

from ..models import HIT, Assignment, Campaign, GoldItem


class GoldError(ValueError):
    """A refused gold operation; the message is shown to the researcher (names the line of a file)."""


def create_gold_item(*, task_kind: str, items: dict[str, Any], answer: Any, purpose: str = "gold", note: str = "",
                     user: Any = None) -> GoldItem:
    """Check items (TaskKind.validate_items) and the known answer (KindQuality.clean_gold), then store."""
    raise NotImplementedError


def gold_from_assignment(assignment: Assignment, *, purpose: str = "gold", user: Any = None) -> GoldItem:
    """A gold item made from an approved answer: the HIT's items, the answer as known answer."""
    raise NotImplementedError


def set_gold_active(gold_item: GoldItem, active: bool) -> GoldItem:
    raise NotImplementedError


def score_submission(campaign: Campaign, hit: HIT, answer: dict[str, Any]) -> tuple[float | None, list[str]]:
    """The gold score of an answer to a HIT (None when the HIT carries no gold) and the flags it adds
    (["gold_failed"] below mturk.quality.GOLD_PASS_MARK)."""
    raise NotImplementedError
