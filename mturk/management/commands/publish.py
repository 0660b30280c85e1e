"""`publish`: the old name of `publish_campaign`, kept for one release."""

from common.renamed_commands import RenamedCommand

from .publish_campaign import Command as PublishCampaign


class Command(RenamedCommand, PublishCampaign):
    old_name = "publish"
    new_name = "publish_campaign"
