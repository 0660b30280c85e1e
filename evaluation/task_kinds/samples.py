"""The campaign wizard's sample items of rate_output and compare_outputs: an item of any human evaluation with
two outputs to judge (the attention system's left out), to preview the worker page with."""
from __future__ import annotations

from mturk.item_sources import Sample, register_sample

from ..models import EvaluatedSystem, SystemOutput

MISSING = "{kind} needs a human evaluation with the outputs of at least one system: upload outputs first"


def _outputs() -> tuple[int, list[int]] | None:
    rows = (SystemOutput.objects.exclude(system__role=EvaluatedSystem.Role.ATTENTION).order_by("item_id", "pk")
            .values_list("item_id", "pk")[:50])
    by_item: dict[int, list[int]] = {}
    for item, output in rows:
        by_item.setdefault(item, []).append(output)
    for item, outputs in by_item.items():
        if len(outputs) >= 2:
            return item, outputs
    return None


@register_sample("rate_output", MISSING.format(kind="rate_output"))
def _rating_sample() -> Sample | None:
    found = _outputs()
    return None if found is None else Sample({"item": found[0], "outputs": found[1]})


@register_sample("compare_outputs", MISSING.format(kind="compare_outputs"))
def _pair_sample() -> Sample | None:
    found = _outputs()
    return None if found is None else Sample({"item": found[0], "outputs": found[1][:2]})
