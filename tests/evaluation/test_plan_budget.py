"""Planning (balanced, counterbalanced, seeded) and the budget, checked by hand."""
from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from decimal import Decimal

import pytest

from evaluation.budget import estimate
from evaluation.models import EvaluatedSystem
from evaluation.services.evaluations import EvaluationError, create_evaluation
from evaluation.services.plan import plan_evaluation
from evaluation.services.uploads import upload_outputs

pytestmark = pytest.mark.django_db


def with_systems(caption_set, systems=("a", "b"), **options):
    collection, images = caption_set
    evaluation = create_evaluation(name=options.pop("name", "he"), test_set=f"image_set:{collection.pk}", **options)
    for system in systems:
        entries = [{"image_id": 391895 if i == 0 else images[i].key, "caption": f"{system} caption {i}"}
                   for i in range(3)]
        upload_outputs(evaluation, system=system, content=json.dumps(entries).encode())
    return evaluation


def output_systems(evaluation) -> dict[int, str]:
    return {pk: name for pk, name in evaluation.systems.values_list("outputs", "name")}


def test_rating_hits_hold_every_judged_output_of_their_item(caption_set):
    evaluation = with_systems(caption_set, attention_rate=0.25)
    plan = plan_evaluation(evaluation)
    owner = output_systems(evaluation)
    assert plan.task_kind == "rate_output" and plan.systems == ["human reference", "a", "b"]
    assert plan.options == {"evaluation": evaluation.pk, "output_kind": "caption", "aspects": ["describes"]}
    assert sorted(hit["item"] for hit in plan.hits) == list(evaluation.items.values_list("pk", flat=True))
    for hit in plan.hits:
        assert sorted(owner[o] for o in hit["outputs"]) == ["a", "b", "human reference"]
    # 3 real HITs at 0.25: round(3 * 0.25 / 0.75) = 1 attention item of the same size
    [(items, answer)] = plan.attention
    roles = dict(evaluation.systems.values_list("name", "role"))
    shown = [owner[o] for o in items["outputs"]]
    assert len(shown) == 3 and sorted(roles[name] for name in shown[:3]).count("system") == 1
    assert owner[answer["high"][0]] == "human reference" and owner[answer["low"][0]] == "attention check"


def test_pairwise_judges_every_pair_on_every_item_with_sides_counterbalanced(caption_set):
    evaluation = with_systems(caption_set, systems=("a", "b", "c"), design="pairwise", attention_rate=0.1)
    plan = plan_evaluation(evaluation)
    owner = output_systems(evaluation)
    items = list(evaluation.items.values_list("pk", flat=True))
    judged = ["human reference", "a", "b", "c"]
    seen = Counter((hit["item"], frozenset(owner[o] for o in hit["outputs"])) for hit in plan.hits)
    assert seen == Counter({(item, frozenset(pair)): 1 for item in items for pair in itertools.combinations(judged, 2)})
    first = Counter((frozenset(owner[o] for o in hit["outputs"]), owner[hit["outputs"][0]]) for hit in plan.hits)
    for pair in itertools.combinations(judged, 2):
        counts = [first[(frozenset(pair), name)] for name in pair]
        assert sum(counts) == 3 and abs(counts[0] - counts[1]) <= 1
    # 18 real HITs at 0.1: round(18 * 0.1 / 0.9) = 2 attention items, reference against corrupted
    assert len(plan.attention) == 2
    for items_, answer in plan.attention:
        assert sorted(owner[o] for o in items_["outputs"]) == ["attention check", "human reference"]
        assert owner[answer["better"]] == "human reference"


def test_the_same_seed_plans_the_same_hits_and_another_seed_others(caption_set):
    evaluation = with_systems(caption_set, systems=("a", "b", "c"), design="pairwise")
    first, again = plan_evaluation(evaluation), plan_evaluation(evaluation)
    assert first.hits == again.hits and first.attention == again.attention
    evaluation.seed = "another"
    assert plan_evaluation(evaluation).hits != first.hits


def test_fewer_than_two_judged_systems_cannot_be_planned(caption_set):
    evaluation = with_systems(caption_set, systems=("a",), include_reference=False)
    with pytest.raises(EvaluationError, match="has 1 judged system"):
        plan_evaluation(evaluation)
    assert evaluation.systems.filter(role=EvaluatedSystem.Role.ATTENTION).exists()


def test_rating_budget_by_hand(caption_set):
    evaluation = with_systems(caption_set, attention_rate=0.25, judges=3)
    budget = estimate(evaluation, reward=Decimal("0.50"), provider="mturk")
    # 3 judged systems (reference, a, b), 3 items: 3 HITs + 1 attention, 3 judges: 12 assignments; 3 x 3 x 3 x 1
    # aspect = 27 judgements; MTurk's fee 20% of 0.50 = 0.10: 12 x 0.60 = 7.20
    assert (budget.systems, budget.items, budget.hits, budget.attention_hits) == (3, 3, 3, 1)
    assert (budget.assignments, budget.judgements) == (12, 27)
    assert (budget.fee_per_assignment, budget.cost) == (Decimal("0.10"), Decimal("7.20"))
    # "describes" has 4 points: s^2 = 15 / 24 each; 1.96 * sqrt(0.625 + 0.625 / 3) / sqrt(3)
    assert budget.half_width == pytest.approx(1.96 * math.sqrt(0.625 + 0.625 / 3) / math.sqrt(3))
    assert estimate(evaluation, reward=Decimal("0.50")).cost == Decimal("6.00")  # local: no fee


def test_pairwise_budget_by_hand(caption_set):
    evaluation = with_systems(caption_set, design="pairwise", attention_rate=0, judges=5, aspects=["coco"])
    budget = estimate(evaluation, reward=Decimal("0.10"))
    # 3 judged systems: 3 pairs x 3 items = 9 HITs, 45 assignments, 3 aspects: 135 judgements
    assert (budget.hits, budget.attention_hits, budget.assignments, budget.judgements) == (9, 0, 45, 135)
    assert budget.cost == Decimal("4.50")
    assert budget.half_width == pytest.approx(1.96 * math.sqrt(0.25 / 15))
    with pytest.raises(EvaluationError, match="provider"):
        estimate(evaluation, reward=Decimal("0.10"), provider="nowhere")
