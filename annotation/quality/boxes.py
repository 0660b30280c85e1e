"""Quality of draw_boxes: gold boxes scored by F1 at an IoU threshold, agreement as pairwise box F1, answers
merged by CVAT's consensus merge (metrics.box_consensus).

Options (draw_boxes' TaskDefaults.options): `iou_threshold` (a box matches another of the same concept at
IoU >= it; gold, agreement and merge) and `quorum` (share of the HIT's answers a merged box needs)."""
from __future__ import annotations

from collections import Counter
from typing import Any

from metrics.box_consensus import Merge, answer_agreement, consensus, merge, set_f1
from mturk.measures import Aggregate, KindQuality, Measurement, Unit, register_quality

from ..models import Concept, Image
from ..services.boxes import box_problem

BOX_FIELDS = ("concept", "x", "y", "width", "height")
DEFAULT_IOU = 0.5
DEFAULT_QUORUM = 0.5


def option(options: dict[str, Any], name: str, default: float) -> float:
    """A number option as stored (clean_options keeps numbers; a campaign made before the option: default)."""
    value = options.get(name, default)
    return float(value) if value not in (None, "") else default


def labelled_boxes(answer: dict[str, Any]) -> list[dict[str, Any]]:
    """An answer's (or gold) boxes as metrics.box_consensus reads them: the concept is the label."""
    return [{"x": b["x"], "y": b["y"], "width": b["width"], "height": b["height"], "label": b["concept"]}
            for b in answer.get("boxes", [])]


# A worker's vote in the merge is their mean agreement over the campaign, at least this much (a worker nobody
# agrees with still counts a little, and a HIT whose workers all disagree still has votes).
MIN_WEIGHT = 0.05


def method_text(threshold: float, quorum: float) -> str:
    return (f"IoU clustering (IoU >= {threshold:g}, one box per worker, concept by vote, quorum {quorum:.0%}, "
            "votes weighted by each worker's mean agreement in the campaign); each box is the worker's box "
            "nearest the mean box")


@register_quality
class DrawBoxesQuality(KindQuality):
    task_kind = "draw_boxes"
    gold_format = ('{"boxes": [{"concept": <concept id>, "x": <px>, "y": <px>, "width": <px>, "height": <px>}, ...]}'
                   " (pixels of the image, x and y the top-left corner; an empty list: no object to box)")
    gold_scoring = ("F1 of the boxes matched one-to-one with a known box of the same concept at IoU >= the "
                    "campaign's iou_threshold (default 0.5)")

    def clean_gold(self, items: dict[str, Any], gold: Any) -> dict[str, Any]:
        image_id = items.get("image") if isinstance(items, dict) else None
        image = Image.objects.filter(pk=image_id).values("width", "height").first() if isinstance(
            image_id, int) else None
        if image is None:
            raise ValueError(f"the items name no known image: {items!r}")
        if not isinstance(gold, dict) or set(gold) != {"boxes"} or not isinstance(gold["boxes"], list):
            raise ValueError('expected {"boxes": [...]}, a list of boxes')
        problems, boxes = [], []
        for number, box in enumerate(gold["boxes"]):
            if not isinstance(box, dict) or set(box) != set(BOX_FIELDS):
                problems.append(f"box {number}: expected the fields {', '.join(sorted(BOX_FIELDS))}")
                continue
            problem = box_problem(image["width"], image["height"], box["x"], box["y"], box["width"], box["height"])
            if problem:
                problems.append(f"box {number}: {problem}")
            elif type(box["concept"]) is not int:
                problems.append(f"box {number}: concept must be a concept id, got {box['concept']!r}")
            else:
                boxes.append({name: box[name] for name in BOX_FIELDS})
        known = set(Concept.objects.filter(pk__in={b["concept"] for b in boxes}).values_list("pk", flat=True))
        problems += [f"box {number}: unknown concept {b['concept']}" for number, b in enumerate(boxes)
                     if b["concept"] not in known]
        if problems:
            raise ValueError("; ".join(problems))
        return {"boxes": boxes}

    def score_gold(self, options: dict[str, Any], items: dict[str, Any], gold: dict[str, Any],
                   answer: dict[str, Any]) -> float:
        threshold = option(options, "iou_threshold", DEFAULT_IOU)
        return set_f1(labelled_boxes(answer), labelled_boxes(gold), threshold).f1

    def measure(self, options: dict[str, Any], units: list[Unit]) -> Measurement:
        """Per HIT: the F1 of every pair of answers (item agreement: their mean; an answer's agreement: its
        mean F1 against the others); then, with two answers or more, the merged boxes, each worker's vote
        weighted by their mean agreement over the campaign (a random or careless worker's boxes count for little,
        so two careful workers out of five can carry a box a third one missed)."""
        threshold = option(options, "iou_threshold", DEFAULT_IOU)
        quorum = option(options, "quorum", DEFAULT_QUORUM)
        method = method_text(threshold, quorum)
        item_agreement: dict[int, float | None] = {}
        answers: dict[int, float] = {}
        aggregates: dict[int, Aggregate] = {}
        f1s: list[float] = []
        iou_total, iou_pairs = 0.0, 0
        compared: list[tuple[Unit, list[list[dict[str, Any]]]]] = []
        per_worker: dict[int, list[float]] = {}
        for unit in units:
            sets = [labelled_boxes(a.answer) for a in unit.answers]
            if len(sets) < 2:
                item_agreement[unit.hit] = None
                continue
            scores, _ = consensus(sets, threshold, quorum)
            item = sum(s.f1 for s in scores.values()) / len(scores)
            item_agreement[unit.hit] = item
            f1s.append(item)
            for score in scores.values():
                if score.mean_iou is not None:
                    iou_total += score.mean_iou * score.matched
                    iou_pairs += score.matched
            for answer, value in zip(unit.answers, answer_agreement(scores, len(sets)), strict=True):
                if value is not None:
                    answers[answer.assignment] = value
                    per_worker.setdefault(answer.worker, []).append(value)
            compared.append((unit, sets))
        weight = {worker: max(sum(values) / len(values), MIN_WEIGHT) for worker, values in per_worker.items()}
        for unit, sets in compared:
            weights = [weight.get(a.worker, MIN_WEIGHT) for a in unit.answers]
            aggregates[unit.hit] = _aggregate(merge(sets, threshold, quorum, weights), sets, method)
        return Measurement(
            measure=f"box F1 at IoU >= {threshold:g} (same concept) and mean matched IoU",
            item_agreement=item_agreement, answer_agreement=answers, aggregates=aggregates,
            overall={"mean_f1": sum(f1s) / len(f1s) if f1s else None,
                     "mean_matched_iou": iou_total / iou_pairs if iou_pairs else None},
        )


def _aggregate(merged: Merge, sets: list[list[dict[str, Any]]], method: str) -> Aggregate:
    """The merged boxes in the answer's shape; per box the workers who drew it (`votes`), the concepts they gave it
    (`label_votes`: concept -> workers) and the weight of their votes (`weight`, the sum of their agreements)."""
    boxes = [{"concept": m.box["label"], "x": m.box["x"], "y": m.box["y"], "width": m.box["width"],
              "height": m.box["height"]} for m in merged.boxes]
    per_box = []
    for m in merged.boxes:
        labels = Counter(str(sets[s][b]["label"]) for s, b in m.members)
        per_box.append({"votes": len(m.members), "label_votes": dict(labels.most_common()),
                        "weight": round(m.votes, 3)})
    details = {"boxes": per_box, "dropped": merged.dropped}  # dropped: clusters below the quorum
    return Aggregate(answer={"boxes": boxes}, method=method, support=len(sets), details=details)
