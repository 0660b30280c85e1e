"""`campaign_status`: the old name of `set_campaign_status`, kept for one release."""
from common.renamed_commands import RenamedCommand

from .set_campaign_status import Command as SetCampaignStatus


class Command(RenamedCommand, SetCampaignStatus):
    old_name = "campaign_status"
    new_name = "set_campaign_status"
