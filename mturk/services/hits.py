"""The HIT lifecycle after publishing: expire, extend, add assignments, delete when decided."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.db import transaction
from django.db.models import Count, F, QuerySet
from django.utils import timezone

from ..models import HIT, Assignment, Campaign
from ..providers.base import ProviderError
from ..providers.registry import get_provider
from ..states import HIT_MACHINE, AssignmentStatus, HITStatus
from .campaigns import committed_spend, hit_cost

FEE_BOUNDARY = 10  # MTurk charges 40% instead of 20% on HITs with 10 or more assignments


class HITError(ValueError):
    """A refused HIT operation; the message is shown to the researcher."""


def _locked(hit: HIT) -> HIT:
    return HIT.objects.select_for_update().select_related("campaign").get(pk=hit.pk)


def _provider_call(action, *args) -> None:
    try:
        action(*args)
    except ProviderError as exc:
        raise HITError(str(exc)) from None


def expire_hit(hit: HIT) -> HIT:
    """Take a HIT off offer now. Workers who already accepted it may still submit until their deadline."""
    with transaction.atomic():
        locked = _locked(hit)
        if locked.status in (HITStatus.EXPIRED, HITStatus.DISPOSED):
            return locked
        locked.transition(HITStatus.EXPIRED)
        _provider_call(get_provider(locked.campaign.provider).expire, locked)
        locked.expires_at = timezone.now()
        locked.save(update_fields=["status", "expires_at"])
    return locked


def expire_campaign(campaign: Campaign) -> int:
    """Expire every published HIT of a campaign; returns how many."""
    count = 0
    for hit in campaign.hits.filter(status=HITStatus.PUBLISHED).order_by("pk"):
        expire_hit(hit)
        count += 1
    return count


def extend_hit(hit: HIT, seconds: int) -> HIT:
    """Keep a HIT on offer `seconds` longer than now or its current expiry (an expired HIT re-opens)."""
    if not 60 <= seconds <= 365 * 24 * 3600:
        raise HITError("Extend by 60 seconds to 365 days.")
    with transaction.atomic():
        locked = _locked(hit)
        if locked.status == HITStatus.EXPIRED:
            locked.transition(HITStatus.PUBLISHED)
        elif locked.status != HITStatus.PUBLISHED:
            raise HITError(f"HIT {locked.pk} is {locked.status}; only published or expired HITs can be extended.")
        now = timezone.now()
        base = max(now, locked.expires_at) if locked.expires_at else now
        new_expiry = base + timedelta(seconds=seconds)
        _provider_call(get_provider(locked.campaign.provider).extend, locked, new_expiry)
        locked.expires_at = new_expiry
        locked.marketplace_done = False
        locked.save(update_fields=["status", "expires_at", "marketplace_done"])
    return locked


@dataclass(frozen=True)
class AddedAssignments:
    """What adding assignments to every published or expired HIT of a campaign would cost."""
    count: int  # more assignments per HIT
    hits: int
    cost: Decimal  # rewards and fees, each HIT at the fee tier of its new size
    over_budget: bool
    crossing_fee_tier: int  # HITs going from fewer than 10 to 10 or more assignments (MTurk's higher fee)


def _open_hits(campaign: Campaign) -> QuerySet[HIT]:
    """Published or expired HITs that more assignments can be added to: onboarding HITs already take every worker
    who comes."""
    return campaign.hits.filter(status__in=(HITStatus.PUBLISHED, HITStatus.EXPIRED), onboarding=False).order_by("pk")


def added_assignments_cost(campaign: Campaign, count: int) -> AddedAssignments:
    """Reads only: the extra cost of `count` more assignments on every open HIT (ProviderError when the
    marketplace's fees cannot be learnt)."""
    provider = get_provider(campaign.provider)
    sizes = list(_open_hits(campaign).order_by().values_list("max_assignments").annotate(n=Count("pk")))
    if not sizes:
        return AddedAssignments(count, 0, Decimal("0.00"), False, 0)
    cost = sum(((hit_cost(campaign, provider, size + count) - hit_cost(campaign, provider, size)) * n
                for size, n in sizes), Decimal("0"))
    over = campaign.budget_cap is not None and committed_spend(campaign, provider) + cost > campaign.budget_cap
    crossing = sum(n for size, n in sizes if size < FEE_BOUNDARY <= size + count) if provider.creates_hits else 0
    return AddedAssignments(count, sum(n for _, n in sizes), cost, over, crossing)


def add_assignments_everywhere(campaign: Campaign, count: int, *, confirm_fee_increase: bool = False) -> int:
    """Let `count` more workers do every published or expired HIT of the campaign (more places on Prolific),
    within the budget cap, checked for all of them before any is changed; returns how many HITs. A marketplace
    that creates each HIT is asked per HIT (each with its own request token); one that keeps one study per
    campaign is told once."""
    if not 1 <= count <= 1000:
        raise HITError("Add 1 to 1000 assignments.")
    provider = get_provider(campaign.provider)
    open_hits = _open_hits(campaign)
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
        try:
            added = added_assignments_cost(campaign, count)
        except ProviderError as exc:
            raise HITError(str(exc)) from None
        hits = added.hits
        if not hits:
            raise HITError("The campaign has no published HIT to add assignments to.")
        if added.over_budget:
            raise HITError(f"Adding {count} assignment(s) to {hits} HIT(s) ({added.cost} with fees) would cross the "
                           f"budget cap of {campaign.budget_cap}.")
        if not provider.creates_hits:
            open_hits.update(max_assignments=F("max_assignments") + count, marketplace_done=False)
            provider.campaign_changed(campaign)
            return hits
    for hit in list(open_hits):
        add_assignments(hit, count, confirm_fee_increase=confirm_fee_increase)
    return hits


def add_assignments(hit: HIT, count: int, *, confirm_fee_increase: bool = False) -> HIT:
    """Let `count` more workers do a HIT, within the budget cap.

    Going from fewer than 10 to 10 or more assignments moves a marketplace HIT into the 40% fee
    tier (and MTurk refuses it for HITs created with fewer than 10): refused unless confirmed."""
    if not 1 <= count <= 1000:
        raise HITError("Add 1 to 1000 assignments.")
    with transaction.atomic():
        locked = _locked(hit)
        campaign = locked.campaign
        if locked.status not in (HITStatus.PUBLISHED, HITStatus.EXPIRED):
            raise HITError(f"HIT {locked.pk} is {locked.status}; publish it before adding assignments.")
        provider = get_provider(campaign.provider)
        total = locked.max_assignments + count
        crosses = locked.max_assignments < FEE_BOUNDARY <= total
        if crosses and provider.creates_hits and not confirm_fee_increase:
            old = provider.assignment_fee(campaign, locked.max_assignments)
            new = provider.assignment_fee(campaign, total)
            raise HITError(
                f"HIT {locked.pk} would have {total} assignments: the fee per assignment rises from ${old} to "
                f"${new} (10 or more assignments), and MTurk refuses to extend a HIT created with fewer than 10. "
                "Confirm to try anyway, or add at most "
                f"{FEE_BOUNDARY - 1 - locked.max_assignments} assignment(s)."
            )
        # The fee tier is per HIT: crossing 10 assignments moves every assignment of the HIT to the higher fee.
        cost = hit_cost(campaign, provider, total) - hit_cost(campaign, provider, locked.max_assignments)
        if campaign.budget_cap is not None and committed_spend(campaign, provider) + cost > campaign.budget_cap:
            raise HITError(f"Adding {count} assignment(s) (${cost} with fees) would cross the budget cap "
                           f"of ${campaign.budget_cap}.")
        token = f"more-{locked.pk}-{locked.max_assignments}-{count}"
        _provider_call(provider.add_assignments, locked, count, token)
        locked.max_assignments = total
        locked.marketplace_done = False
        locked.save(update_fields=["max_assignments", "marketplace_done"])
    return locked


def undecided(hit: HIT) -> QuerySet[Assignment]:
    """Assignments that still need a person (submitted) or may still be submitted (accepted, in time)."""
    return hit.assignments.filter(status=AssignmentStatus.SUBMITTED, confirmed=True) | hit.assignments.filter(
        status=AssignmentStatus.ACCEPTED, deadline__gte=timezone.now())


def delete_hit(hit: HIT) -> HIT:
    """Remove a HIT from the marketplace once every submission is decided (our record stays)."""
    with transaction.atomic():
        locked = _locked(hit)
        if locked.status == HITStatus.DISPOSED:
            return locked
        waiting = undecided(locked).count()
        if waiting:
            raise HITError(f"HIT {locked.pk} still has {waiting} assignment(s) to decide or in progress.")
        if locked.status == HITStatus.PUBLISHED and locked.expires_at and locked.expires_at > timezone.now():
            raise HITError(f"HIT {locked.pk} is still on offer; expire it first.")
        HIT_MACHINE.check(locked.status, HITStatus.DISPOSED)
        if locked.external_id:  # a HIT expired before the job created it never reached the marketplace
            _provider_call(get_provider(locked.campaign.provider).delete, locked)
        locked.transition(HITStatus.DISPOSED)
        locked.marketplace_done = True
        locked.save(update_fields=["status", "marketplace_done"])
    return locked


def delete_decided_hits(campaign: Campaign) -> tuple[int, dict[int, str]]:
    """Delete every expired HIT of a campaign whose work is all decided; (deleted, {hit: why not})."""
    deleted, skipped = 0, {}
    for hit in campaign.hits.filter(status=HITStatus.EXPIRED).order_by("pk"):
        try:
            delete_hit(hit)
            deleted += 1
        except HITError as exc:
            skipped[hit.pk] = str(exc)
    return deleted, skipped
