"""Reads for running a campaign from its page: which actions its status and provider allow (from the
provider's capabilities in providers.base), and why the others are absent."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..models import Campaign
from ..providers.base import CrowdProvider
from ..providers.registry import get_provider, provider_label
from ..states import CampaignStatus

RUNNING = (CampaignStatus.ACTIVE, CampaignStatus.PAUSED)


@dataclass(frozen=True)
class RunActions:
    publish: bool  # draft: publish; paused: resume (publishing again makes the campaign active)
    resume: bool
    pause: bool
    close: bool
    add_assignments: bool
    expire: bool
    delete_decided: bool
    absent: list[str] = field(default_factory=list)  # why a provider has no such action, in words


def can_expire(provider: CrowdProvider) -> bool:
    """HITs can be taken off offer: ours (local crowd) or one by one on a marketplace that creates them.
    A Prolific study is one marketplace object: pausing or closing the campaign pauses or stops it."""
    return provider.creates_hits or not provider.has_marketplace


def can_delete_decided(provider: CrowdProvider) -> bool:
    """Only a marketplace that keeps each HIT (MTurk) has decided HITs to delete."""
    return provider.creates_hits


def run_actions(campaign: Campaign) -> RunActions:
    provider = get_provider(campaign.provider)
    status = campaign.status
    absent = []
    label = provider_label(provider.name)
    if not can_expire(provider):
        absent.append(f"Expire all HITs: on {label} the whole study is the offer; pause or close the "
                      "campaign to pause or stop it.")
    if not can_delete_decided(provider):
        absent.append(f"Delete decided HITs: {label} keeps no HIT of its own on a marketplace, so there "
                      "is nothing to delete (our records always stay).")
    if not provider.has_marketplace:
        absent.append("Sync and messaging workers: the local crowd has no marketplace to sync with or to send "
                      "messages through.")
    return RunActions(
        publish=status == CampaignStatus.DRAFT,
        resume=status == CampaignStatus.PAUSED,
        pause=status == CampaignStatus.ACTIVE,
        close=status in RUNNING,
        add_assignments=status in RUNNING,
        # Closing does not take a marketplace's HITs off offer (MTurk keeps listing them until they expire).
        expire=can_expire(provider) and (status in RUNNING or (status == CampaignStatus.CLOSED
                                                               and provider.creates_hits)),
        delete_decided=status != CampaignStatus.DRAFT and can_delete_decided(provider),
        absent=absent,
    )
