"""Reads: what publishing a campaign would do, worked out without side effects (no marketplace call,
no write).

Shared by `manage.py publish_campaign --dry-run`, `GET /api/campaigns/{id}/estimate/` and the campaign page.
Everything comes from the services (plan_publication, estimate_cost, committed_spend) and the provider's
local checks (check_campaign, describe_requirements), applied to an unsaved copy of the campaign."""
from __future__ import annotations

import copy
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ..models import HIT, Campaign
from ..providers.base import CrowdProvider, ProviderError, money
from ..providers.registry import get_provider, own_crowd
from ..services.campaigns import (
    CampaignError,
    CostEstimate,
    PublishResult,
    committed_spend,
    estimate_cost,
    nothing_offered,
    plan_publication,
    settle_environment,
)
from ..services.participation import in_stage_chain
from ..states import CampaignStatus


@dataclass(frozen=True)
class PublicationPreview:
    provider: str
    sandbox: bool  # the environment publishing would use (marketplace providers only)
    has_marketplace: bool
    drafts: list[HIT]
    to_publish: list[HIT]
    all_drafts: CostEstimate  # every draft HIT, ignoring the budget cap
    within_budget: CostEstimate  # the HITs the budget cap lets through
    fee_per_assignment: Decimal
    fee_rule: str
    budget_cap: Decimal | None
    committed: Decimal  # what the published HITs and bonuses may already cost, with fees
    requirements: list[dict[str, Any]] | None  # None: the configuration is refused before they are built
    participation: list[str]  # the private "took part" requirements each HIT adds (described)
    error: str | None  # why publishing would be refused (checked locally)

    @property
    def stopped_by_budget(self) -> bool:
        return len(self.to_publish) < len(self.drafts)

    @property
    def left_in_draft(self) -> int:
        return len(self.drafts) - len(self.to_publish)

    @property
    def environment(self) -> str:
        if not self.has_marketplace:
            return "local"
        return "sandbox" if self.sandbox else "production"


def participation_rules(campaign: Campaign, provider: CrowdProvider | None = None) -> list[str]:
    """Who publishing keeps out (services.participation, or the provider's own exclusions), in words."""
    own = provider.participation_rules(campaign) if provider is not None else None
    if own is not None:
        return own
    rules = []
    if in_stage_chain(campaign):
        rules.append("workers who took part in a HIT's group (e.g. its album) in any stage of the chain are "
                     "excluded (DoesNotExist on a private qualification per group)")
    if campaign.max_assignments_per_worker == 1:
        rules.append("workers who did one HIT of this campaign are excluded (DoesNotExist on a private "
                     "qualification of the campaign)")
    return rules


def preview_publication(campaign: Campaign, provider_name: str | None = None, *,
                        sandbox: bool | None = None) -> PublicationPreview:
    """What `publish_campaign(campaign, provider_name, sandbox=sandbox)` would publish and cost.

    Raises UnknownProvider for an unknown provider name; every refusal publishing would make is
    reported in `error` instead, next to the plan."""
    provider = get_provider(provider_name or campaign.provider)
    candidate = copy.copy(campaign)  # changed in memory only, never saved
    errors: list[str] = []
    if campaign.status == CampaignStatus.CLOSED:
        errors.append(f"campaign '{campaign.name}' is closed")
    if campaign.provider != provider.name:
        if campaign.status != CampaignStatus.DRAFT:
            errors.append(f"campaign '{campaign.name}' is already published on '{campaign.provider}'")
        candidate.provider = provider.name
    try:
        settle_environment(candidate, provider, sandbox)
    except CampaignError as exc:
        errors.append(str(exc))
    try:
        provider.check_campaign(candidate)
    except ProviderError as exc:
        errors.append(f"{provider.name}: {exc}")
    try:
        requirements: list[dict[str, Any]] | None = provider.describe_requirements(candidate)
    except ProviderError:
        requirements = None
    pricing: CrowdProvider = provider
    try:
        fee = money(provider.assignment_fee(candidate))
        rule = provider.fee_rule(fee, candidate)
    except ProviderError as exc:  # the marketplace's fees could not be learnt: the plan is shown without them
        errors.append(f"{provider.name}: {exc}")
        pricing, fee, rule = own_crowd(), Decimal("0.00"), "unknown (see the error)"
    to_publish, drafts = plan_publication(candidate, pricing)
    if not to_publish and campaign.status == CampaignStatus.DRAFT:
        refusal = nothing_offered(candidate, pricing, drafts)
        if refusal:
            errors.append(refusal)
    return PublicationPreview(
        provider=provider.name,
        sandbox=candidate.sandbox,
        has_marketplace=provider.has_marketplace,
        drafts=drafts,
        to_publish=to_publish,
        all_drafts=estimate_cost(candidate, sum(h.max_assignments for h in drafts), pricing),
        within_budget=estimate_cost(candidate, sum(h.max_assignments for h in to_publish), pricing),
        fee_per_assignment=fee,
        fee_rule=rule,
        budget_cap=candidate.budget_cap,
        committed=money(committed_spend(candidate, pricing)),
        requirements=requirements,
        participation=participation_rules(candidate, provider) if provider.has_marketplace else [],
        error="; ".join(errors) or None,
    )


def cost_dict(cost: CostEstimate, hits: int) -> dict[str, Any]:
    return {"hits": hits, "assignments": cost.assignments, "rewards": str(cost.rewards), "fees": str(cost.fees),
            "total": str(cost.total)}


def preview_dict(preview: PublicationPreview) -> dict[str, Any]:
    """The preview as JSON-ready data (the estimate endpoint's body)."""
    return {
        "provider": preview.provider,
        "environment": preview.environment,
        "sandbox": preview.sandbox,
        "draft_hits": len(preview.drafts),
        "all_drafts": cost_dict(preview.all_drafts, len(preview.drafts)),
        "within_budget": cost_dict(preview.within_budget, len(preview.to_publish)),
        "fee_per_assignment": str(preview.fee_per_assignment),
        "fee_rule": preview.fee_rule,
        "budget_cap": None if preview.budget_cap is None else str(preview.budget_cap),
        "committed": str(preview.committed),
        "stopped_by_budget": preview.stopped_by_budget,
        "left_in_draft": preview.left_in_draft,
        "requirements": preview.requirements,
        "participation": preview.participation,
        "error": preview.error,
    }


def publication_summary(campaign: Campaign, result: PublishResult) -> list[str]:
    """What a publication did, as it is (the command's lines, the console's message): nothing is said to be
    published or queued that is not. `campaign`: as saved after publishing."""
    provider = get_provider(campaign.provider)
    money_prefix = provider.currency_prefix(campaign)
    where = f" on {provider.name} ({'sandbox' if campaign.sandbox else 'production'})" if provider.has_sandbox else ""
    if result.nothing_to_publish:
        return [f"Nothing to publish: every HIT of '{campaign.name}' is published already."]
    if result.unpaused and not result.published:
        lines = [f"Campaign '{campaign.name}' is active again (no new HIT to publish)."]
    elif result.waiting_for_stage:
        source = f"'{campaign.source_stage.name}'" if campaign.source_stage else "its source stage"
        lines = [f"'{campaign.name}' is active with no HIT yet: its HITs are added and published as {source} "
                 "approves results."]
    else:
        lines = [f"Published {result.published} HIT(s) of '{campaign.name}'{where}: up to {result.cost.assignments} "
                 f"assignments, {money_prefix}{result.cost.total} with fees."]
    if result.stopped_by_budget:
        lines.append(f"Stopped at the budget cap: {result.left_in_draft} HIT(s) left in draft.")
    if result.resumed:
        lines.append(f"{result.resumed} published HIT(s) were not on {provider.name} yet (an earlier job did not "
                     f"finish): handed to the job again ({result.job_label}).")
    if result.queued:
        lines.append(f"Queued on the task queue: {result.job_label}. Follow it on the campaign page or with "
                     "`sync_assignments`.")
    return lines
