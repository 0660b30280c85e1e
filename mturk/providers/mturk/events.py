"""Handling marketplace event notifications, each event document once (keyed by its EventDocId).

SQS delivers at least once and MTurk may send a document twice. The EventDocId is stored in the same
transaction as the work the document causes, so a copy is skipped only if the first was fully handled;
a message is deleted from the queue only after that transaction committed."""
from __future__ import annotations

import logging
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from ...models import HIT, MarketplaceEvent
from ...work.services.marketplace_sync import SyncReport, reconcile
from ..registry import get_provider
from . import notifications

log = logging.getLogger(__name__)


@dataclass
class EventReport:
    documents: int = 0
    duplicates: int = 0
    malformed: int = 0
    hits_synced: int = 0
    new_submissions: int = 0


def sync_hit(hit: HIT, report: SyncReport) -> None:
    provider = get_provider(hit.campaign.provider)
    for remote in provider.submissions(hit):
        reconcile(hit, remote, report)


def handle_document(document: dict, report: EventReport) -> None:
    """Sync the HITs an event document names, once per EventDocId."""
    doc_id = str(document["EventDocId"])
    events = [e for e in document["Events"] if isinstance(e, dict)]
    first = events[0] if events else {}
    try:
        with transaction.atomic():
            MarketplaceEvent.objects.create(
                provider="mturk", event_doc_id=doc_id, event_type=str(first.get("EventType", ""))[:50],
                hit_external_id=str(first.get("HITId", ""))[:100],
                assignment_external_id=str(first.get("AssignmentId", ""))[:100],
            )
            hit_ids = sorted({str(e["HITId"]) for e in events if e.get("HITId")})
            sync_report = SyncReport()
            for hit in HIT.objects.filter(external_id__in=hit_ids, campaign__provider="mturk").select_related(
                    "campaign"):
                sync_hit(hit, sync_report)
                report.hits_synced += 1
            report.new_submissions += sync_report.new_submissions
    except IntegrityError:
        report.duplicates += 1
        return
    report.documents += 1


def poll_queue(queue_url: str, max_batches: int = 10) -> EventReport:
    """Read up to `max_batches` batches of messages from the queue, handle and delete them."""
    report = EventReport()
    for _ in range(max_batches):
        messages = notifications.receive(queue_url)
        if not messages:
            break
        for message in messages:
            try:
                document = notifications.parse_event_document(message.get("Body", ""))
            except ValueError as exc:
                log.warning("dropping a message that is not an MTurk event document: %s", exc)
                report.malformed += 1
            else:
                handle_document(document, report)
            notifications.delete(queue_url, message["ReceiptHandle"])
    return report
