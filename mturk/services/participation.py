"""Private "already took part" qualifications: a worker who submitted work on a group (an album)
in a stage chain, or on a campaign that allows one task per worker, cannot take its other HITs.

The marketplace enforces it with a DoesNotExist requirement; our server enforces it too (see
services.assignments and providers.mturk.arrivals)."""
from __future__ import annotations

from django.db import IntegrityError, transaction

from ..jobs import send_after_commit
from ..models import HIT, Assignment, Campaign, MarketplaceQualification, QualificationGrant
from ..providers.base import CrowdProvider
from ..providers.registry import get_provider

GRANT_PARTICIPATION = "mturk.tasks.grant_participation"


def in_stage_chain(campaign: Campaign) -> bool:
    return campaign.source_stage_id is not None or campaign.next_stages.exists()


def participation_scopes(campaign: Campaign, hit: HIT, in_chain: bool | None = None) -> list[str]:
    """The scopes a submission to this HIT takes part in (pass `in_chain` to save a query per HIT)."""
    scopes: list[str] = []
    if in_chain is None:
        in_chain = in_stage_chain(campaign)
    if hit.group and in_chain:
        scopes.append(hit.group)
    if campaign.max_assignments_per_worker == 1:
        scopes.append(f"campaign:{campaign.pk}")
    return scopes


def qualification_for(scope: str, provider: CrowdProvider, sandbox: bool) -> str:
    """The marketplace id of the scope's qualification type, created once (intent stored first)."""
    try:
        with transaction.atomic():
            record, _ = MarketplaceQualification.objects.get_or_create(
                provider=provider.name, sandbox=sandbox, scope=scope)
    except IntegrityError:  # a concurrent job stored the same intent
        record = MarketplaceQualification.objects.get(provider=provider.name, sandbox=sandbox, scope=scope)
    if not record.external_id:
        record.external_id = provider.create_participation_qualification(scope, scope, sandbox)
        record.save(update_fields=["external_id"])
    return record.external_id


def record_participation(assignment: Assignment) -> int:
    """Store the grants a submitted assignment earns (granted on the marketplace by `grant_pending`).

    Only a confirmed assignment (one the marketplace reported) earns them: a forged visit under a
    worker's id must not lock that worker out of the campaign or the stage chain."""
    if not assignment.confirmed:
        return 0
    hit = assignment.hit
    campaign = hit.campaign
    provider = get_provider(campaign.provider)
    if not provider.has_marketplace:
        return 0
    scopes = participation_scopes(campaign, hit)
    qualifications = MarketplaceQualification.objects.filter(
        provider=provider.name, sandbox=campaign.sandbox, scope__in=scopes)
    created = 0
    for qualification in qualifications:
        _, new = QualificationGrant.objects.get_or_create(qualification=qualification, worker=assignment.worker)
        created += new
    return created


def note_submission(assignment: Assignment) -> None:
    """After the marketplace reported a submission: record the grants it earns and queue their granting."""
    if record_participation(assignment):
        send_after_commit(GRANT_PARTICIPATION, assignment.hit.campaign_id)


def grant_pending(campaign: Campaign | None = None) -> int:
    """Grant every stored, not yet granted participation qualification (silently). Safe to repeat."""
    pending = QualificationGrant.objects.filter(granted=False).select_related("qualification", "worker")
    if campaign is not None:
        pending = pending.filter(worker__assignments__hit__campaign=campaign).distinct()
    granted = 0
    for grant in pending:
        provider = get_provider(grant.qualification.provider)
        if not grant.qualification.external_id:
            continue
        provider.grant_participation(grant.qualification.external_id, grant.worker, grant.qualification.sandbox)
        QualificationGrant.objects.filter(pk=grant.pk).update(granted=True)
        granted += 1
    return granted
