"""rate_output (human evaluation, design rating): a judge rates every output of one test item, each on every
aspect's scale (aspects.py), shown with the item's image or photo sequence. The outputs are named by their place
on the page only ("Caption A", "Story 1"): the page never learns which system wrote them.

HIT items: {"item": <EvaluationItem id>, "outputs": [<SystemOutput id>, ...]} (order shuffled when planned).
Answer: {"ratings": [{"<aspect>": 1..len(scale), ...}, ...]}, one object per output in the items' order, every
aspect rated. An approved answer gives one HumanJudgement per (output, aspect); attention checks (gold HITs, and
the attention system's corrupted outputs) give none."""
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


def rating_problem(value: Any, aspect: str) -> str | None:
    points = len(ASPECTS[aspect].scale)
    if common.whole_number(value) and 1 <= value <= points:
        return None
    return f"rate \"{ASPECTS[aspect].question}\" from 1 to {points}"


class RateOutputResult(StrictSerializer):
    ratings = serializers.JSONField()

    def validate_ratings(self, value: Any) -> list[dict[str, int]]:
        count = len(self.context["payload"]["outputs"])
        aspects = self.context["options"]["aspects"]
        kind = self.context["options"]["output_kind"]
        if not isinstance(value, list) or len(value) != count:
            raise serializers.ValidationError(f"Rate each of the {count} outputs.")
        problems = []
        for index, rating in enumerate(value):
            label = common.output_label(kind, index)
            if not isinstance(rating, dict):
                problems.append(f"{label}: answer every question.")
                continue
            unknown = sorted(set(rating) - set(aspects))
            if unknown:
                problems.append(f"{label}: unknown question(s) {', '.join(unknown)}.")
            problems += [f"{label}: {problem}." for aspect in aspects
                         if (problem := rating_problem(rating.get(aspect), aspect))]
        if problems:
            raise serializers.ValidationError(problems)
        return [{aspect: rating[aspect] for aspect in aspects} for rating in value]


@register
class RateOutput(OutputJudging):
    name = "rate_output"
    label = "Rate generated captions or stories"
    blurb = ("The worker rates each output of a system (or a person) for an image or a photo sequence on the "
             "evaluation's questions, without knowing who wrote it.")
    template = "evaluation/rate_output.html"
    review_template = "evaluation/review_rate_output.html"
    result_serializer = RateOutputResult
    defaults = TaskDefaults(
        reward=Decimal("0.10"),
        assignments_per_hit=3,
        time_limit_seconds=15 * 60,
        title="Rate descriptions of pictures",
        description="Read a few descriptions of the same picture (or story of the same photos) and rate each.",
        instructions=("Look at the picture (or the photos), read each text under it, and answer every question "
                      "about each text. Judge each text on its own: the texts are in no particular order. "
                      "Keys: Tab moves between questions, the arrow keys choose an answer, Enter submits."),
        options=dict(common.OPTIONS),
    )

    def options(self, campaign: Campaign) -> dict[str, Any]:
        options = super().options(campaign)
        return {**options, "questions": common.questions(options)}

    def summary(self, answer: dict[str, Any] | None) -> str:
        ratings = (answer or {}).get("ratings") if isinstance(answer, dict) else None
        if not isinstance(ratings, list) or not ratings or not isinstance(ratings[0], dict):
            return ""
        first = next(iter(ratings[0]), None)
        return f"{first}: " + " ".join(str(r.get(first)) if isinstance(r, dict) else "?" for r in ratings)

    def review_context(self, campaign: Campaign, assignments: list[Assignment],
                       payloads: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
        """Per assignment: the item's picture or photos as the judge saw them (`payloads`), each output in the order
        shown (its place, text, system and role) with its rating on every question, and for an attention check
        the outputs known to be better and worse and the check's result. Three queries (item names, outputs,
        known answers; the last only when the page has attention checks)."""
        options = self.options(campaign)
        names = common.review_item_names({a.hit.items.get("item") for a in assignments})
        outputs = common.review_outputs({o for a in assignments for o in a.hit.items.get("outputs", [])})
        known_answers = common.gold_answers(assignments)
        context = {}
        for a in assignments:
            ratings = (a.answer or {}).get("ratings") if isinstance(a.answer, dict) else None
            known = known_answers.get(a.hit.gold_item_id or 0, {})
            rows = []
            for index, pk in enumerate(a.hit.items.get("outputs", [])):
                given = ratings[index] if isinstance(ratings, list) and index < len(ratings) else {}
                rows.append({
                    "label": common.output_label(options["output_kind"], index),
                    **outputs.get(pk, common.GONE_OUTPUT),
                    "ratings": [(q["question"], given.get(q["name"]) if isinstance(given, dict) else None,
                                 len(q["scale"])) for q in options["questions"]],
                    "known": "high" if pk in known.get("high", []) else "low" if pk in known.get("low", []) else "",
                })
            context[a.pk] = {**common.review_item(a, names, payloads, options["output_kind"]), "outputs": rows,
                             "check": common.attention_check(self.name, a), "summary": self.summary(a.answer)}
        return context

    def on_approved(self, assignment: Assignment) -> None:
        """One judgement per (output, aspect), the attention system's outputs left out; a second approval adds
        nothing (the unique constraint)."""
        hit = assignment.hit
        if hit.gold_item_id is not None:
            return
        ratings = assignment.submitted_answer()["ratings"]
        evaluation = self.options(hit.campaign)["evaluation"]
        outputs = hit.items["outputs"]
        skipped = common.attention_outputs(set(outputs))
        HumanJudgement.objects.bulk_create([
            HumanJudgement(evaluation_id=evaluation, assignment=assignment, worker_id=assignment.worker_id,
                           item_id=hit.items["item"], aspect=aspect, output_id=output, value=value, position=index)
            for index, (output, rating) in enumerate(zip(outputs, ratings, strict=True)) if output not in skipped
            for aspect, value in rating.items()
        ], ignore_conflicts=True)
