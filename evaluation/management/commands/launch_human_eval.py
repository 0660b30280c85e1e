import json
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from mturk.providers.registry import default_provider_name

from ...services.evaluations import EvaluationError
from ...services.launch import LaunchedNotPublished, launch_evaluation
from ._human_eval import evaluation_named


class Command(BaseCommand):
    help = ("Launch a human evaluation: plan its HITs and make its campaign (with the attention checks as gold "
            "items), a draft unless --publish.")

    def add_arguments(self, parser):
        parser.add_argument("name", help="the evaluation's name or id")
        parser.add_argument("--provider", default=default_provider_name())
        parser.add_argument("--reward", default="", help="reward per assignment (default: the task kind's)")
        parser.add_argument("--publish", action="store_true", help="publish the campaign now")
        parser.add_argument("--campaign-settings", default="", help=(
            'campaign settings as JSON, e.g. Prolific\'s \'{"tasks_per_submission": 2, "qualifications": '
            '{"estimated_minutes": 3}}\''))

    def handle(self, *args: Any, name: str, provider: str, reward: str, publish: bool, campaign_settings: str,
               **options: Any) -> None:
        evaluation = evaluation_named(name)
        try:
            amount = Decimal(reward) if reward else None
        except InvalidOperation:
            raise CommandError(f"--reward: '{reward}' is not an amount") from None
        try:
            values = json.loads(campaign_settings) if campaign_settings else {}
        except json.JSONDecodeError as exc:
            raise CommandError(f"--campaign-settings: not JSON ({exc})") from None
        if not isinstance(values, dict):
            raise CommandError("--campaign-settings: a JSON object is needed, e.g. '{\"tasks_per_submission\": 2}'")
        try:
            campaign = launch_evaluation(evaluation, provider=provider, reward=amount, publish=publish,
                                         settings=values)
        except (EvaluationError, LaunchedNotPublished) as exc:
            raise CommandError(str(exc)) from None
        gold = campaign.hits.filter(gold_item__isnull=False).count()
        self.stdout.write(f"launched '{evaluation.name}': campaign '{campaign.name}' (id {campaign.pk}, "
                          f"{campaign.status}) with {campaign.hits.count()} HITs, {gold} of them attention checks")
