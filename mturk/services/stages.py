"""Stage chaining: an approved result of one campaign creates the HITs of the campaigns it feeds.

Runs inside the approval's transaction, so an approval and the work it creates are stored
together; publishing the new HITs is handed to a background job once that transaction commits."""
from __future__ import annotations

import logging

from django.db import transaction

from ..jobs import send_after_commit
from ..models import Assignment, Campaign
from ..states import CampaignStatus
from ..task_kinds import get_task_kind
from .campaigns import CampaignError, add_hits

log = logging.getLogger(__name__)

PUBLISH_NEW_HITS = "mturk.tasks.publish_new_hits"


def feed_next_stages(assignment: Assignment) -> int:
    """Add HITs to every open campaign fed by the assignment's campaign; returns HITs added.

    An item a stage refuses (say, a description of an image that has no boxes) is logged and
    skipped: approving and paying valid work never depends on a later stage."""
    added = 0
    stages = Campaign.objects.filter(source_stage_id=assignment.hit.campaign_id).exclude(status=CampaignStatus.CLOSED)
    for stage in stages:
        items = get_task_kind(stage.task_kind).items_from_stage(stage, assignment)
        if not items:
            continue
        try:
            with transaction.atomic():  # a refused item must not undo (or block) the approval
                new = add_hits(stage, items, group=assignment.hit.group, require_gold=False)
        except CampaignError as exc:
            log.warning("stage %s did not take items %s from assignment %s: %s", stage.pk, items, assignment.pk, exc)
            continue
        added += len(new)
        if new and stage.status == CampaignStatus.ACTIVE:
            send_after_commit(PUBLISH_NEW_HITS, stage.pk)
    return added
