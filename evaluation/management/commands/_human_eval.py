"""What the human evaluation commands share: finding an evaluation by name or id."""
from __future__ import annotations

from django.core.management.base import CommandError

from ...listing import find_evaluation
from ...models import HumanEvaluation


def evaluation_named(name: str) -> HumanEvaluation:
    evaluation = find_evaluation(name)
    if evaluation is None:
        raise CommandError(f"there is no human evaluation named '{name}'")
    return evaluation
