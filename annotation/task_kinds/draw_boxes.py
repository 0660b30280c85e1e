"""draw_boxes: draw rectangles on an image and label each with a concept of the campaign's vocabulary."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from rest_framework import serializers

from metrics.box_agreement import iou, set_agreement
from mturk.models import HIT, Assignment, Campaign
from mturk.task_kinds import ChoiceOption, OptionChoice, StrictSerializer, TaskDefaults, TaskKind, register

from ..models import Image, Vocabulary
from ..review_data import answered_box_sets, colour, place_labels, review_images
from ..services.boxes import BoxSpec, add_boxes, box_problem
from ..vocabularies.selectors import offered_labels, vocabulary_choices
from ..vocabularies.services import unknown_vocabulary_message
from .describe_image import image_payloads, validate_image_items

BOX_FIELDS = {"concept", "x", "y", "width", "height"}


def clean_fraction(options: dict[str, Any], key: str) -> None:
    """Check that options[key] is a number above 0 and at most 1 and store it as one (the campaign wizard sends
    text); ValueError naming the option otherwise."""
    value = options[key]
    number: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if number is None or not 0 < number <= 1:  # NaN fails too
        raise ValueError(f"option {key} must be a number above 0 and at most 1, not {value!r}")
    options[key] = number


class DrawBoxesResult(StrictSerializer):
    boxes = serializers.ListField(child=serializers.JSONField(), allow_empty=True, max_length=1000)

    def validate_boxes(self, boxes: list[Any]) -> list[dict[str, int]]:
        options, payload = self.context["options"], self.context["payload"]
        image = payload["image"]
        concept_ids = {c["id"] for c in payload["concepts"]}
        low, high = int(options["min_boxes"]), int(options["max_boxes"])
        if not low <= len(boxes) <= high:
            raise serializers.ValidationError(f"Draw between {low} and {high} boxes (you drew {len(boxes)}).")
        problems = []
        for number, box in enumerate(boxes, start=1):  # as the worker page numbers them
            if not isinstance(box, dict) or set(box) != BOX_FIELDS:
                problems.append(f"Box {number}: expected the fields {', '.join(sorted(BOX_FIELDS))}.")
                continue
            problem = box_problem(image["width"], image["height"], box["x"], box["y"], box["width"], box["height"],
                                  int(options["min_box_size"]))
            if problem:
                problems.append(f"Box {number}: {problem}.")
            elif type(box["concept"]) is not int or box["concept"] not in concept_ids:  # 1.0 == True == 1
                problems.append(f"Box {number}: unknown concept {box['concept']!r} (not in this task's vocabulary).")
        if problems:
            raise serializers.ValidationError(problems)
        return [{name: box[name] for name in ("concept", "x", "y", "width", "height")} for box in boxes]


def labelled(boxes: list[dict[str, Any]], names: dict[int, str], set_index: int) -> list[dict[str, Any]]:
    """A worker's boxes to draw: numbered from 1 (tagged A1, B1... by box set), each with its concept's name
    as label, in the set's colour."""
    letter = chr(ord("A") + set_index % 26)
    return [{"number": n, "tag": f"{letter}{n}", "colour": colour(set_index), "x": b["x"], "y": b["y"],
             "width": b["width"], "height": b["height"], "label": names.get(b["concept"], f"concept {b['concept']}")}
            for n, b in enumerate(boxes, start=1)]


def _drawn_set(index: int, row: tuple[int, str, str, list[dict[str, Any]]], own: int, names: dict[int, str],
               image: dict[str, Any] | None) -> dict[str, Any]:
    """One worker's box set as the review page draws it (labels of every other set at the bottom of the boxes,
    so that overlaid sets stay readable)."""
    pk, worker, status, boxes = row
    drawn = labelled(boxes, names, index)
    place_labels(drawn, image, bottom=index % 2 == 1)
    whose = "this assignment" if pk == own else f"worker {worker}"
    return {"assignment": pk, "worker": worker, "status": status, "own": pk == own, "colour": colour(index),
            "letter": chr(ord("A") + index % 26), "boxes": drawn,
            "description": f"Boxes of {whose}: " + (", ".join(f"{b['number']} {b['label']}" for b in drawn) or "none")}


@register
class DrawBoxes(TaskKind):
    name = "draw_boxes"
    label = "Draw and label boxes"
    blurb = "The worker draws a box around each object in an image and names it from the vocabulary."
    template = "annotation/draw_boxes.html"
    review_template = "annotation/review_draw_boxes.html"
    result_serializer = DrawBoxesResult
    option_help = {
        "iou_threshold": "How much two boxes with the same label must overlap to count as the same object: their "
                         "shared area over their combined area (IoU), above 0 and at most 1. At 0.5 (the usual "
                         "choice) a box shifted by a third of its width still matches; higher is stricter. Used "
                         "for gold scores, agreement between workers and merging their boxes.",
        "quorum": "When the answers to an image are merged into one set of boxes, the share of its workers who "
                  "must have drawn a box for it to be kept, above 0 and at most 1: at 0.5 with 3 workers, a box "
                  "2 of them drew is kept and one only 1 drew is dropped.",
    }
    defaults = TaskDefaults(
        reward=Decimal("0.10"),
        assignments_per_hit=1,
        time_limit_seconds=15 * 60,
        title="Draw boxes around the objects in an image",
        description="Draw a tight box around each person, animal and object and say what it is.",
        instructions=(
            "Draw a tight box around every person, animal and object you can see. "
            "Label each box by typing its name and picking it from the list. "
            "One box per object; boxes may overlap."
        ),
        # iou_threshold: a box matches another of the same concept at IoU >= it (gold scores, agreement, merge);
        # quorum: the share of a HIT's answers a merged box needs (annotation.quality.boxes)
        options={"vocabulary": "", "min_boxes": 1, "max_boxes": 50, "min_box_size": 4, "iou_threshold": 0.5,
                 "quorum": 0.5},
    )

    def clean_options(self, options: dict[str, Any]) -> None:
        name = options.get("vocabulary", "")
        if not isinstance(name, str):
            raise ValueError("option vocabulary must be a vocabulary's name")
        if name and not Vocabulary.objects.filter(name=name).exists():
            raise ValueError(unknown_vocabulary_message(name))
        for key in ("min_boxes", "max_boxes", "min_box_size"):
            if type(options.get(key)) is not int or options[key] < 0:  # not True either
                raise ValueError(f"option {key} must be a whole number >= 0")
        if options["min_boxes"] > options["max_boxes"]:
            raise ValueError("min_boxes is larger than max_boxes")
        for key in ("iou_threshold", "quorum"):
            clean_fraction(options, key)

    def gold_problems(self, options: dict[str, Any], gold: list[tuple[dict[str, Any], dict[str, Any]]]
                      ) -> list[str | None]:
        """A known answer no accepted answer matches: fewer boxes than min_boxes or more than max_boxes (a worker
        cannot draw that many), a concept the campaign's vocabulary does not offer, or a box so small that a box of
        at least min_box_size px a side cannot reach the campaign's IoU threshold with it. One query."""
        options = {**self.defaults.options, **options}
        low, high, size = int(options["min_boxes"]), int(options["max_boxes"]), int(options["min_box_size"])
        threshold = float(options["iou_threshold"])
        offered = {c.pk for c in offered_labels(options["vocabulary"])} if gold else set()
        vocabulary = f"vocabulary '{options['vocabulary']}'" if options["vocabulary"] else "the offered labels"
        found: list[str | None] = []
        for _items, answer in gold:
            boxes = answer.get("boxes") or []
            problems = []
            if not low <= len(boxes) <= high:
                problems.append(f"{len(boxes)} known box(es), but a worker must draw between {low} and {high}")
            unknown = sorted({b["concept"] for b in boxes} - offered)
            if unknown:
                problems.append(f"concept(s) {', '.join(map(str, unknown))} not among {vocabulary}")
            for number, box in enumerate(boxes):
                best = box["width"] * box["height"] / (max(box["width"], size) * max(box["height"], size))
                if best < threshold:
                    problems.append(f"box {number} ({box['width']}x{box['height']} px) cannot be matched at IoU >= "
                                    f"{threshold:g} by a box of at least {size} px a side")
            found.append("; ".join(problems) or None)
        return found

    def option_choices(self) -> dict[str, ChoiceOption]:
        """The vocabulary from a list (newest first, the demo's last), each with the labels workers will see."""
        choices = [OptionChoice(c.name, f"{c.name} ({c.count} label{'s' if c.count != 1 else ''})",
                                ", ".join(c.labels) + (", …" if c.count > len(c.labels) else ""))
                   for c in vocabulary_choices()]
        return {"vocabulary": ChoiceOption(choices, "The labels workers choose from. Make a vocabulary of your own "
                                                    "on the Vocabularies page (type the labels one per line).")}

    def validate_items(self, items: list[dict[str, Any]]) -> None:
        validate_image_items(items)

    def build_payloads(self, campaign: Campaign, hits: list[HIT]) -> dict[int, dict[str, Any]]:
        images = image_payloads([hit.items["image"] for hit in hits])
        concepts = [
            {"id": c.pk, "name": c.name, "synonyms": list(c.synonyms)}
            for c in offered_labels(self.options(campaign)["vocabulary"])
        ]
        return {hit.pk: {"image": images.get(hit.items["image"]), "concepts": concepts} for hit in hits}

    def checks(self, campaign: Campaign, answer: dict[str, Any]) -> list[str]:
        boxes = answer["boxes"]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                if a["concept"] == b["concept"] and iou(a, b) > 0.9:
                    return ["duplicate_boxes"]
        return []

    def summary(self, answer: dict[str, Any] | None) -> str:
        if not answer:
            return ""
        count = len(answer.get("boxes", []))
        return f"{count} box{'es' if count != 1 else ''}"

    def review_context(self, campaign: Campaign, assignments: list[Assignment],
                       payloads: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
        """The image with the assignment's boxes, every other answered box set of the HIT (also those not on
        this page) and the agreement of all of them; two queries."""
        images = review_images(a.hit.items["image"] for a in assignments)
        sets = answered_box_sets({a.hit_id for a in assignments})
        names = {c["id"]: c["name"] for p in payloads.values() for c in p.get("concepts", [])}
        threshold = float(self.options(campaign)["iou_threshold"])  # the campaign's, as its quality measure uses
        agreements = {hit: set_agreement([[{**b, "label": b["concept"]} for b in boxes]  # same label: same concept
                                          for _, _, _, boxes in hit_sets], threshold)
                      for hit, hit_sets in sets.items()}
        context = {}
        for a in assignments:
            image = images.get(a.hit.items["image"])
            ordered = sorted(sets[a.hit_id], key=lambda s: s[0] != a.pk)  # this assignment's set first
            drawn = [_drawn_set(index, row, a.pk, names, image) for index, row in enumerate(ordered)]
            context[a.pk] = {"image": image, "sets": drawn, "agreement": agreements[a.hit_id], "iou": threshold,
                             "overlay": [box for one in drawn for box in one["boxes"]]}
        return context

    def on_approved(self, assignment: Assignment) -> None:
        """The first approved box set of an image becomes its boxes; later ones stay in their answers."""
        image = Image.objects.get(pk=assignment.hit.items["image"])
        boxes = assignment.submitted_answer()["boxes"]
        specs = [BoxSpec(b["concept"], b["x"], b["y"], b["width"], b["height"]) for b in boxes]
        add_boxes(image, specs, source="simulated" if assignment.is_simulated else "crowd", assignment=assignment,
                  only_if_none=True)
