"""Creating a human evaluation from a test set: its items (names, images, references) read once from the test
set's source and stored, so that later changes to the collection, pool or albums do not change the evaluation.

When every item has a human reference, two systems are made with it: the human reference ("human reference", the
first reference of each item; judged like a system unless `include_reference` is false; its automatic scores are
against the other references) and the attention checks' corrupted outputs ("attention check", never analysed):
each item gets the first reference of another item, by a derangement of the items drawn with the evaluation's
seed (Sattolo's algorithm: one random cycle through every item, so no item keeps its own)."""
from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from django.db import IntegrityError, transaction

from ..aspects import check_aspects
from ..models import Design, EvaluatedSystem, EvaluationItem, HumanEvaluation, SystemOutput
from ..registry import TestItem, UnknownTestSetSource, get_test_set_source
from .scoring import queue_scoring

REFERENCE_NAME = "human reference"
ATTENTION_NAME = "attention check"
MAX_JUDGES = 50
MAX_ATTENTION_RATE = 0.5
LISTED = 5  # items named in a message


class EvaluationError(ValueError):
    """A refused request; the message says what is wrong (nothing was changed)."""


def _listed(names: Sequence[str]) -> str:
    return ", ".join(names[:LISTED]) + (f" and {len(names) - LISTED} more" if len(names) > LISTED else "")


def read_test_set(test_set: str) -> tuple[str, str, list[TestItem]]:
    """(output kind, label, items) of "<source>:<key>"; EvaluationError when it names no test set with items."""
    source_name, _, key = (test_set or "").partition(":")
    if not source_name or not key:
        raise EvaluationError(f"test_set: '{test_set}' is not '<source>:<key>' (e.g. image_set:3 or albums:test)")
    try:
        source = get_test_set_source(source_name)
    except UnknownTestSetSource as exc:
        raise EvaluationError(f"test_set: {exc}") from None
    try:
        items = source.items(key)
    except LookupError as exc:
        raise EvaluationError(f"test_set {test_set}: {exc.args[0] if exc.args else exc}") from None
    if not items:
        raise EvaluationError(f"test_set {test_set}: it has no item")
    label = dict(source.choices()).get(key, key)
    return source.output_kind, f"{source.label}: {label}", items


def derangement(count: int, seed: str) -> list[int]:
    """A permutation of range(count) moving every index (count >= 2), drawn with `seed` (Sattolo's algorithm)."""
    order = list(range(count))
    rng = random.Random(f"{seed}:attention")
    for last in range(count - 1, 0, -1):
        other = rng.randrange(last)  # strictly below `last`: a single cycle
        order[last], order[other] = order[other], order[last]
    return order


def _check(name: str, design: str, judges: Any, attention_rate: Any, seed: str) -> None:
    if not name:
        raise EvaluationError("name: give the evaluation a name")
    if len(name) > 200:
        raise EvaluationError("name: at most 200 characters")
    if HumanEvaluation.objects.filter(name=name).exists():
        raise EvaluationError(f"name: an evaluation named '{name}' already exists")
    if design not in Design.values:
        raise EvaluationError(f"design: '{design}' is not a design (use {' or '.join(Design.values)})")
    if isinstance(judges, bool) or not isinstance(judges, int) or not 1 <= judges <= MAX_JUDGES:
        raise EvaluationError(f"judges: a whole number from 1 to {MAX_JUDGES}")
    if (isinstance(attention_rate, bool) or not isinstance(attention_rate, int | float)
            or not 0 <= attention_rate <= MAX_ATTENTION_RATE):
        raise EvaluationError(f"attention_rate: a number from 0 to {MAX_ATTENTION_RATE}")
    if not seed or len(seed) > 100:
        raise EvaluationError("seed: from 1 to 100 characters")


def create_evaluation(*, name: str, test_set: str, design: str = "rating", aspects: Sequence[str] = (),
                      judges: int = 3, include_reference: bool = True, attention_rate: float = 0.1,
                      seed: str = "human-eval", created_by: Any = None) -> HumanEvaluation:
    """A draft evaluation of the test set's items, with the reference and attention systems when every item has a
    reference. Raises EvaluationError (nothing stored): a bad setting, a test set that is not there, a reference
    asked for (or attention checks) while some item has none, attention checks with a single item."""
    name, seed = (name or "").strip(), (seed or "").strip()
    _check(name, design, judges, attention_rate, seed)
    kind, label, items = read_test_set(test_set)
    try:
        chosen = check_aspects(kind, list(aspects))
    except ValueError as exc:
        raise EvaluationError(f"aspects: {exc}") from None
    unreferenced = [item.name for item in items if not item.references]
    if unreferenced and include_reference:
        raise EvaluationError(f"{len(unreferenced)} item(s) of {test_set} have no human reference "
                              f"({_listed(unreferenced)}): evaluate without the reference")
    if attention_rate > 0 and (unreferenced or len(items) < 2):
        why = "some items have no reference" if unreferenced else "the test set has a single item"
        raise EvaluationError(f"attention_rate: attention checks need a reference on every item of at least two "
                              f"items ({why}); use 0")
    try:
        with transaction.atomic():
            evaluation = HumanEvaluation.objects.create(
                name=name, output_kind=kind, test_set=test_set, test_set_label=label[:300], design=design,
                aspects=chosen, judges=judges, include_reference=include_reference,
                attention_rate=float(attention_rate), seed=seed,
                created_by=created_by if getattr(created_by, "is_authenticated", False) else None)
            stored = EvaluationItem.objects.bulk_create([
                EvaluationItem(evaluation=evaluation, name=item.name, position=position, images=list(item.images),
                               references=list(item.references)) for position, item in enumerate(items)])
            if not unreferenced:
                _reference_systems(evaluation, stored)
    except IntegrityError:
        raise EvaluationError(f"name: an evaluation named '{name}' already exists") from None
    return evaluation


def _reference_systems(evaluation: HumanEvaluation, items: list[EvaluationItem]) -> None:
    reference = EvaluatedSystem.objects.create(evaluation=evaluation, name=REFERENCE_NAME,
                                               role=EvaluatedSystem.Role.REFERENCE)
    outputs = [SystemOutput(system=reference, item=item, text=item.references[0]) for item in items]
    if len(items) >= 2:
        attention = EvaluatedSystem.objects.create(evaluation=evaluation, name=ATTENTION_NAME,
                                                   role=EvaluatedSystem.Role.ATTENTION)
        order = derangement(len(items), evaluation.seed)
        outputs += [SystemOutput(system=attention, item=item, text=items[order[index]].references[0])
                    for index, item in enumerate(items)]
    SystemOutput.objects.bulk_create(outputs)
    queue_scoring(reference)  # against the other references of each item
