"""The visual-stories stage rules, per album (called from the task kinds' items_from_stage).

- Re-telling starts once every storytelling assignment of the album is approved, unless at least
  `discard_after_skips` storytellers found the album not storyable (then the album is discarded).
- DII, DIS and ratings start once every re-telling assignment of the album is approved; DII and DIS
  describe the sequence a strict majority of re-tellers chose (no majority: none).

The album's HIT row is locked first, so two approvals landing together see each other."""
from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from mturk.models import HIT, Assignment, submitted_answer
from mturk.states import AssignmentStatus

from ..models import ChosenSequence, Photo, Story

log = logging.getLogger(__name__)


def _approved_answers(assignment: Assignment) -> list[dict[str, Any]] | None:
    """The approved answers of the assignment's HIT, or None while some are still missing."""
    hit = HIT.objects.select_for_update().get(pk=assignment.hit_id)
    answers = [submitted_answer(pk, answer) for pk, answer in
               hit.assignments.filter(status=AssignmentStatus.APPROVED).values_list("pk", "answer")]
    return answers if len(answers) >= hit.max_assignments else None


def ready_for_retelling(assignment: Assignment) -> int | None:
    """The album id once its storytelling stage is complete and the album is kept."""
    answers = _approved_answers(assignment)
    if answers is None:
        return None
    album = assignment.hit.items["album"]
    skips = sum(1 for a in answers if a.get("skip"))
    if skips >= int(assignment.hit.campaign.options.get("discard_after_skips", 2)):
        log.info("album %s discarded: %d storytellers found it not storyable", album, skips)
        return None
    return album if skips < len(answers) else None


def retelling_complete(assignment: Assignment) -> bool:
    return _approved_answers(assignment) is not None


def choose_sequence(assignment: Assignment) -> ChosenSequence | None:
    """The album's majority sequence once its re-telling stage is complete (idempotent)."""
    answers = _approved_answers(assignment)
    if answers is None:
        return None
    album, campaign = assignment.hit.items["album"], assignment.hit.campaign_id
    existing = ChosenSequence.objects.filter(campaign_id=campaign, album_id=album).first()
    if existing is not None:
        return existing
    (sequence, votes), = Counter(a["sequence"] for a in answers).most_common(1)
    if votes * 2 <= len(answers):
        log.info("album %s: no sequence chosen by a majority of %d re-tellers", album, len(answers))
        return None
    return ChosenSequence.objects.create(campaign_id=campaign, album_id=album, sequence_id=sequence, votes=votes)


def chosen_sequence_photos(assignment: Assignment) -> list[Photo]:
    chosen = choose_sequence(assignment)
    if chosen is None:
        return []
    return list(Photo.objects.filter(storylets__story_id=chosen.sequence_id).order_by("storylets__order"))


def album_stories(assignment: Assignment) -> list[int]:
    """Every story of the album from this workflow (its storytelling and re-telling campaigns)."""
    retell = assignment.hit.campaign
    campaigns = [pk for pk in (retell.pk, retell.source_stage_id) if pk]
    stories = Story.objects.filter(album_id=assignment.hit.items["album"], assignment__hit__campaign_id__in=campaigns)
    return list(stories.order_by("setting", "id").values_list("pk", flat=True))
