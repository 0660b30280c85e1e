"""compare_outputs (human evaluation, design pairwise): a judge sees two outputs for one test item side by side
(stacked on a phone) with the item's image or photo sequence, and says on each aspect which is better, or that
they are about the same. The outputs are named by their place only ("Caption A", "Story 1"), never by system.

HIT items: {"item": <EvaluationItem id>, "outputs": [<a>, <b>]}, a shown first (left, or on top). Answer:
{"preferences": {"<aspect>": 0 | 1 | "tie"}} (0/1: the position chosen). An approved answer gives one
HumanJudgement per aspect (output = a, other = b, preferred = the chosen output or null for a tie); attention
checks give none."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from rest_framework import serializers

from mturk.models import Assignment, Campaign
from mturk.task_kinds import StrictSerializer, TaskDefaults, register

from ..aspects import ASPECTS
from ..models import HumanJudgement
from . import common
from .judging import OutputJudging

TIE = "tie"


def is_choice(value: Any) -> bool:
    return value == TIE or (common.whole_number(value) and value in (0, 1))


class CompareOutputsResult(StrictSerializer):
    preferences = serializers.JSONField()

    def validate_preferences(self, value: Any) -> dict[str, int | str]:
        aspects = self.context["options"]["aspects"]
        if not isinstance(value, dict):
            raise serializers.ValidationError("Answer every question.")
        problems = [f"Unknown question {name!r}." for name in sorted(set(value) - set(aspects))]
        problems += [f"\"{ASPECTS[name].comparison}\": choose the first, the second, or about the same."
                     for name in aspects if not is_choice(value.get(name))]
        if problems:
            raise serializers.ValidationError(problems)
        return {name: value[name] for name in aspects}


@register
class CompareOutputs(OutputJudging):
    pair = True
    name = "compare_outputs"
    label = "Compare two generated captions or stories"
    blurb = ("The worker sees two outputs for an image or a photo sequence and says which is better on each of "
             "the evaluation's questions (or that they are about the same), without knowing who wrote them.")
    template = "evaluation/compare_outputs.html"
    review_template = "evaluation/review_compare_outputs.html"
    result_serializer = CompareOutputsResult
    answer_needs_payload = False  # the answer is checked against the options only
    defaults = TaskDefaults(
        reward=Decimal("0.05"),
        assignments_per_hit=3,
        time_limit_seconds=10 * 60,
        title="Which description of the picture is better?",
        description="Compare two descriptions of the same picture (or two stories of the same photos).",
        instructions=("Look at the picture (or the photos) and read both texts. For each question, choose the "
                      "better text, or \"About the same\" when neither is better. Keys: Tab moves between "
                      "questions, the arrow keys choose an answer, Enter submits."),
        options=dict(common.OPTIONS),
    )

    def options(self, campaign: Campaign) -> dict[str, Any]:
        options = super().options(campaign)
        kind = options["output_kind"]
        return {**options, "questions": common.questions(options),
                "labels": [common.output_label(kind, 0), common.output_label(kind, 1)]}

    def summary(self, answer: dict[str, Any] | None) -> str:
        preferences = (answer or {}).get("preferences") if isinstance(answer, dict) else None
        if not isinstance(preferences, dict):
            return ""
        words = {0: "first", 1: "second", TIE: "tie"}
        return ", ".join(f"{name}: {words.get(value, '?')}" for name, value in preferences.items())

    def review_context(self, campaign: Campaign, assignments: list[Assignment],
                       payloads: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
        """Per assignment: the item's picture or photos as the judge saw them (`payloads`), the two outputs on the
        sides shown (place, text, system and role), each question's choice, and for an attention check the output
        known to be better and the check's result. Three queries (item names, outputs, known answers; the last
        only when the page has attention checks)."""
        options = self.options(campaign)
        labels = options["labels"]
        names = common.review_item_names({a.hit.items.get("item") for a in assignments})
        outputs = common.review_outputs({o for a in assignments for o in a.hit.items.get("outputs", [])})
        known_answers = common.gold_answers(assignments)
        context = {}
        for a in assignments:
            preferences = (a.answer or {}).get("preferences") if isinstance(a.answer, dict) else None
            preferences = preferences if isinstance(preferences, dict) else {}
            known = known_answers.get(a.hit.gold_item_id or 0, {})
            shown = a.hit.items.get("outputs", [])
            rows = [{"label": labels[index], **outputs.get(pk, common.GONE_OUTPUT), "known": known.get("better") == pk}
                    for index, pk in enumerate(shown[:2])]
            choices = []
            for question in options["questions"]:
                value = preferences.get(question["name"])
                choices.append((question["comparison"], "About the same" if value == TIE else
                                labels[value] if value in (0, 1) else "(no answer)"))
            context[a.pk] = {**common.review_item(a, names, payloads, options["output_kind"]), "outputs": rows,
                             "choices": choices, "check": common.attention_check(self.name, a),
                             "summary": self.summary(a.answer)}
        return context

    def on_approved(self, assignment: Assignment) -> None:
        """One judgement per aspect; none when an output is the attention system's; a second approval adds
        nothing (the unique constraint)."""
        hit = assignment.hit
        if hit.gold_item_id is not None:
            return
        preferences = assignment.submitted_answer()["preferences"]
        first, second = hit.items["outputs"]
        if common.attention_outputs({first, second}):
            return
        evaluation = self.options(hit.campaign)["evaluation"]
        HumanJudgement.objects.bulk_create([
            HumanJudgement(evaluation_id=evaluation, assignment=assignment, worker_id=assignment.worker_id,
                           item_id=hit.items["item"], aspect=aspect, output_id=first, other_id=second,
                           preferred_id=None if choice == TIE else (first, second)[choice], position=0)
            for aspect, choice in preferences.items()
        ], ignore_conflicts=True)
