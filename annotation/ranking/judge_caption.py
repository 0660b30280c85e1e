"""judge_caption: does a caption describe an image? Several image-caption pairs per HIT, answered yes/no (or, in
graded mode, on the expert scale of Hodosh et al. as released: 4 describes the image without errors, 3 minor
errors, 2 somewhat related, 1 unrelated), with gold pairs mixed in to check attention. The page shows the scale
best first (4 down to 1); the key of a grade is its number.

HIT items: {"pairs": [{"image": id, "description": id}, ...]}; a gold pair also carries "gold": {"relevant": bool}
or {"grade": 1-4}, which never reaches the page. Answer: {"judgements": [{"relevant": bool} or {"grade": n}, ...]}
in the pairs' order (see annotation/ranking/services/judging_items.py for how the items are made). The gold pairs
are scored when an answer arrives by the crowd core (annotation/ranking/quality.py: the share of them answered
right, flagged "gold_failed" below mturk.measures.GOLD_PASS_MARK)."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from rest_framework import serializers

from mturk.models import HIT, Assignment, Campaign
from mturk.task_kinds import StrictSerializer, TaskDefaults, TaskKind, register

from ..models import Description, Image
from ..review_data import review_images
from .models import CaptionJudgement
from .services.judging_items import GRADES

QUESTION = "Does this caption describe the image?"
SCALE = [  # the wording of grades 1 to 4 (the released scale: 4 describes the image)
    "Is unrelated to the image",
    "Is somewhat related to the image",
    "Describes the image with minor errors",
    "Describes the image without any errors",
]
MAX_PAIRS = 50


def relevant_grade(grade: int) -> bool:
    """Grades 4 and 3 count as "describes the image" (the yes side of the scale), 2 and 1 as not."""
    return grade >= 3


def gold_passed(gold: dict[str, Any], judgement: dict[str, Any]) -> bool:
    """Whether an answer agrees with a gold pair's known answer. Two grades agree when at most one grade apart and
    on the same side of 2/3; a grade and a yes/no agree when the grade is on that side."""
    if "grade" in gold and "grade" in judgement:
        return (abs(gold["grade"] - judgement["grade"]) <= 1
                and relevant_grade(gold["grade"]) == relevant_grade(judgement["grade"]))
    known = gold["relevant"] if "relevant" in gold else relevant_grade(gold["grade"])
    given = judgement["relevant"] if "relevant" in judgement else relevant_grade(judgement["grade"])
    return bool(known == given)


def grade_texts(value: Any) -> list[str] | None:
    """The wording of the 4 grades: a list of 4 texts, or one text with the 4 separated by "|" (what the campaign
    wizard's text field gives); None when it is neither."""
    texts = value.split("|") if isinstance(value, str) else value
    if not isinstance(texts, list) or len(texts) != len(GRADES) or not all(isinstance(t, str) and t.strip()
                                                                           for t in texts):
        return None
    return [t.strip() for t in texts]


def is_grade(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value in GRADES


class JudgeCaptionResult(StrictSerializer):
    judgements = serializers.JSONField()

    def validate_judgements(self, value: Any) -> list[dict[str, Any]]:
        count = len(self.context["payload"]["pairs"])
        graded = self.context["options"]["graded"]
        if not isinstance(value, list) or len(value) != count:
            raise serializers.ValidationError(f"Answer each of the {count} pairs.")
        problems, clean = [], []
        for number, judgement in enumerate(value, start=1):
            if graded and isinstance(judgement, dict) and set(judgement) == {"grade"} and is_grade(judgement["grade"]):
                clean.append({"grade": judgement["grade"]})
            elif not graded and isinstance(judgement, dict) and set(judgement) == {"relevant"} \
                    and isinstance(judgement["relevant"], bool):
                clean.append({"relevant": judgement["relevant"]})
            else:
                problems.append(f"Pair {number}: choose a grade from 1 to 4." if graded
                                else f"Pair {number}: answer yes or no.")
        if problems:
            raise serializers.ValidationError(problems)
        return clean


def _pair_problem(pair: Any) -> str | None:
    if not isinstance(pair, dict) or not {"image", "description"} <= set(pair) \
            or not set(pair) <= {"image", "description", "gold"}:
        return "expected {\"image\": <image id>, \"description\": <description id>} and an optional \"gold\""
    if any(not isinstance(pair[key], int) or isinstance(pair[key], bool) for key in ("image", "description")):
        return "image and description must be ids"
    gold = pair.get("gold")
    if gold is not None and not (
            isinstance(gold, dict) and (gold.keys() == {"relevant"} and isinstance(gold["relevant"], bool)
                                        or gold.keys() == {"grade"} and is_grade(gold["grade"]))):
        return "gold must be {\"relevant\": true|false} or {\"grade\": 1-4}"
    return None


@register
class JudgeCaption(TaskKind):
    name = "judge_caption"
    label = "Judge captions"
    blurb = "The worker says whether each of several captions describes its image (yes/no, or graded 1-4)."
    template = "annotation/judge_caption.html"
    review_template = "annotation/review_judge_caption.html"
    result_serializer = JudgeCaptionResult
    defaults = TaskDefaults(
        reward=Decimal("0.09"),  # 10 pairs at 0.9 cents each
        assignments_per_hit=3,
        time_limit_seconds=10 * 60,
        title="Does the caption describe the image?",
        description="Look at pictures and say whether a sentence describes each one.",
        instructions=(
            "For each picture, read the caption under it and say whether the caption describes the picture. "
            "Keys: answer the highlighted pair with y or n (1 to 4 when there is a scale); the next pair "
            "is highlighted then."
        ),
        options={"pairs_per_hit": 10, "question": QUESTION, "graded": False, "grades": " | ".join(SCALE)},
    )

    def clean_options(self, options: dict[str, Any]) -> None:
        pairs = options["pairs_per_hit"]
        if not isinstance(pairs, int) or isinstance(pairs, bool) or not 1 <= pairs <= MAX_PAIRS:
            raise ValueError(f"pairs_per_hit: expected a whole number from 1 to {MAX_PAIRS}, got {pairs!r}")
        if not isinstance(options["question"], str) or not options["question"].strip():
            raise ValueError("question: expected a non-empty text")
        if not isinstance(options["graded"], bool):
            raise ValueError(f"graded: expected true or false, got {options['graded']!r}")
        if grade_texts(options["grades"]) is None:
            raise ValueError("grades: expected the wording of the 4 grades (1 unrelated ... 4 describes the image): "
                             "4 texts, or one text with the 4 separated by |")

    def options(self, campaign: Campaign) -> dict[str, Any]:
        options = super().options(campaign)
        grades = grade_texts(options["grades"]) or SCALE
        # the page's scale, best first: (grade, wording) from 4 down to 1
        return {**options, "grades": grades, "scale": [(n, grades[n - 1]) for n in sorted(GRADES, reverse=True)]}

    def validate_items(self, items: list[dict[str, Any]]) -> None:
        images: dict[int, tuple[int, int]] = {}
        descriptions: dict[int, tuple[int, int]] = {}
        for index, item in enumerate(items):
            if not isinstance(item, dict) or set(item) != {"pairs"} or not isinstance(item["pairs"], list) \
                    or not item["pairs"]:
                raise ValueError(f"item {index}: expected {{\"pairs\": [<pair>, ...]}} with at least one pair")
            if len(item["pairs"]) > MAX_PAIRS:
                raise ValueError(f"item {index}: {len(item['pairs'])} pairs, at most {MAX_PAIRS}")
            for number, pair in enumerate(item["pairs"]):
                problem = _pair_problem(pair)
                if problem:
                    raise ValueError(f"item {index}, pair {number}: {problem}, got {pair!r}")
                images.setdefault(pair["image"], (index, number))
                descriptions.setdefault(pair["description"], (index, number))
        found_images = set(Image.objects.filter(pk__in=images).values_list("pk", flat=True))
        found_descriptions = set(Description.objects.filter(pk__in=descriptions).values_list("pk", flat=True))
        for ids, found, noun in ((images, found_images, "image"), (descriptions, found_descriptions, "description")):
            missing = sorted(set(ids) - found, key=lambda pk: ids[pk])
            if missing:
                index, number = ids[missing[0]]
                raise ValueError(f"item {index}, pair {number}: unknown {noun} id {missing[0]}"
                                 + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))

    def build_payloads(self, campaign: Campaign, hits: list[HIT]) -> dict[int, dict[str, Any]]:
        """Per HIT its pairs (each image's 320 px and 1024 px renditions and the caption), without gold; two
        queries whatever the number of HITs and pairs."""
        pairs = [pair for hit in hits for pair in hit.items["pairs"]]
        images = Image.objects.in_bulk({p["image"] for p in pairs})
        texts = dict(Description.objects.filter(pk__in={p["description"] for p in pairs}).values_list("pk", "text"))
        payloads = {}
        for hit in hits:
            shown = []
            for pair in hit.items["pairs"]:
                image = images.get(pair["image"])
                shown.append({
                    "image": None if image is None else {"url": image.display_url, "small": image.small_url,
                                                         "width": image.width, "height": image.height},
                    "caption": texts.get(pair["description"], ""),
                })
            payloads[hit.pk] = {"pairs": shown}
        return payloads

    def summary(self, answer: dict[str, Any] | None) -> str:
        judgements = (answer or {}).get("judgements") or []
        if judgements and "grade" in judgements[0]:
            return "grades " + " ".join(str(j.get("grade")) for j in judgements)
        yes = sum(1 for j in judgements if j.get("relevant") is True)
        return f"{yes} yes, {len(judgements) - yes} no" if judgements else ""

    def answer_text(self, judgement: dict[str, Any] | None, options: dict[str, Any]) -> str:
        if not judgement:
            return "(no answer)"
        if "grade" in judgement:
            return f"{judgement['grade']}: {options['grades'][judgement['grade'] - 1]}"
        return "Yes" if judgement.get("relevant") else "No"

    def review_context(self, campaign: Campaign, assignments: list[Assignment],
                       payloads: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
        """Every pair: thumbnail, caption, the worker's answer, and for gold pairs the known answer and whether the
        worker agreed; two queries (images, captions)."""
        options = self.options(campaign)
        pairs = [pair for a in assignments for pair in a.hit.items["pairs"]]
        images = review_images(p["image"] for p in pairs)
        texts = dict(Description.objects.filter(pk__in={p["description"] for p in pairs}).values_list("pk", "text"))
        context = {}
        for a in assignments:
            judgements = (a.answer or {}).get("judgements") if isinstance(a.answer, dict) else None
            rows = []
            for number, pair in enumerate(a.hit.items["pairs"]):
                judgement = judgements[number] if judgements and number < len(judgements) else None
                gold = pair.get("gold")
                rows.append({
                    "number": number + 1,
                    "image": images.get(pair["image"]),
                    "caption": texts.get(pair["description"], "(caption gone)"),
                    "answer": self.answer_text(judgement, options),
                    "gold": None if gold is None else self.answer_text(gold, options),
                    "gold_passed": None if gold is None or judgement is None else gold_passed(gold, judgement),
                })
            context[a.pk] = {"pairs": rows, "summary": self.summary(a.answer if isinstance(a.answer, dict) else None)}
        return context

    def on_approved(self, assignment: Assignment) -> None:
        """One crowd judgement per pair that is not gold; a second approval adds nothing."""
        judgements = assignment.submitted_answer()["judgements"]
        done = set(CaptionJudgement.objects.filter(assignment=assignment).values_list("image_id", "description_id"))
        new = []
        for pair, judgement in zip(assignment.hit.items["pairs"], judgements, strict=True):
            key = (pair["image"], pair["description"])
            if "gold" in pair or key in done:
                continue
            done.add(key)
            new.append(CaptionJudgement(image_id=key[0], description_id=key[1], source=CaptionJudgement.Source.CROWD,
                                        relevant=judgement.get("relevant"), grade=judgement.get("grade"),
                                        assignment=assignment))
        CaptionJudgement.objects.bulk_create(new, ignore_conflicts=True)  # a concurrent approval: no duplicate
        if new:
            from .services.leaderboards import judgements_changed

            judgements_changed(j.image_id for j in new)
