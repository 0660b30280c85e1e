from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from mturk.providers.registry import default_provider_name

from ...budget import estimate
from ...services.evaluations import EvaluationError
from ._human_eval import evaluation_named


class Command(BaseCommand):
    help = ("What launching a human evaluation would take: HITs, assignments, judgements, attention HITs, cost with "
            "the provider's fees, and the expected half-width of a system's 95% interval (with its assumptions).")

    def add_arguments(self, parser):
        parser.add_argument("name", help="the evaluation's name or id")
        parser.add_argument("--reward", default="", help="reward per assignment (default: the task kind's)")
        parser.add_argument("--provider", default=default_provider_name())

    def handle(self, *args: Any, name: str, reward: str, provider: str, **options: Any) -> None:
        evaluation = evaluation_named(name)
        try:
            amount = Decimal(reward) if reward else None
        except InvalidOperation:
            raise CommandError(f"--reward: '{reward}' is not an amount") from None
        try:
            budget = estimate(evaluation, reward=amount, provider=provider)
        except EvaluationError as exc:
            raise CommandError(str(exc)) from None
        cost = "unknown (see below)" if budget.cost is None else f"{budget.cost} (fee {budget.fee_per_assignment} " \
                                                                 "per assignment)"
        half = "n/a" if budget.half_width is None else f"±{budget.half_width:.3f}"
        self.stdout.write(
            f"{evaluation.name} on {budget.provider}: {budget.systems} judged systems, {budget.items} items\n"
            f"HITs {budget.hits} + {budget.attention_hits} attention; assignments {budget.assignments}; "
            f"judgements {budget.judgements}\n"
            f"reward {budget.reward} per assignment; cost {cost}\n"
            f"expected 95% half-width of {budget.half_width_of}: {half}\n"
            + "\n".join(f"  - {line}" for line in budget.assumptions))
