"""What rate_output and compare_outputs share: their options, the check of HIT items, the blind payload and the
names the page gives outputs.

HIT items: {"item": <EvaluationItem id>, "outputs": [<SystemOutput id>, ...]} (HUMAN_EVAL design, see
docs/task-kinds.md). The page gets the item's images and the outputs' texts in the items' order, nothing else:
no output, system or evaluation id, no system name or role (blindness)."""
from __future__ import annotations

from string import ascii_uppercase
from typing import Any

from annotation.models import Image
from mturk.measures import GOLD_PASS_MARK, get_quality
from mturk.models import HIT, Assignment, GoldItem

from ..aspects import ASPECTS, DEFAULT_ASPECTS, check_aspects
from ..models import EvaluatedSystem, EvaluationItem, HumanEvaluation, OutputKind, SystemOutput

OPTIONS: dict[str, Any] = {"evaluation": None, "output_kind": OutputKind.CAPTION.value, "aspects": []}
OPTION_HELP = {
    "evaluation": "The human evaluation whose outputs are judged (set when the evaluation is launched).",
    "output_kind": "caption or story: what the outputs are (the evaluation's output kind).",
    "aspects": "The questions asked (evaluation/aspects.py), the first the overall question.",
}


def whole_number(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def clean_options(options: dict[str, Any]) -> HumanEvaluation:
    """Check the options against the evaluation they name; raise ValueError naming the bad option."""
    pk: Any = options.get("evaluation")
    if not whole_number(pk):
        raise ValueError(f"evaluation: expected the id of a human evaluation, got {pk!r}")
    evaluation = HumanEvaluation.objects.filter(pk=int(pk)).first()
    if evaluation is None:
        raise ValueError(f"evaluation: no human evaluation has id {pk}")
    kind = options.get("output_kind")
    if kind != evaluation.output_kind:
        raise ValueError(f"output_kind: evaluation '{evaluation.name}' judges {evaluation.output_kind}s, "
                         f"got {kind!r}")
    aspects = options.get("aspects")
    if not isinstance(aspects, list) or not aspects or not all(isinstance(name, str) for name in aspects):
        raise ValueError(f"aspects: expected a list of at least one aspect name, got {aspects!r}")
    try:
        expanded = check_aspects(kind, aspects)
    except ValueError as exc:
        raise ValueError(f"aspects: {exc}") from None
    if expanded != aspects:
        raise ValueError(f"aspects: expected aspect names, each once (a preset expands to {', '.join(expanded)})")
    return evaluation


def questions(options: dict[str, Any]) -> list[dict[str, Any]]:
    """The page's questions, in the options' order: name, the rated question, its scale (1 first), the comparison.
    Without aspects (the wizard's preview before an evaluation is chosen): the output kind's default question."""
    shown = []
    for name in options.get("aspects") or DEFAULT_ASPECTS.get(options.get("output_kind", ""), []):
        aspect = ASPECTS.get(name)
        if aspect is not None:
            shown.append({"name": name, "question": aspect.question, "comparison": aspect.comparison,
                          "scale": [{"value": n, "text": text} for n, text in enumerate(aspect.scale, start=1)]})
    return shown


def output_label(output_kind: str, index: int) -> str:
    """How the page names the output at this position: "Caption A", "Caption B", ... or "Story 1", "Story 2"."""
    if output_kind == OutputKind.STORY:
        return f"Story {index + 1}"
    letters = ascii_uppercase[index % 26] * (index // 26 + 1)
    return f"Caption {letters}"


def validate_items(items: list[dict[str, Any]], *, pair: bool) -> None:
    """Shape, then every id exists, every output is an output of its item, no output twice, and every item of
    the batch belongs to one evaluation; raise ValueError naming the item (three queries)."""
    for index, item in enumerate(items):
        outputs = item.get("outputs") if isinstance(item, dict) else None
        if not isinstance(item, dict) or set(item) != {"item", "outputs"} or not whole_number(item["item"]) \
                or not isinstance(outputs, list) or not all(whole_number(o) for o in outputs):
            raise ValueError(f"item {index}: expected {{\"item\": <evaluation item id>, \"outputs\": [<output id>, "
                             f"...]}}, got {item!r}")
        if pair and len(outputs) != 2:
            raise ValueError(f"item {index}: expected exactly 2 outputs to compare, got {len(outputs)}")
        if not outputs:
            raise ValueError(f"item {index}: expected at least one output to rate")
        if len(set(outputs)) != len(outputs):
            raise ValueError(f"item {index}: an output is listed twice ({outputs})")
    wanted_items = {item["item"] for item in items}
    found_items = dict(EvaluationItem.objects.filter(pk__in=wanted_items).values_list("pk", "evaluation_id"))
    wanted_outputs = {output for item in items for output in item["outputs"]}
    found_outputs = dict(SystemOutput.objects.filter(pk__in=wanted_outputs).values_list("pk", "item_id"))
    evaluations: dict[int, int] = {}  # evaluation id -> the first item index of it
    for index, item in enumerate(items):
        evaluation = found_items.get(item["item"])
        if evaluation is None:
            raise ValueError(f"item {index}: unknown evaluation item id {item['item']}")
        evaluations.setdefault(evaluation, index)
        for output in item["outputs"]:
            if output not in found_outputs:
                raise ValueError(f"item {index}: unknown output id {output}")
            if found_outputs[output] != item["item"]:
                raise ValueError(f"item {index}: output {output} is an output of another evaluation item "
                                 f"({found_outputs[output]}), not of item {item['item']}")
    if len(evaluations) > 1:
        first, second = sorted(evaluations.items(), key=lambda pair: pair[1])[:2]
        raise ValueError(f"item {second[1]}: its evaluation item belongs to evaluation {second[0]}, but item "
                         f"{first[1]}'s belongs to evaluation {first[0]}: the HITs of a campaign judge one evaluation")


def evaluations_of_items(items: list[dict[str, Any]]) -> dict[int, int]:
    """EvaluationItem id -> its evaluation id, for the HIT items given (one query)."""
    ids = {item.get("item") for item in items if isinstance(item, dict) and whole_number(item.get("item"))}
    return dict(EvaluationItem.objects.filter(pk__in=ids).values_list("pk", "evaluation_id"))


def build_payloads(hits: list[HIT]) -> dict[int, dict[str, Any]]:
    """Per HIT: {"images": [{url, small, width, height}], "outputs": [{"text"}]} in the items' order; three
    queries whatever the number of HITs (items, outputs' texts, images)."""
    item_ids = {hit.items["item"] for hit in hits}
    images_of = dict(EvaluationItem.objects.filter(pk__in=item_ids).values_list("pk", "images"))
    texts = dict(SystemOutput.objects.filter(pk__in={o for hit in hits for o in hit.items["outputs"]})
                 .values_list("pk", "text"))
    images = Image.objects.in_bulk({pk for ids in images_of.values() for pk in ids or []})
    payloads = {}
    for hit in hits:
        shown = []
        for pk in images_of.get(hit.items["item"]) or []:
            image = images.get(pk)
            if image is not None:
                shown.append({"url": image.display_url, "small": image.small_url, "width": image.width,
                              "height": image.height})
        payloads[hit.pk] = {"images": shown, "outputs": [{"text": texts.get(pk, "")} for pk in hit.items["outputs"]]}
    return payloads


def attention_outputs(output_ids: set[int]) -> set[int]:
    """Which of these outputs are the attention system's (corrupted outputs: never judged); one query."""
    return set(SystemOutput.objects.filter(pk__in=output_ids, system__role=EvaluatedSystem.Role.ATTENTION)
               .values_list("pk", flat=True))


GONE_OUTPUT = {"text": "(output gone)", "system": "?", "role": "", "role_label": ""}


def review_outputs(output_ids: set[int]) -> dict[int, dict[str, Any]]:
    """Per output id: its text, system name and role (value and wording), for the researcher's review: the review
    page names the systems the judges never saw (one query)."""
    rows = SystemOutput.objects.filter(pk__in=output_ids).values_list("pk", "text", "system__name", "system__role")
    roles = dict(EvaluatedSystem.Role.choices)
    return {pk: {"text": text, "system": name, "role": role, "role_label": roles.get(role, role)}
            for pk, text, name, role in rows}


def review_item_names(item_ids: set[int]) -> dict[int, str]:
    """Per evaluation item id: its name (one query)."""
    return dict(EvaluationItem.objects.filter(pk__in=item_ids).values_list("pk", "name"))


def review_item(assignment: Assignment, names: dict[int, str], payloads: dict[int, dict[str, Any]],
                output_kind: str) -> dict[str, Any]:
    """What the review card shows of the item judged: its name and its picture or photo sequence, as the judge saw
    them (the HIT's page payload)."""
    return {"item": names.get(assignment.hit.items.get("item"), "?"),
            "images": payloads.get(assignment.hit_id, {}).get("images", []),
            "story": output_kind == OutputKind.STORY}


def attention_check(task_kind: str, assignment: Assignment) -> dict[str, Any] | None:
    """An attention check's result on a review card (None when the HIT is not one): the gold score stored when the
    answer was submitted, whether it passes, and how such an answer is scored."""
    if assignment.hit.gold_item_id is None:
        return None
    score = assignment.gold_score
    return {"score": score, "passed": None if score is None else score >= GOLD_PASS_MARK,
            "rule": get_quality(task_kind).gold_scoring}


def gold_answers(assignments: list[Assignment]) -> dict[int, dict[str, Any]]:
    """Per gold item id of these assignments' HITs: its known answer (one query, none without gold HITs)."""
    ids = {a.hit.gold_item_id for a in assignments if a.hit.gold_item_id is not None}
    if not ids:
        return {}
    return {pk: answer if isinstance(answer, dict) else {}
            for pk, answer in GoldItem.objects.filter(pk__in=ids).values_list("pk", "answer")}


def gold_scope(options: dict[str, Any]) -> str:
    """An evaluation's attention checks are its own: a campaign of the evaluation takes only them (GoldItem.scope)."""
    evaluation = options.get("evaluation")
    return "" if evaluation is None else f"human_evaluation:{evaluation}"


def gold_problems(options: dict[str, Any], gold: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[str | None]:
    """An attention check judges outputs of one evaluation: in a campaign of another it would show that
    evaluation's images and texts. One query."""
    evaluation = options.get("evaluation")
    if evaluation is None:  # checked against the defaults (no campaign yet): any evaluation will do
        return [None] * len(gold)
    of_item = evaluations_of_items([items for items, _ in gold])
    problems: list[str | None] = []
    for items, _ in gold:
        belongs = of_item.get(items.get("item", 0)) if isinstance(items, dict) else None
        problems.append(None if belongs == evaluation else
                        f"its outputs belong to evaluation {belongs}, not to this campaign's evaluation {evaluation}")
    return problems
