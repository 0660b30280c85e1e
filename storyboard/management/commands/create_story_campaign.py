import json
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from mturk.providers.registry import default_provider_name, provider_names
from mturk.services.campaigns import CampaignError
from mturk.services.chains import MONEY_SETTINGS

from ...models import Album
from ...services.workflow import STAGES, create_story_workflow


def stage_setting(value: str) -> tuple[str, str, Any]:
    """`retell.assignments_per_hit=5`, `tell.options={"discard_after_skips": 1}` -> (stage, field, value);
    an amount of money (`tell.reward=1.20`) is a Decimal as written, never a float."""
    target, sep, raw = value.partition("=")
    stage, dot, name = target.partition(".")
    if not sep or not dot:
        raise CommandError(f"--set {value!r}: expected STAGE.FIELD=VALUE, e.g. retell.assignments_per_hit=5")
    if name in MONEY_SETTINGS:
        try:
            money = Decimal(raw.strip())
        except InvalidOperation:
            raise CommandError(f"--set {value!r}: {name} is an amount of money, e.g. {stage}.{name}=1.20") from None
        if not money.is_finite():
            raise CommandError(f"--set {value!r}: {name} is an amount of money, e.g. {stage}.{name}=1.20")
        return stage, name, money
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        parsed = raw
    return stage, name, parsed


class Command(BaseCommand):
    help = ("Launch the visual-stories workflow on albums: storytelling -> re-telling -> DII + DIS (+ ratings), "
            "one chained campaign per stage, named '<NAME> · <stage>'.")

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--album", action="append", default=[], help="album id (external id); repeatable")
        parser.add_argument("--all-albums", action="store_true", help="every imported album")
        parser.add_argument("--ratings", action="store_true", help="add the rate_story stage (5 judges per story)")
        parser.add_argument("--provider", default=default_provider_name(), help=f"({', '.join(provider_names())})")
        parser.add_argument("--set", action="append", default=[], metavar="STAGE.FIELD=VALUE",
                            help=f"override a stage setting (stages: {', '.join(STAGES)}); repeatable")
        parser.add_argument("--publish", action="store_true", help="publish every stage now")

    def handle(self, *args, **o):
        if o["all_albums"]:
            albums = list(Album.objects.order_by("pk"))
        else:
            albums = list(Album.objects.filter(external_id__in=o["album"]).order_by("pk"))
            missing = sorted(set(o["album"]) - {a.external_id for a in albums})
            if missing:
                raise CommandError(f"unknown album(s): {', '.join(missing)}")
        settings: dict[str, dict[str, Any]] = {}
        for value in o["set"]:
            stage, name, parsed = stage_setting(value)
            settings.setdefault(stage, {})[name] = parsed
        try:
            campaigns = create_story_workflow(o["name"], albums, ratings=o["ratings"], provider=o["provider"],
                                              settings=settings, publish=o["publish"])
        except CampaignError as exc:
            raise CommandError(str(exc)) from None
        for stage, campaign in campaigns.items():
            self.stdout.write(f"{stage}: campaign {campaign.pk} '{campaign.name}' ({campaign.task_kind}, "
                              f"${campaign.reward} x {campaign.assignments_per_hit}, {campaign.status})")
        self.stdout.write(f"{len(albums)} album(s) in the storytelling stage.")
