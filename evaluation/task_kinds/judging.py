"""What the two human evaluation kinds share as task kinds: their options (the evaluation, its output kind and
questions), the check of their items, their payloads, and their attention checks' scope and problems (common.py)."""
from __future__ import annotations

from typing import Any, ClassVar

from mturk.models import HIT, Campaign
from mturk.task_kinds import TaskKind

from . import common


class OutputJudging(TaskKind):
    """A kind that judges the outputs of one human evaluation; `pair`: its items show two outputs (a comparison)
    rather than every output of the item."""

    pair: ClassVar[bool] = False
    option_help = common.OPTION_HELP

    def clean_options(self, options: dict[str, Any]) -> None:
        common.clean_options(options)

    def validate_items(self, items: list[dict[str, Any]]) -> None:
        common.validate_items(items, pair=self.pair)

    def gold_problems(self, options: dict[str, Any], gold: list[tuple[dict[str, Any], dict[str, Any]]]
                      ) -> list[str | None]:
        return common.gold_problems(options, gold)

    def gold_scope(self, options: dict[str, Any]) -> str:
        return common.gold_scope(options)

    def build_payloads(self, campaign: Campaign, hits: list[HIT]) -> dict[int, dict[str, Any]]:
        return common.build_payloads(hits)
