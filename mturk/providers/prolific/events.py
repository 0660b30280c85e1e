"""Prolific's webhooks: verified, stored once per X-Event-ID, then handled by reading Prolific's current state.

Prolific delivers each event at least once (up to 12 attempts over about a day) with a stable `X-Event-ID`,
signs it with the workspace's secret (`X-Prolific-Request-Signature` = base64 of HMAC-SHA256(secret,
timestamp + body), `X-Prolific-Request-Timestamp` = UNIX seconds) and gives no ordering guarantee.

- The receiver only verifies and stores (`store_event`): the unique (provider, event_doc_id) constraint keeps a
  redelivered event from being stored twice; handling is queued once the row is committed.
- Handling (`handle_pending_events`) never trusts the status in the payload: it reads the submission or study
  from Prolific and reconciles our records (providers.prolific.sync), then marks the event handled in the same
  transaction. Events delivered out of order therefore end in the same, current state; an event whose
  handling failed stays pending and is handled by the next run (the periodic sync runs it too)."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from ...jobs import task_named
from ...models import MarketplaceEvent
from ..base import ProviderError, ProviderUnavailable
from .client import ProlificAuthError
from .sync import refresh_study, sync_submission_by_id

log = logging.getLogger(__name__)

PROVIDER = "prolific"
HANDLE_EVENTS = "mturk.tasks.prolific_handle_events"  # the task that handles the stored events
SUBMISSION_STATUS_CHANGE = "submission.status.change"
STUDY_STATUS_CHANGE = "study.status.change"
HANDLED_EVENT_TYPES = (SUBMISSION_STATUS_CHANGE, STUDY_STATUS_CHANGE)
MAX_ID_LENGTH = 100  # MarketplaceEvent.event_doc_id / assignment_external_id


# ---- verification ----------------------------------------------------------------------------------
def parse_timestamp(value: str) -> float | None:
    """The request's time as epoch seconds: UNIX seconds as Prolific documents them (milliseconds, 13 digits
    and more, are recognised too), or an ISO 8601 date-time with its offset. None if it is neither."""
    text = (value or "").strip()
    if not text:
        return None
    try:
        number = float(text)
    except ValueError:
        pass
    else:
        if number != number or number in (float("inf"), float("-inf")):
            return None
        return number / 1000 if abs(number) >= 1e12 else number
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None  # a time without its offset could be any of 26 hours
    return moment.timestamp()


def timestamp_problem(timestamp: str, now: float | None = None) -> str:
    """Why the request's timestamp is refused ("" if it is recent enough)."""
    moment = parse_timestamp(timestamp)
    if moment is None:
        return "X-Prolific-Request-Timestamp is missing or not a UNIX timestamp"
    tolerance = settings.PROLIFIC_WEBHOOK_TOLERANCE_SECONDS
    drift = (time.time() if now is None else now) - moment
    if drift > tolerance:
        return f"the request is {int(drift)} s old (older than {tolerance} s are refused: a replay, or a clock off)"
    if -drift > tolerance:
        return f"the request's timestamp is {int(-drift)} s in the future (more than {tolerance} s are refused)"
    return ""


def expected_signature(secret: str, timestamp: str, body: bytes) -> bytes:
    digest = hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()
    return base64.b64encode(digest)


def signature_matches(secret: str, timestamp: str, raw_body: bytes, signature: str) -> bool:
    """The signature of the raw body (as sent), or else of the body re-serialised the way Prolific's documented
    example does it (`json.dumps` of the parsed JSON): which of the two Prolific signs is not documented."""
    given = (signature or "").strip().encode()
    if not given or not secret:
        return False
    if hmac.compare_digest(expected_signature(secret, timestamp, raw_body), given):
        return True
    try:
        reserialised = json.dumps(json.loads(raw_body)).encode()
    except (ValueError, UnicodeDecodeError):
        return False
    return reserialised != raw_body and hmac.compare_digest(
        expected_signature(secret, timestamp, reserialised), given)


def request_problem(secret: str, timestamp: str, raw_body: bytes, signature: str, now: float | None = None) -> str:
    """Why a webhook call is refused ("" if it is authentic and recent)."""
    if not signature:
        return "X-Prolific-Request-Signature is missing"
    problem = timestamp_problem(timestamp, now)
    if problem:
        return problem
    if not signature_matches(secret, timestamp, raw_body, signature):
        return "the signature does not match (is PROLIFIC_WEBHOOK_SECRET the workspace's current secret?)"
    return ""


def verify_signature(secret: str, timestamp: str, raw_body: bytes, signature: str, now: float | None = None) -> bool:
    """True if the call is signed with `secret` and its timestamp is within PROLIFIC_WEBHOOK_TOLERANCE_SECONDS."""
    return not request_problem(secret, timestamp, raw_body, signature, now)


# ---- storage ---------------------------------------------------------------------------------------
class MalformedEvent(ValueError):
    """The event cannot be stored (no id, not a JSON object, ids too long)."""


def store_event(event_id: str, payload: Any) -> bool:
    """Store a verified event once. False if this X-Event-ID was already received (nothing changes); True if it
    is new, in which case its handling is queued once the row is committed."""
    event_id = (event_id or "").strip()
    if not event_id:
        raise MalformedEvent("X-Event-ID is missing")
    if len(event_id) > MAX_ID_LENGTH:
        raise MalformedEvent(f"X-Event-ID is longer than {MAX_ID_LENGTH} characters")
    if not isinstance(payload, dict):
        raise MalformedEvent("the body is not a JSON object")
    resource_id = payload.get("resource_id", "")
    if not isinstance(resource_id, str) or len(resource_id) > MAX_ID_LENGTH:
        raise MalformedEvent(f"resource_id must be a string of at most {MAX_ID_LENGTH} characters")
    event_type = payload.get("event_type", "")
    if not isinstance(event_type, str):
        raise MalformedEvent("event_type must be a string")
    try:
        with transaction.atomic():
            MarketplaceEvent.objects.create(
                provider=PROVIDER, event_doc_id=event_id, event_type=event_type[:50], payload=payload,
                hit_external_id="", assignment_external_id=resource_id,
            )
    except IntegrityError:
        return False
    transaction.on_commit(queue_handling)
    return True


def queue_handling() -> None:
    """Queue the handling job. The event is already stored: if the broker cannot take the job, the next
    event's job or the periodic sync handles it."""
    task = task_named(HANDLE_EVENTS)
    try:
        task.delay()
    except Exception:  # the broker's errors vary; the stored event is handled later anyway
        log.warning("could not queue the handling of Prolific events; the periodic sync will handle them",
                    exc_info=True)


# ---- handling --------------------------------------------------------------------------------------
@dataclass
class HandleReport:
    handled: int = 0  # events marked handled (a burst about one resource counts each of its events)
    submissions_synced: int = 0
    studies_refreshed: int = 0
    ignored: int = 0  # event types we do not act on, or events without a resource id
    failed: int = 0  # Prolific refused the read (4xx): marked handled, the periodic sync covers the resource
    deferred: int = 0  # left pending (Prolific unreachable, or an unexpected error): handled by a later run
    problems: list[str] = field(default_factory=list)


def pending_events(limit: int) -> list[tuple[int, str, str]]:
    """(pk, event_type, resource id) of the oldest unhandled Prolific events."""
    rows = (MarketplaceEvent.objects.filter(provider=PROVIDER, handled_at__isnull=True)
            .order_by("received_at", "pk").values_list("pk", "event_type", "assignment_external_id")[:limit])
    return [(pk, event_type, resource) for pk, event_type, resource in rows]


def group_by_resource(rows: Iterable[tuple[int, str, str]]) -> list[tuple[str, str, list[int]]]:
    """Events about the same resource, in the order of their first event: one read of Prolific's current
    state answers all the events about it that arrived before the read."""
    groups: dict[tuple[str, str], list[int]] = {}
    for pk, event_type, resource in rows:
        key = (event_type, resource) if event_type in HANDLED_EVENT_TYPES and resource else ("", str(pk))
        groups.setdefault(key, []).append(pk)
    return [(event_type, resource, pks) for (event_type, resource), pks in groups.items()]


def handle_resource(event_type: str, resource_id: str, report: HandleReport) -> None:
    """Reconcile one resource from Prolific's current state (never from the event's payload)."""
    if event_type == SUBMISSION_STATUS_CHANGE:
        sync_submission_by_id(resource_id)
        report.submissions_synced += 1
    elif event_type == STUDY_STATUS_CHANGE:
        refresh_study(resource_id)
        report.studies_refreshed += 1
    else:
        report.ignored += 1


def handle_pending_events(limit: int = 500) -> HandleReport:
    """Handle up to `limit` stored, unhandled Prolific events, oldest first. Each resource is reconciled and its
    events marked handled in one transaction; rows another job is handling are skipped. Prolific unreachable
    (or refusing our token): stop, leaving the rest pending for the next run."""
    report = HandleReport()
    groups = group_by_resource(pending_events(limit))
    for index, (event_type, resource_id, pks) in enumerate(groups):
        try:
            with transaction.atomic():
                locked = list(MarketplaceEvent.objects.select_for_update(skip_locked=True)
                              .filter(pk__in=pks, handled_at__isnull=True).values_list("pk", flat=True))
                if not locked:
                    continue  # handled meanwhile by another job
                try:
                    with transaction.atomic():
                        handle_resource(event_type, resource_id, report)
                except (ProviderUnavailable, ProlificAuthError):
                    raise
                except ProviderError as exc:  # a 4xx about this resource: retrying cannot change the answer
                    report.failed += 1
                    report.problems.append(f"{event_type} {resource_id}: {exc}")
                    log.warning("Prolific event about %s %s not reconciled: %s", event_type, resource_id, exc)
                MarketplaceEvent.objects.filter(pk__in=locked).update(handled_at=timezone.now())
                report.handled += len(locked)
        except (ProviderUnavailable, ProlificAuthError) as exc:
            report.deferred += sum(len(rest) for _, _, rest in groups[index:])
            report.problems.append(f"stopped: {exc}")
            log.warning("handling of Prolific events stopped (left pending for the next run): %s", exc)
            break
        except Exception as exc:  # one broken event must not hold up the others
            report.deferred += len(pks)
            report.problems.append(f"{event_type} {resource_id}: {exc}")
            log.exception("Prolific event about %s %s failed; left pending", event_type, resource_id)
    return report
