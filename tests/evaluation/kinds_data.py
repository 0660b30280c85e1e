"""Test data of the human evaluation task kinds, built with the models and the crowd core's services: an
evaluation with its items (real images), two systems, the reference and the attention system, each with an output
per item. Output and system ids are set far from any other number on the page so that a leak of one is seen."""
from __future__ import annotations

import itertools
from typing import Any

from evaluation.models import EvaluatedSystem, EvaluationItem, HumanEvaluation, SystemOutput
from mturk.models import Campaign
from mturk.services.campaigns import create_campaign, publish_campaign
from tests.factories import make_album, make_image

SYSTEMS = ("neural-talk-zeta", "show-tell-omega")
_ids = itertools.count(987_001)


def evaluation(*, items: int = 2, output_kind: str = "caption", design: str = "rating",
               aspects: tuple[str, ...] = ("describes",), name: str = "eval") -> HumanEvaluation:
    evaluation = HumanEvaluation.objects.create(name=name, output_kind=output_kind, test_set="image_set:1",
                                                design=design, aspects=list(aspects))
    systems = [EvaluatedSystem.objects.create(pk=next(_ids), evaluation=evaluation, name=system)
               for system in SYSTEMS]
    reference = EvaluatedSystem.objects.create(pk=next(_ids), evaluation=evaluation, name="human reference",
                                               role=EvaluatedSystem.Role.REFERENCE)
    attention = EvaluatedSystem.objects.create(pk=next(_ids), evaluation=evaluation, name="attention checks",
                                               role=EvaluatedSystem.Role.ATTENTION)
    for position in range(items):
        if output_kind == "story":
            album = make_album(3)
            images = list(album.photos.order_by("datetaken").values_list("image_id", flat=True))
        else:
            images = [make_image(f"{name}-{position}.png", size=(320, 240)).pk]
        item = EvaluationItem.objects.create(evaluation=evaluation, name=f"{name}-item-{position}", position=position,
                                             images=images, references=[f"Person text {position} ."])
        for system in systems:
            SystemOutput.objects.create(pk=next(_ids), system=system, item=item,
                                        text=f"Output of {position} by {system.name[:4]} .")
        SystemOutput.objects.create(pk=next(_ids), system=reference, item=item, text=f"Person text {position} .")
        SystemOutput.objects.create(pk=next(_ids), system=attention, item=item,
                                    text=f"Person text {(position + 1) % items} .")
    return evaluation


def outputs(evaluation: HumanEvaluation, position: int, *roles: str) -> list[int]:
    """The output ids of the item at `position`, of systems of these roles (default: systems then reference)."""
    wanted = roles or (EvaluatedSystem.Role.SYSTEM, EvaluatedSystem.Role.REFERENCE)
    return list(SystemOutput.objects.filter(item__evaluation=evaluation, item__position=position,
                                            system__role__in=wanted).order_by("system_id").values_list("pk", flat=True))


def item_id(evaluation: HumanEvaluation, position: int) -> int:
    return evaluation.items.get(position=position).pk


def options_of(evaluation: HumanEvaluation) -> dict[str, Any]:
    return {"evaluation": evaluation.pk, "output_kind": evaluation.output_kind, "aspects": list(evaluation.aspects)}


def rating_items(evaluation: HumanEvaluation) -> list[dict[str, Any]]:
    return [{"item": item.pk, "outputs": outputs(evaluation, item.position)} for item in evaluation.items.all()]


def pair_items(evaluation: HumanEvaluation) -> list[dict[str, Any]]:
    result = []
    for item in evaluation.items.all():
        shown = outputs(evaluation, item.position)
        result += [{"item": item.pk, "outputs": [a, b]} for a, b in itertools.combinations(shown, 2)]
    return result


def campaign(evaluation: HumanEvaluation, kind: str, items: list[dict[str, Any]], *, name: str = "he",
             assignments: int = 2, **fields: Any) -> Campaign:
    made = create_campaign(name=name, task_kind=kind, assignments_per_hit=assignments, items=items,
                           options=options_of(evaluation), **fields)
    publish_campaign(made)
    made.refresh_from_db()
    return made
