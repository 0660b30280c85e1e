from django.core.management.base import BaseCommand, CommandError

from ...services.campaigns import set_campaign_status
from ...states import CampaignStatus, InvalidTransition
from ._common import find_campaign

ACTIONS = {"pause": CampaignStatus.PAUSED, "close": CampaignStatus.CLOSED}


class Command(BaseCommand):
    help = ("Pause a campaign (no new task is handed out; a Prolific study is paused) or close it for good (a "
            "Prolific study is stopped). `publish_campaign CAMPAIGN` resumes a paused campaign.")

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign id or name")
        parser.add_argument("action", choices=sorted(ACTIONS))

    def handle(self, *args, campaign: str, action: str, **options):
        target = find_campaign(campaign)
        try:
            changed = set_campaign_status(target, ACTIONS[action])
        except InvalidTransition as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Campaign '{changed.name}' is {changed.get_status_display().lower()}.")
