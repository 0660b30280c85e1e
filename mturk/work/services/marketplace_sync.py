"""Pulling work from a marketplace into our database, safely repeatable.

Records are matched on (HIT, worker) and the marketplace's assignment id: a marketplace reuses an
assignment id when a worker returns a HIT and another accepts it, so the id alone is never the key.
What the marketplace reports confirms our record of it (see providers.mturk.arrivals): only then
does it count.
A submission already stored (our task page stores answers before the hand-off) is not stored again;
an approval or rejection made on the marketplace (auto-approval) is recorded without calling it back."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, TypedDict

from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from rest_framework import serializers

from common.json_input import parse_json

from ...models import HIT, Assignment, Campaign
from ...providers.base import MarketplaceAssignment, ProviderError
from ...providers.registry import get_provider, provider_names
from ...services.gold import score_submission, with_flags
from ...services.participation import grant_pending, note_submission
from ...services.review import approve_assignment, approve_submitted, pay_pending_bonuses, reject_assignment
from ...states import ANSWERED, AssignmentStatus, CampaignStatus, HITStatus
from ...task_kinds import get_task_kind
from .assignments import expire_stale_assignments, get_or_create_worker
from .slots import store_taken_slots

log = logging.getLogger(__name__)
ANSWER_FIELD = "answer"  # the form field our task page posts to the marketplace (a JSON copy)
REPORTED = ("Submitted", "Approved", "Rejected")  # marketplace statuses of answered work
DECIDED = ("Approved", "Rejected")


@dataclass
class SyncReport:
    hits_checked: int = 0
    hits_unchanged: int = 0  # skipped: the marketplace's answer counts equal ours
    new_submissions: int = 0
    approved_elsewhere: int = 0
    rejected_elsewhere: int = 0
    returned: int = 0
    expired_hits: int = 0
    created_hits: int = 0  # published HITs a lost creation job had left without a marketplace id
    auto_approved_by_rules: int = 0
    flagged: list[int] = field(default_factory=list)

    def merge(self, other: SyncReport) -> None:
        for name in ("hits_checked", "hits_unchanged", "new_submissions", "approved_elsewhere",
                     "rejected_elsewhere", "returned", "expired_hits", "created_hits",
                     "auto_approved_by_rules"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.flagged += other.flagged


def _answer_from(remote: MarketplaceAssignment, campaign: Campaign,
                 hit: HIT) -> tuple[object, list[str], float | None]:
    """The answer the marketplace holds (posted by our page as JSON), validated and scored like a direct
    submission: (answer, check flags, gold score)."""
    raw = remote.answers.get(ANSWER_FIELD)
    if raw is None:
        return {"marketplace_answers": remote.answers}, ["answer_not_on_platform"], None
    kind = get_task_kind(campaign.task_kind)
    try:
        answer = parse_json(raw)  # the worker's browser posted it: untrusted, with the API's limits
        payload = kind.build_payloads(campaign, [hit])[hit.pk]
        cleaned = kind.validate(campaign, payload, answer)
    except (ValueError, serializers.ValidationError):
        return {"marketplace_answers": remote.answers}, ["answer_invalid"], None
    score, gold_flags = score_submission(campaign, hit, cleaned)
    return cleaned, with_flags(kind.hit_checks(campaign, hit, cleaned), gold_flags), score


def reconcile(hit: HIT, remote: MarketplaceAssignment, report: SyncReport) -> Assignment:
    """Bring our record of one marketplace assignment up to date. Idempotent."""
    campaign = hit.campaign
    with transaction.atomic():
        worker = get_or_create_worker(campaign.provider, remote.worker_id)
        # The id was reused: whoever held it before this worker returned the HIT.
        report.returned += Assignment.objects.filter(
            hit=hit, external_id=remote.assignment_id, status=AssignmentStatus.ACCEPTED,
        ).exclude(worker=worker).update(status=AssignmentStatus.RETURNED)
        changed = ["marketplace_status"]
        local = Assignment.objects.select_for_update().filter(hit=hit, worker=worker, confirmed=True).first()
        if local is None:
            # The arrival whose page stored this answer, under the id the marketplace reports: now confirmed.
            # Records stored under other ids by this worker's id stay unconfirmed (forged visits).
            local = Assignment.objects.select_for_update().filter(
                hit=hit, worker=worker, external_id=remote.assignment_id, confirmed=False).first()
            if local is not None:
                local.confirmed = True
                changed.append("confirmed")
        if local is None:
            accepted = remote.accepted_at or timezone.now()
            local = Assignment.objects.create(
                hit=hit, worker=worker, external_id=remote.assignment_id, accepted_at=accepted,
                deadline=accepted + timedelta(seconds=campaign.time_limit_seconds),
            )
        if local.external_id != remote.assignment_id:
            local.external_id = remote.assignment_id
            changed.append("external_id")
        if local.status in (AssignmentStatus.RETURNED, AssignmentStatus.EXPIRED):
            local.transition(AssignmentStatus.ACCEPTED)
        if local.status == AssignmentStatus.ACCEPTED:
            local.answer, local.check_flags, local.gold_score = _answer_from(remote, campaign, hit)
            local.transition(AssignmentStatus.SUBMITTED)
            local.submitted_at = remote.submitted_at or timezone.now()
            local.time_on_task = local.submitted_at - local.accepted_at
            changed += ["answer", "check_flags", "gold_score", "status", "submitted_at", "time_on_task"]
            report.new_submissions += 1
        local.marketplace_status = remote.status
        local.save(update_fields=changed)
        store_taken_slots([hit.pk])  # a record confirmed, created or re-opened, or a reused id's holder returned
        note_submission(local)
    if remote.status == "Approved" and local.status != AssignmentStatus.APPROVED:
        local = approve_assignment(local, remote.feedback, on_marketplace=False)
        report.approved_elsewhere += 1
    elif remote.status == "Rejected" and local.status == AssignmentStatus.SUBMITTED:
        local = reject_assignment(local, remote.feedback or "Rejected on the marketplace.", on_marketplace=False)
        report.rejected_elsewhere += 1
    return local


def _create_pending(campaign: Campaign) -> int:
    """Create the published HITs the marketplace does not have yet (their request tokens make it safe
    even if a creation job is still running); a refusal is recorded on the campaign, not raised."""
    try:
        return get_provider(campaign.provider).create_pending_hits(campaign)
    except ProviderError as exc:
        log.warning("creating the pending HITs of campaign %s failed: %s", campaign.pk, exc)
        return 0


def _expire_past_hits(campaign: Campaign) -> int:
    return HIT.objects.filter(campaign=campaign, status=HITStatus.PUBLISHED, expires_at__lt=timezone.now()).update(
        status=HITStatus.EXPIRED)


def _all_decided(hit: HIT) -> bool:
    return not hit.assignments.filter(
        status__in=(AssignmentStatus.SUBMITTED, AssignmentStatus.ACCEPTED), confirmed=True).exists()


class KnownCounts(TypedDict):
    known_answered: int
    known_decided: int


if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

    HITWithCounts = WithAnnotations[HIT, KnownCounts]
else:
    HITWithCounts = HIT


def _open_hits(campaign: Campaign) -> QuerySet[HITWithCounts]:
    """The campaign's HITs on the marketplace that are not finished, with what we know of their answers."""
    reported = Q(assignments__marketplace_status__in=REPORTED)
    decided = Q(assignments__marketplace_status__in=DECIDED)
    return (campaign.hits.filter(status__in=(HITStatus.PUBLISHED, HITStatus.EXPIRED), marketplace_done=False)
            .exclude(external_id="").order_by("position", "id")
            .annotate(known_answered=Count("assignments", filter=reported),
                      known_decided=Count("assignments", filter=decided)))


def sync_campaign(campaign: Campaign, answer_counts: dict[str, tuple[int, int]] | None = None) -> SyncReport:
    """Pull a campaign's submissions and decisions from its marketplace, then apply its review rules.

    The marketplace's answer counts (one listing for the whole account, or `answer_counts` from the
    caller) let HITs whose counts match ours be skipped: only HITs with news cost a call each."""
    provider = get_provider(campaign.provider)
    report = SyncReport()
    expire_stale_assignments(campaign)
    if provider.has_marketplace and not provider.creates_hits:  # one study whose participants come to us
        participants = provider.sync_participants(campaign)
        report.new_submissions += participants.new_submissions
        report.returned += participants.returned
        report.approved_elsewhere += participants.approved_elsewhere
        report.rejected_elsewhere += participants.rejected_elsewhere
        pay_pending_bonuses(campaign)
    elif provider.has_marketplace:
        report.created_hits = _create_pending(campaign)
        report.expired_hits = _expire_past_hits(campaign)
        if answer_counts is None:
            answer_counts = provider.answer_counts(campaign.sandbox) or {}
        reviewable = provider.reviewable_hit_ids(campaign) or set()
        for hit in _open_hits(campaign).iterator(chunk_size=200):
            hit.campaign = campaign
            if answer_counts.get(hit.external_id) == (hit.known_answered, hit.known_decided) and (
                    hit.external_id not in reviewable):
                report.hits_unchanged += 1
                continue
            report.hits_checked += 1
            for remote in provider.submissions(hit):
                reconcile(hit, remote, report)
            if hit.external_id in reviewable and _all_decided(hit):
                provider.mark_reviewed(hit)
                HIT.objects.filter(pk=hit.pk).update(marketplace_done=True)
        grant_pending(campaign)
        pay_pending_bonuses(campaign)
    if campaign.auto_approve_passing:
        result = approve_submitted(campaign, passing_checks_only=True)
        report.auto_approved_by_rules = result.approved
        report.flagged = result.flagged
    return report


def sync_all() -> SyncReport:
    """Sync every open campaign (the periodic job); the account's HITs are listed once per environment."""
    total = SyncReport()
    for name in provider_names():
        try:
            get_provider(name).periodic_work()
        except Exception:
            log.exception("the periodic work of the %s provider failed", name)
    listings: dict[tuple[str, bool], dict[str, tuple[int, int]] | None] = {}
    for campaign in Campaign.objects.exclude(status__in=(CampaignStatus.DRAFT, CampaignStatus.CLOSED)):
        try:
            provider = get_provider(campaign.provider)
            key = (provider.name, campaign.sandbox)
            if provider.creates_hits and key not in listings:
                listings[key] = provider.answer_counts(campaign.sandbox) or {}
            total.merge(sync_campaign(campaign, listings.get(key)))
        except Exception:  # one failing campaign must not stop the others; the next run retries it
            log.exception("sync of campaign %s failed", campaign.pk)
    return total


__all__ = ["ANSWERED", "SyncReport", "reconcile", "sync_all", "sync_campaign"]
