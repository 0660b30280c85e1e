"""Helpers shared by the management commands."""
from django.core.management.base import CommandError

from ...models import Campaign
from ...selectors.campaigns import campaign_by_name_or_id


def find_campaign(name_or_id: str) -> Campaign:
    campaign = campaign_by_name_or_id(name_or_id)
    if campaign is None:
        raise CommandError(f"no campaign named or numbered '{name_or_id}'")
    return campaign
