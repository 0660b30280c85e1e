"""Stage chaining: an approved result of one campaign creates the HITs of the campaigns it feeds.

Runs inside the approval's transaction, so an approval and the work it creates are stored
together; publishing the new HITs is handed to a background job once that transaction commits."""
from __future__ import annotations

from django.db import transaction

from ..models import Assignment, Campaign
from ..states import CampaignStatus
from ..task_kinds import get_task_kind
from .campaigns import add_hits


def feed_next_stages(assignment: Assignment) -> int:
    """Add HITs to every open campaign fed by the assignment's campaign; returns HITs added."""
    added = 0
    stages = Campaign.objects.filter(source_stage_id=assignment.hit.campaign_id).exclude(status=CampaignStatus.CLOSED)
    for stage in stages:
        items = get_task_kind(stage.task_kind).items_from_stage(stage, assignment)
        if not items:
            continue
        new = add_hits(stage, items)
        added += len(new)
        if new and stage.status == CampaignStatus.ACTIVE:
            from ..tasks import publish_new_hits

            transaction.on_commit(lambda pk=stage.pk: publish_new_hits.delay(pk))
    return added
