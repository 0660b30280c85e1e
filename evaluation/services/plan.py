"""The HITs of a human evaluation, planned from its items and judged outputs (the contract with the task kinds
rate_output and compare_outputs, docs/workflows/human-evaluation.md). Everything random is drawn from
generators seeded by the evaluation's seed, so the same evaluation plans the same HITs.

- rating: one HIT per item, its judged outputs (every uploaded system, and the reference when it is judged) in an
  order shuffled per item;
- pairwise: one HIT per item and pair of judged systems; for each pair, the items where the pair's first system
  is shown first are a seeded half of them (the other half: the second system first; an odd item count gives one
  side one item more), so each side is first half of the time within one;
- the HITs in a seeded order (a worker does not meet one item many times in a row);
- attention checks (gold items, `gold_share` of the real HITs at the attention rate), each on a seeded choice of
  item: rating: the reference, the corrupted output and other outputs of the item up to a real HIT's count,
  shuffled, with the known answer {"low": [corrupted], "high": [reference]}; pairwise: the reference and the
  corrupted output in a seeded order, known answer {"better": reference}."""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from typing import Any

from mturk.services.gold import gold_share

from ..models import Design, EvaluatedSystem, HumanEvaluation, SystemOutput
from .evaluations import EvaluationError

RATE_KIND = "rate_output"
COMPARE_KIND = "compare_outputs"


@dataclass
class Plan:
    task_kind: str
    options: dict[str, Any]
    hits: list[dict[str, Any]]  # each a HIT's items
    attention: list[tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=list)  # (items, known answer)
    systems: list[str] = field(default_factory=list)  # the judged systems' names


def judged_systems(evaluation: HumanEvaluation) -> list[EvaluatedSystem]:
    """The uploaded systems, and the reference when it is judged, in id order."""
    roles = [EvaluatedSystem.Role.SYSTEM] + ([EvaluatedSystem.Role.REFERENCE] if evaluation.include_reference else [])
    return list(evaluation.systems.filter(role__in=roles).order_by("id"))


def _outputs(evaluation: HumanEvaluation) -> dict[int, dict[int, int]]:
    """item id -> {system id: output id}, one query."""
    table: dict[int, dict[int, int]] = {}
    for pk, item, system in SystemOutput.objects.filter(system__evaluation=evaluation).values_list(
            "pk", "item_id", "system_id"):
        table.setdefault(item, {})[system] = pk
    return table


def plan_evaluation(evaluation: HumanEvaluation) -> Plan:
    """The evaluation's HITs and attention items; EvaluationError with fewer than 2 judged systems."""
    systems = judged_systems(evaluation)
    if len(systems) < 2:
        raise EvaluationError(f"evaluation '{evaluation.name}' has {len(systems)} judged system(s): upload outputs "
                              "until at least 2 systems are judged (the reference counts when it is judged)")
    seed = evaluation.seed
    items = list(evaluation.items.order_by("position").values_list("pk", "name"))
    outputs = _outputs(evaluation)
    hits: list[dict[str, Any]] = []
    if evaluation.design == Design.RATING:
        for item, name in items:
            row = [outputs[item][system.pk] for system in systems]
            random.Random(f"{seed}:rating:{name}").shuffle(row)
            hits.append({"item": item, "outputs": row})
    else:
        for first, second in itertools.combinations(systems, 2):
            order = list(range(len(items)))
            rng = random.Random(f"{seed}:pairwise:{first.name}:{second.name}")
            rng.shuffle(order)
            half = len(items) // 2 + (rng.random() < 0.5 if len(items) % 2 else 0)
            first_shown = set(order[:half])
            for index, (item, _name) in enumerate(items):
                a, b = outputs[item][first.pk], outputs[item][second.pk]
                hits.append({"item": item, "outputs": [a, b] if index in first_shown else [b, a]})
    random.Random(f"{seed}:order").shuffle(hits)
    kind = RATE_KIND if evaluation.design == Design.RATING else COMPARE_KIND
    options = {"evaluation": evaluation.pk, "output_kind": evaluation.output_kind, "aspects": list(evaluation.aspects)}
    plan = Plan(task_kind=kind, options=options, hits=hits, systems=[system.name for system in systems])
    plan.attention = _attention(evaluation, systems, items, outputs, gold_share(len(hits), evaluation.attention_rate))
    return plan


def _attention(evaluation: HumanEvaluation, systems: list[EvaluatedSystem], items: list[tuple[int, str]],
               outputs: dict[int, dict[int, int]], count: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    if count <= 0:
        return []
    roles = dict(evaluation.systems.filter(role__in=[EvaluatedSystem.Role.REFERENCE, EvaluatedSystem.Role.ATTENTION])
                 .values_list("role", "pk"))
    if len(roles) < 2:
        raise EvaluationError(f"evaluation '{evaluation.name}' has no attention outputs (its items have no "
                              "reference): set its attention rate to 0")
    reference, corrupted = roles[EvaluatedSystem.Role.REFERENCE], roles[EvaluatedSystem.Role.ATTENTION]
    others = [system.pk for system in systems if system.pk != reference]
    rng = random.Random(f"{evaluation.seed}:attention-items")
    chosen: list[tuple[int, str]] = []
    while len(chosen) < count:  # every item once before any item twice
        chosen += rng.sample(items, min(len(items), count - len(chosen)))
    made: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for item, _name in chosen:
        high, low = outputs[item][reference], outputs[item][corrupted]
        if evaluation.design == Design.RATING:
            shown = [high, low] + [outputs[item][pk] for pk in rng.sample(others, len(systems) - 2)]
            rng.shuffle(shown)
            made.append(({"item": item, "outputs": shown}, {"low": [low], "high": [high]}))
        else:
            pair = [high, low] if rng.random() < 0.5 else [low, high]
            made.append(({"item": item, "outputs": pair}, {"better": high}))
    return made
