"""The generic export every task kind has: one JSON line per answered assignment."""
from __future__ import annotations

import json

from ..models import Assignment, Campaign
from ..states import ANSWERED
from .formats import ExportBundle, ExportFormat, register_format

PROGRESS_ROWS = 1000


def write_assignments_jsonl(bundle: ExportBundle, campaigns: list[Campaign]) -> int:
    rows = (
        Assignment.objects.filter(status__in=ANSWERED, confirmed=True)
        .select_related("hit__campaign", "worker")
        .order_by("hit__campaign_id", "hit__position", "submitted_at", "pk")
    )
    if campaigns:
        rows = rows.filter(hit__campaign__in=campaigns)
    count = 0
    bundle.add_steps(rows.count())  # one step per assignment, reported every PROGRESS_ROWS
    with bundle.open_text("assignments.jsonl") as handle:
        for a in rows.iterator(chunk_size=2000):
            record = {
                "campaign": a.hit.campaign.name,
                "task_kind": a.hit.campaign.task_kind,
                "hit_id": a.hit_id,
                "items": a.hit.items,
                "assignment_id": a.pk,
                "worker": f"{a.worker.provider}:{a.worker.external_id}",
                "status": a.status,
                "answer": a.answer,
                "check_flags": a.check_flags,
                "submitted_at": a.submitted_at.isoformat() if a.submitted_at else None,
                "time_on_task_seconds": a.time_on_task.total_seconds() if a.time_on_task else None,
                "simulated": a.is_simulated,
            }
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
            bundle.contributed([a.hit.campaign_id])
            bundle.simulated |= a.is_simulated
            if count % PROGRESS_ROWS == 0:
                bundle.advance(PROGRESS_ROWS)
    bundle.advance(count % PROGRESS_ROWS)
    bundle.contributed([])  # the card describes the campaigns asked for and those the rows came from
    bundle.counts["assignments"] = count
    return count


register_format(
    ExportFormat(
        name="assignments-jsonl",
        description="Every answered assignment, one JSON object per line (any task kind).",
        write=write_assignments_jsonl,
    )
)
