"""Pilots: the first items of a campaign done by several workers, so agreement can be measured early.

A campaign's pilot (Campaign.pilot_items N, Campaign.pilot_assignments K) is its first N real HITs (not gold,
not onboarding), each marked `HIT.pilot` and made for at least K workers when the HITs are added (add_hits marks
them); services.assignments hands open pilot HITs out first, in position order, so two workers answer the
same items after a few tasks. A campaign created without one gets it later with `give_overlap`: the first N real
HITs take K workers each, through the add-assignments service (a marketplace HIT is extended, within the budget
cap), and are marked as the pilot."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction
from django.db.models import QuerySet

from ...models import HIT, Campaign
from ...providers.base import ProviderError
from ...providers.registry import get_provider
from ...selectors.quality_needs import PILOT_ITEMS, PILOT_WORKERS
from ...services.campaigns import committed_spend, hit_cost
from ...services.hits import HITError, add_assignments
from ...states import HITStatus

MAX_PILOT_ITEMS = 1000
MAX_PILOT_WORKERS = 20


class PilotError(ValueError):
    """A refused pilot operation; the message is shown to the researcher."""


def pilot_hits(campaign: Campaign) -> QuerySet[HIT]:
    return HIT.objects.filter(campaign=campaign, pilot=True)


def _first_real(campaign: Campaign, items: int) -> list[HIT]:
    """The campaign's first `items` real HITs still open to workers (draft or published), by position."""
    return list(HIT.objects.filter(campaign=campaign, gold_item__isnull=True, onboarding=False,
                                   status__in=(HITStatus.DRAFT, HITStatus.PUBLISHED))
                .order_by("position", "id")[:items])


@dataclass(frozen=True)
class OverlapPlan:
    """What giving the first `items` HITs `workers` workers each would do and cost."""

    items: int
    workers: int
    hits: int  # the HITs found (at most `items`)
    extended: int  # of them, published HITs that take more assignments (money)
    added: int  # assignments added in all
    new_pilot: int  # of the HITs, those not in the pilot yet (handed out first from now on)
    cost: Decimal  # rewards and fees of the added assignments of published HITs
    over_budget: bool


def _check(items: int, workers: int) -> None:
    if not 1 <= items <= MAX_PILOT_ITEMS:
        raise PilotError(f"give overlap to 1 to {MAX_PILOT_ITEMS} items")
    if not 2 <= workers <= MAX_PILOT_WORKERS:
        raise PilotError(f"give each item to 2 to {MAX_PILOT_WORKERS} workers (agreement needs two)")


def plan_overlap(campaign: Campaign, items: int = PILOT_ITEMS, workers: int = PILOT_WORKERS) -> OverlapPlan:
    """Reads only: the HITs `give_overlap` would change and the extra cost (PilotError when the marketplace's
    fees cannot be learnt)."""
    _check(items, workers)
    provider = get_provider(campaign.provider)
    hits = _first_real(campaign, items)
    cost = Decimal("0")
    added = extended = 0
    try:
        for hit in hits:
            more = workers - hit.max_assignments
            if more <= 0:
                continue
            added += more
            if hit.status == HITStatus.PUBLISHED:
                extended += 1
                cost += hit_cost(campaign, provider, workers) - hit_cost(campaign, provider, hit.max_assignments)
        over = bool(cost) and campaign.budget_cap is not None and \
            committed_spend(campaign, provider) + cost > campaign.budget_cap
    except ProviderError as exc:
        raise PilotError(f"{provider.name}: {exc}") from None
    return OverlapPlan(items, workers, len(hits), extended, added, sum(not h.pilot for h in hits), cost, over)


@dataclass(frozen=True)
class Overlap:
    hits: int  # HITs marked as the pilot
    added: int  # assignments added


def give_overlap(campaign: Campaign, items: int = PILOT_ITEMS, workers: int = PILOT_WORKERS, *,
                 confirm_fee_increase: bool = False) -> Overlap:
    """Give the campaign's first `items` open real HITs `workers` workers each and mark them as its pilot (handed
    out first). A draft HIT is changed here; a published one through the add-assignments service (the
    marketplace is asked, each HIT under its own request token). The whole cost is checked against the budget
    cap before any HIT changes. Running it again adds nothing to HITs that already take `workers`."""
    _check(items, workers)
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
        plan = plan_overlap(campaign, items, workers)
        if not plan.hits:
            raise PilotError(f"campaign '{campaign.name}' has no draft or published HIT to give to more workers")
        if plan.over_budget:
            raise PilotError(f"{plan.added} more assignment(s) ({plan.cost} with fees) would cross the budget cap of "
                             f"{campaign.budget_cap}")
        hits = _first_real(campaign, items)
        drafts = [h.pk for h in hits if h.status == HITStatus.DRAFT and h.max_assignments < workers]
        HIT.objects.filter(pk__in=drafts).update(max_assignments=workers)
        HIT.objects.filter(pk__in=[h.pk for h in hits]).update(pilot=True)
        Campaign.objects.filter(pk=campaign.pk).update(pilot_items=max(campaign.pilot_items, len(hits)),
                                                       pilot_assignments=workers)
    for hit in hits:
        if hit.status == HITStatus.PUBLISHED and hit.max_assignments < workers:
            try:
                add_assignments(hit, workers - hit.max_assignments, confirm_fee_increase=confirm_fee_increase)
            except HITError as exc:
                raise PilotError(str(exc)) from None
    campaign.refresh_from_db(fields=["pilot_items", "pilot_assignments"])
    return Overlap(hits=len(hits), added=plan.added)
