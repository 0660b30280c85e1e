"""Simulated workers for the demo data: each takes and answers every HIT of a campaign it can, through the same
services a real worker's requests go through (assign_next_hit, submit_answer), its assignments marked simulated;
a simulated campaign whose work is done is then closed (the console shows it completed)."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ...models import Assignment, Campaign
from ...providers.registry import own_crowd
from ...services.campaigns import set_campaign_status
from ...states import CampaignStatus
from ...task_kinds import get_task_kind
from .assignments import NoTaskAvailable, assign_next_hit, get_or_create_worker, submit_answer

# (the worker's number from 1, the HIT's page payload) -> the answer
AnswerFor = Callable[[int, dict[str, Any]], dict[str, Any]]


def work_simulated(campaign: Campaign, worker_ids: list[str], answer_for: AnswerFor) -> int:
    """The local workers `worker_ids` in turn answer every HIT they can get; returns the number of answers."""
    kind = get_task_kind(campaign.task_kind)
    answered = 0
    for number, external_id in enumerate(worker_ids, start=1):
        worker = get_or_create_worker(own_crowd().name, external_id)
        while True:
            try:
                assignment = assign_next_hit(campaign, worker)
            except NoTaskAvailable:
                break
            payload = kind.build_payloads(campaign, [assignment.hit])[assignment.hit.pk]
            answer = answer_for(number, payload)
            Assignment.objects.filter(pk=assignment.pk).update(is_simulated=True)
            submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id, answer=answer)
            answered += 1
    return answered


def close_simulated(campaigns: Iterable[Campaign]) -> None:
    """Close the simulated campaigns among `campaigns` once their work is done and decided: nothing more comes to
    them, and the console shows them completed, not active. Closed ones are left as they are."""
    for campaign in campaigns:
        campaign.refresh_from_db(fields=["status", "is_simulated"])
        if campaign.is_simulated and campaign.status != CampaignStatus.CLOSED:
            set_campaign_status(campaign, CampaignStatus.CLOSED)
