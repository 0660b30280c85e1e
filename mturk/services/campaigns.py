"""Writes on campaigns and HITs: create, add HITs, publish within the budget cap, pause, close."""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from ..models import HIT, Bonus, Campaign
from ..providers.base import CrowdProvider, ProviderError, PublishOutcome, money
from ..providers.registry import default_provider_name, get_provider
from ..states import HIT_MACHINE, CampaignStatus, HITStatus
from ..task_kinds import get_task_kind
from .gold import GoldError, check_gold_settings, mix_gold, onboarding_hits
from .hit_statistics import hits_written


class CampaignError(ValueError):
    """Bad campaign input or a refused campaign operation; the message is shown to the user."""


def create_campaign(
    *,
    name: str,
    task_kind: str,
    provider: str | None = None,  # None: the default provider (settings.DEFAULT_CROWD_PROVIDER)
    reward: Decimal | None = None,
    assignments_per_hit: int | None = None,
    time_limit_seconds: int | None = None,
    instructions: str | None = None,
    title: str | None = None,
    description: str | None = None,
    budget_cap: Decimal | None = None,
    max_assignments_per_worker: int | None = None,
    options: dict[str, Any] | None = None,
    is_simulated: bool = False,
    created_by: Any = None,
    items: Iterable[dict[str, Any]] | None = None,
    source_stage: Campaign | None = None,
    keywords: str = "",
    lifetime_seconds: int | None = None,
    auto_approval_delay_seconds: int | None = None,
    qualifications: dict[str, Any] | None = None,
    auto_approve_passing: bool = False,
    tasks_per_submission: int | None = None,
    gold_rate: float = 0.0,
    onboarding_items: int = 0,
    onboarding_pass: float | None = None,
    pilot_items: int = 0,
    pilot_assignments: int | None = None,
) -> Campaign:
    """Create a draft campaign (with one HIT per item); unset values take the task kind's defaults.

    With `source_stage`, each assignment approved in that campaign adds this campaign's HITs
    (see services.stages). `gold_rate`: the share of its HITs that are gold items (services.gold mixes them
    in as HITs are added); `onboarding_items`: that many onboarding HITs each worker does first, passing with a
    mean score of `onboarding_pass` (local and Prolific only). `pilot_items`: the first that many real HITs are
    the pilot, each done by `pilot_assignments` workers (default 3) and handed out first (services.pilot)."""
    kind = get_task_kind(task_kind)
    provider = default_provider_name() if provider is None else provider
    crowd = get_provider(provider)
    defaults = kind.defaults
    unknown = set(options or {}) - set(defaults.options)
    if unknown:
        raise CampaignError(f"unknown option(s) for {task_kind}: {', '.join(sorted(unknown))}")
    merged_options = {**defaults.options, **(options or {})}
    try:
        kind.clean_options(merged_options)
    except ValueError as exc:
        raise CampaignError(str(exc)) from None
    try:
        qualifications = crowd.clean_qualifications(qualifications)
    except ValueError as exc:
        raise CampaignError(str(exc)) from None
    if Campaign.objects.filter(name=name).exists():
        raise CampaignError(f"a campaign named '{name}' already exists")
    campaign = Campaign(
        name=name,
        task_kind=task_kind,
        provider=provider,
        reward=defaults.reward if reward is None else Decimal(reward),
        assignments_per_hit=assignments_per_hit or defaults.assignments_per_hit,
        time_limit_seconds=time_limit_seconds or defaults.time_limit_seconds,
        instructions=defaults.instructions if instructions is None else instructions,
        title=title or defaults.title,
        description=defaults.description if description is None else description,
        budget_cap=budget_cap,
        max_assignments_per_worker=max_assignments_per_worker,
        options=merged_options,
        is_simulated=is_simulated,
        created_by=created_by,
        source_stage=source_stage,
        keywords=keywords,
        qualifications=qualifications,
        auto_approve_passing=auto_approve_passing,
        tasks_per_submission=tasks_per_submission or 1,
        gold_rate=gold_rate or 0.0,
        onboarding_items=onboarding_items or 0,
        pilot_items=pilot_items or 0,
        **{k: v for k, v in (("lifetime_seconds", lifetime_seconds),
                             ("auto_approval_delay_seconds", auto_approval_delay_seconds),
                             ("onboarding_pass", onboarding_pass),
                             ("pilot_assignments", pilot_assignments)) if v is not None},
    )
    try:
        campaign.full_clean()
    except Exception as exc:  # ValidationError -> one readable message
        raise CampaignError(_flatten(exc)) from None
    try:
        check_gold_settings(task_kind, crowd, campaign.gold_rate, campaign.onboarding_items,
                            get_task_kind(task_kind).options(campaign))
    except GoldError as exc:
        raise CampaignError(str(exc)) from None
    with transaction.atomic():
        campaign.save()
        onboarding = onboarding_hits(campaign, start=1)
        if onboarding:
            HIT.objects.bulk_create(onboarding)
        if items:
            add_hits(campaign, items)
    return campaign


def _flatten(exc: Exception) -> str:
    messages = getattr(exc, "message_dict", None)
    if messages:
        return "; ".join(f"{field}: {' '.join(errors)}" for field, errors in messages.items())
    return str(exc)


def _item_key(items: dict[str, Any]) -> str:
    return json.dumps(items, sort_keys=True)


@transaction.atomic
def add_hits(campaign: Campaign, items: Iterable[dict[str, Any]], group: str = "", *,
             require_gold: bool = True, known_new: bool = False) -> list[HIT]:
    """Add one HIT per item (skipping items the campaign already has), with gold HITs mixed in at the campaign's
    gold rate (services.gold.mix_gold), all in one insert in position order. Returns the new HITs.

    A HIT's group is the task kind's group of its item, else `group` (inherited from a feeding stage).
    `require_gold=False`: a campaign whose gold items were all switched off takes the items without gold (a
    stage feeding one item must not lose it) instead of refusing them. `known_new=True`: the caller guarantees that
    no item is one the campaign has (a unique key of its own), so the campaign's HITs are counted, not read."""
    items = list(items)
    kind = get_task_kind(campaign.task_kind)
    try:
        kind.validate_items(items)
    except ValueError as exc:
        raise CampaignError(str(exc)) from None
    Campaign.objects.select_for_update().filter(pk=campaign.pk).first()  # concurrent adds see each other's items
    existing: set[str] = set()
    gold_before = real_before = 0
    if known_new:
        counted = campaign.hits.aggregate(real=Count("id", filter=Q(gold_item__isnull=True)),
                                          gold=Count("id", filter=Q(gold_item__isnull=False, onboarding=False)))
        real_before, gold_before = counted["real"], counted["gold"]
    else:
        for hit_items, gold_item, onboarding in campaign.hits.values_list("items", "gold_item_id", "onboarding"):
            if gold_item is None:  # a gold or onboarding HIT may show the same items as a real one
                existing.add(_item_key(hit_items))
                real_before += 1
            elif not onboarding:
                gold_before += 1
    start = (campaign.hits.aggregate(m=Max("position"))["m"] or 0) + 1
    new: list[HIT] = []
    for item in items:
        key = _item_key(item)
        if key in existing:
            continue
        existing.add(key)
        new.append(
            HIT(campaign=campaign, items=item, group=kind.group_of(item) or group,
                max_assignments=campaign.assignments_per_hit, position=start + len(new))
        )
    _mark_pilot(campaign, new, real_before)
    try:
        new = mix_gold(campaign, new, real_before, gold_before, kind.group_of, require=require_gold)
    except GoldError as exc:
        raise CampaignError(str(exc)) from None
    created = HIT.objects.bulk_create(new, batch_size=1000)
    hits_written(len(created))
    return created


def _mark_pilot(campaign: Campaign, new_real: list[HIT], real_before: int) -> None:
    """Mark the new real HITs (in order) that fall within the campaign's first `pilot_items` real HITs as its
    pilot, each made for at least `pilot_assignments` workers (services.pilot)."""
    for hit in new_real[:max(campaign.pilot_items - real_before, 0)]:
        hit.pilot = True
        hit.max_assignments = max(hit.max_assignments, campaign.pilot_assignments)


@dataclass(frozen=True)
class CostEstimate:
    assignments: int
    rewards: Decimal
    fees: Decimal

    @property
    def total(self) -> Decimal:
        return self.rewards + self.fees


def estimate_cost(campaign: Campaign, assignments: int, provider: CrowdProvider | None = None) -> CostEstimate:
    """Rewards and the marketplace's fees for `assignments` assignments of the campaign."""
    provider = provider or get_provider(campaign.provider)
    fee = money(provider.assignment_fee(campaign))
    return CostEstimate(assignments, money(campaign.reward * assignments), money(fee * assignments))


def committed_spend(campaign: Campaign, provider: CrowdProvider) -> Decimal:
    """What the campaign may already cost: every slot of its published HITs, and its bonuses, with fees.

    An onboarding HIT (one slot for every worker who comes) counts the slots taken so far."""
    published = campaign.hits.exclude(status=HITStatus.DRAFT)
    sizes = published.filter(onboarding=False).values_list("max_assignments").annotate(n=Count("pk"))
    slots = sum((hit_cost(campaign, provider, size) * n for size, n in sizes), Decimal("0"))
    if campaign.onboarding_items:
        taken = published.filter(onboarding=True).values_list("taken_slots", flat=True)
        slots += sum((hit_cost(campaign, provider, size) for size in taken if size), Decimal("0"))
    bonuses = list(Bonus.objects.filter(assignment__hit__campaign=campaign).values_list("amount", flat=True))
    return slots + sum((b + provider.bonus_fee(b) for b in bonuses), Decimal("0"))


def hit_cost(campaign: Campaign, provider: CrowdProvider, assignments: int) -> Decimal:
    """Rewards and fees of one HIT of `assignments` assignments (the fee tier depends on that number)."""
    return (campaign.reward + money(provider.assignment_fee(campaign, assignments))) * assignments


@dataclass(frozen=True)
class PublishResult:
    published: int
    left_in_draft: int
    cost: CostEstimate
    worker_link: str | None
    stopped_by_budget: bool
    # The marketplace's half (a study, HITs on the marketplace) waits on the task queue: `job_label` says what.
    queued: bool = False
    resumed: int = 0  # published HITs a lost or failed marketplace job had left undone, handed to it again
    job_label: str = ""
    nothing_to_publish: bool = False  # an active campaign with no draft HIT: nothing was done
    waiting_for_stage: bool = False  # a stage with no HIT yet: active, its HITs come from its source stage
    unpaused: bool = False  # a paused campaign made active again


class PublicationFailed(CampaignError):
    """The campaign is published here, but the marketplace's half failed (run in-process, without a task queue);
    the failure is recorded on the campaign and publishing again tries again."""


def settle_environment(campaign: Campaign, provider: CrowdProvider, sandbox: bool | None) -> None:
    """Settle where a marketplace campaign runs: sandbox or production, fixed at its first publish."""
    wanted = settings.MTURK_SANDBOX if sandbox is None else sandbox
    if not provider.has_sandbox or campaign.status == CampaignStatus.DRAFT:
        campaign.sandbox = bool(wanted) and provider.has_sandbox
    elif sandbox is not None and sandbox != campaign.sandbox:
        where = "the sandbox" if campaign.sandbox else "production"
        raise CampaignError(f"campaign '{campaign.name}' is already published in {where}")


def plan_publication(campaign: Campaign, provider: CrowdProvider) -> tuple[list[HIT], list[HIT]]:
    """(HITs to publish, all draft HITs): drafts in order until the budget cap would be crossed.

    Onboarding HITs are not among them: they are published with the campaign's first HITs (publish_campaign)
    and cost what workers take of them (committed_spend)."""
    drafts = list(campaign.hits.filter(status=HITStatus.DRAFT, onboarding=False).order_by("position", "id"))
    spent = committed_spend(campaign, provider)
    to_publish: list[HIT] = []
    for hit in drafts:
        cost = hit_cost(campaign, provider, hit.max_assignments)
        if campaign.budget_cap is not None and spent + cost > campaign.budget_cap:
            break
        to_publish.append(hit)
        spent += cost
    return to_publish, drafts


def _check_provider(campaign: Campaign, provider: CrowdProvider) -> None:
    if campaign.onboarding_items and provider.creates_hits:
        raise CampaignError(f"{provider.name} hands out its HITs itself, so campaign '{campaign.name}' cannot route "
                            "workers to its onboarding items first (local or prolific only)")
    try:
        provider.check_campaign(campaign)
    except ProviderError as exc:
        raise CampaignError(f"{provider.name}: {exc}") from None


def nothing_offered(campaign: Campaign, provider: CrowdProvider, drafts: list[HIT]) -> str | None:
    """Why a first publication that would publish no HIT is refused (None: a stage waiting for its source)."""
    if drafts:
        return (f"campaign '{campaign.name}' has nothing to publish within its budget cap: ${campaign.budget_cap} "
                f"(with ${money(committed_spend(campaign, provider))} committed) leaves none of its {len(drafts)} "
                "draft HIT(s) room; raise the cap")
    if campaign.source_stage_id is None:
        return (f"campaign '{campaign.name}' has no HIT to publish: add HITs first (a selection of items, "
                "`import_images --campaign`, or the API's /hits/)")
    return None


def publish_campaign(campaign: Campaign, provider_name: str | None = None, *,
                     sandbox: bool | None = None) -> PublishResult:
    """Publish the campaign's draft HITs, stopping before the budget cap would be crossed.

    The HITs are marked published (the intent) before the provider is asked to publish them;
    marketplace providers create them in a background job that can be re-run safely. A first publication with
    nothing to publish is refused (CampaignError; the campaign stays a draft), except for a stage, which waits for
    the HITs its source stage adds; an active campaign with no draft HIT reports `nothing_to_publish`. Without a
    task queue the marketplace's job runs when the publication commits, and its failure raises PublicationFailed
    (the campaign stays published here, the failure is recorded on it)."""
    provider = get_provider(provider_name or campaign.provider)
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        if campaign.status == CampaignStatus.CLOSED:
            raise CampaignError(f"campaign '{campaign.name}' is closed")
        if campaign.provider != provider.name:
            if campaign.status != CampaignStatus.DRAFT:
                raise CampaignError(
                    f"campaign '{campaign.name}' is already published on '{campaign.provider}'"
                )
            campaign.provider = provider.name
        settle_environment(campaign, provider, sandbox)
        _check_provider(campaign, provider)
        try:
            to_publish, drafts = plan_publication(campaign, provider)
        except ProviderError as exc:  # e.g. the marketplace's fees could not be learnt: no budget check possible
            raise CampaignError(f"{provider.name}: {exc}") from None
        previous = campaign.status
        if not to_publish and previous == CampaignStatus.DRAFT:
            refusal = nothing_offered(campaign, provider, drafts)
            if refusal:
                raise CampaignError(refusal)
        for hit in to_publish:
            HIT_MACHINE.check(hit.status, HITStatus.PUBLISHED)
        now = timezone.now()
        HIT.objects.filter(pk__in=[h.pk for h in to_publish]).update(status=HITStatus.PUBLISHED, published_at=now)
        hits_written(len(to_publish))  # the next-HIT query's plan needs them counted as published (hit_statistics)
        if campaign.onboarding_items:
            campaign.hits.filter(onboarding=True, status=HITStatus.DRAFT).update(status=HITStatus.PUBLISHED,
                                                                               published_at=now)
        if campaign.status in (CampaignStatus.DRAFT, CampaignStatus.PAUSED):
            campaign.transition(CampaignStatus.ACTIVE)
            campaign.published_at = campaign.published_at or now
        campaign.save()
        if to_publish or previous == CampaignStatus.PAUSED:  # new HITs, or a paused campaign that starts again
            outcome = provider.publish(campaign, to_publish)
        else:
            outcome = PublishOutcome(published=0, worker_link=provider.worker_link(campaign))
        resumed = PublishOutcome(published=0)
        if provider.has_marketplace and outcome.job is None:
            resumed = provider.resume_publishing(campaign)
    for job in (outcome.job, resumed.job):  # in-process jobs ran as the transaction committed
        if job is not None and job.error:
            raise PublicationFailed(f"campaign '{campaign.name}' is published here, but "
                                    f"{job.error[:1].lower()}{job.error[1:]}")
    job = outcome.job or resumed.job
    return PublishResult(
        published=outcome.published,
        left_in_draft=len(drafts) - len(to_publish),
        cost=estimate_cost(campaign, sum(h.max_assignments for h in to_publish), provider),
        worker_link=outcome.worker_link,
        stopped_by_budget=len(to_publish) < len(drafts),
        queued=outcome.queued or resumed.queued,
        resumed=resumed.published,
        job_label=job.label if job is not None else "",
        nothing_to_publish=not to_publish and previous == CampaignStatus.ACTIVE and not resumed.published,
        waiting_for_stage=not to_publish and previous == CampaignStatus.DRAFT,
        unpaused=previous == CampaignStatus.PAUSED,
    )


def set_campaign_status(campaign: Campaign, target: str) -> Campaign:
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        campaign.transition(target)
        campaign.save(update_fields=["status"])
        get_provider(campaign.provider).campaign_changed(campaign)
    return campaign
