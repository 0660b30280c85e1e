"""Prolific participant groups: the workspace's block list, and one group per stage of a chain.

A group is created without a request token, so its intent is stored first (a `MarketplaceQualification` row
with the scope and no id) and, before creating, a group of that name is looked for: a creation whose answer
was lost is found again instead of repeated. Names carry the scope and a stable suffix of SECRET_KEY so two
deployments sharing a workspace do not share groups."""
from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import IntegrityError, transaction

from ...models import Campaign, MarketplaceQualification

if TYPE_CHECKING:
    from .provider import ProlificProvider

BLOCK_LIST = "blocklist"


def _deployment() -> str:
    return hashlib.sha256(f"prolific-groups:{settings.SECRET_KEY}".encode()).hexdigest()[:8]


def group_name(scope: str) -> str:
    return f"vl-{_deployment()}-{scope}"


def group_for(provider: ProlificProvider, scope: str, description: str) -> str:
    """The Prolific id of the scope's group, created once (found by name after a lost answer)."""
    try:
        with transaction.atomic():
            record, _ = MarketplaceQualification.objects.get_or_create(provider=provider.name, sandbox=False,
                                                                       scope=scope)
    except IntegrityError:  # a concurrent job stored the same intent
        record = MarketplaceQualification.objects.get(provider=provider.name, sandbox=False, scope=scope)
    if record.external_id:
        return record.external_id
    name = group_name(scope)
    external = provider.find_group(name) or provider.create_group(name, description)
    MarketplaceQualification.objects.filter(pk=record.pk, external_id="").update(external_id=external)
    record.refresh_from_db(fields=["external_id"])
    return record.external_id


def block_list_group(provider: ProlificProvider) -> str:
    """The workspace block list: every study of ours keeps its members out."""
    return group_for(provider, BLOCK_LIST, "Participants blocked by the researchers of this platform.")


def stage_scope(campaign: Campaign) -> str:
    return f"stage:{campaign.pk}"


def stage_group(provider: ProlificProvider, campaign: Campaign) -> str:
    """The group finishers of this stage are added to (by the study's completion code)."""
    return group_for(provider, stage_scope(campaign),
                     f"Participants who completed a submission of stage '{campaign.name}'.")


def chain_of(campaign: Campaign) -> list[Campaign]:
    """Every campaign of the stage chain the campaign belongs to (itself included), in creation order."""
    root = campaign
    seen = {root.pk}
    while root.source_stage_id is not None and root.source_stage_id not in seen:
        root = Campaign.objects.get(pk=root.source_stage_id)
        seen.add(root.pk)
    chain: list[Campaign] = []
    frontier = [root]
    visited: set[int] = set()
    while frontier:
        current = frontier.pop(0)
        if current.pk in visited:
            continue
        visited.add(current.pk)
        chain.append(current)
        frontier.extend(Campaign.objects.filter(source_stage=current).order_by("pk"))
    return chain
