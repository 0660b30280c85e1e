"""Quality of rate_story (mturk.measures registry; imported by storyboard/quality.py): gold ratings with a tolerance,
Krippendorff's alpha at the ordinal level, each rating's agreement with the others, and the mean rating per story.

The units compared are the stories (a story rated in several HITs of a campaign is one unit). A rating's agreement
is metrics.rating_agreement's chance-corrected closeness to the story's other ratings, so that a judge who rates
every story the same scores low when the others tell the stories apart. The aggregated answer keeps the answer's
shape: "rating" (and every aspect) is the mean rounded half up; the exact means and the campaign's alpha are in
the details."""
from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from metrics.rating_agreement import LIKERT, answer_agreement, unit_alpha
from mturk.measures import Aggregate, KindQuality, Measurement, Unit, register_quality

from .task_kinds.common import integer
from .task_kinds.rate_story import ASPECTS

DEFAULT_TOLERANCE = 1
METHOD = "mean of the ratings, rounded half up (exact means and Krippendorff's alpha, ordinal, in details)"


def _likert(value: Any) -> bool:
    return integer(value) and value in LIKERT


def round_half_up(value: float) -> int:
    return math.floor(value + 0.5)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


@register_quality
class RateStoryQuality(KindQuality):
    task_kind = "rate_story"
    gold_format = ("{\"rating\": 1-5, \"tolerance\": 0-4}: the known rating of the story and how far from it an "
                   f"answer may be (default {DEFAULT_TOLERANCE})")
    gold_scoring = "1 when the rating is within the tolerance of the known rating, else 0 (aspects are not scored)"

    def clean_gold(self, items: dict[str, Any], gold: Any) -> dict[str, Any]:
        if not isinstance(gold, dict) or "rating" not in gold:
            raise ValueError(f"expected {{\"rating\": 1-5, \"tolerance\": 0-4}}, got {gold!r}")
        unknown = sorted(set(gold) - {"rating", "tolerance"})
        if unknown:
            raise ValueError(f"unknown key(s) {', '.join(unknown)}: a known rating is {{\"rating\": 1-5, "
                             f"\"tolerance\": 0-4}}")
        if not _likert(gold["rating"]):
            raise ValueError(f"rating must be a whole number from 1 to 5, got {gold['rating']!r}")
        tolerance = gold.get("tolerance", DEFAULT_TOLERANCE)
        if not integer(tolerance) or not 0 <= tolerance <= 4:
            raise ValueError(f"tolerance must be a whole number from 0 to 4, got {tolerance!r}")
        return {"rating": gold["rating"], "tolerance": tolerance}

    def gold_from_answer(self, items: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """The approved answer's rating, with the default tolerance (its aspects are not kept)."""
        return self.clean_gold(items, {"rating": answer.get("rating")})

    def score_gold(self, options: dict[str, Any], items: dict[str, Any], gold: dict[str, Any],
                   answer: dict[str, Any]) -> float:
        rating = answer.get("rating")
        if not _likert(rating):
            return 0.0
        return 1.0 if abs(rating - gold["rating"]) <= gold.get("tolerance", DEFAULT_TOLERANCE) else 0.0

    def measure(self, options: dict[str, Any], units: list[Unit]) -> Measurement:
        stories: dict[Any, list[tuple[int, int]]] = defaultdict(list)  # story -> (assignment, rating)
        aspects: dict[str, dict[Any, list[int]]] = {name: defaultdict(list) for name in ASPECTS}
        for unit in units:
            story = unit.items.get("story") if isinstance(unit.items, dict) else None
            for answer in unit.answers:
                if _likert(answer.answer.get("rating")):
                    stories[story].append((answer.assignment, answer.answer["rating"]))
                given = answer.answer.get("aspects")
                for name, per_story in aspects.items():
                    if isinstance(given, dict) and _likert(given.get(name)):
                        per_story[story].append(given[name])
        keys = list(stories)
        ratings = [[rating for _, rating in stories[key]] for key in keys]
        alpha = unit_alpha(ratings, LIKERT, "ordinal")
        measurement = Measurement(
            measure=("closeness of each rating to the story's other ratings, chance-corrected (1 - mean distance / "
                     "the campaign's mean distance between two ratings); Krippendorff's alpha, ordinal"),
            item_agreement={}, answer_agreement={},
            overall={"krippendorff_alpha": alpha, "rated_stories": len(keys),
                     "mean_rating": _mean([r for rs in ratings for r in rs]) if keys else None},
        )
        story_agreement: dict[Any, float | None] = {}
        for key, agreements in zip(keys, answer_agreement(ratings), strict=True):
            for (assignment, _), value in zip(stories[key], agreements, strict=True):
                if value is not None:
                    measurement.answer_agreement[assignment] = value
            measured = [value for value in agreements if value is not None]
            story_agreement[key] = _mean(measured) if measured else None
        for name, per_story in aspects.items():
            if per_story:
                measurement.overall[f"krippendorff_alpha_{name}"] = unit_alpha(list(per_story.values()), LIKERT,
                                                                               "ordinal")
        for unit in units:
            story = unit.items.get("story") if isinstance(unit.items, dict) else None
            if story not in stories:
                continue
            measurement.item_agreement[unit.hit] = story_agreement[story]
            measurement.aggregates[unit.hit] = self._aggregate(stories[story], {
                name: per_story[story] for name, per_story in aspects.items() if per_story.get(story)}, alpha)
        return measurement

    @staticmethod
    def _aggregate(rated: list[tuple[int, int]], aspects: dict[str, list[int]], alpha: float | None) -> Aggregate:
        mean = _mean([rating for _, rating in rated])
        answer: dict[str, Any] = {"rating": round_half_up(mean)}
        details: dict[str, Any] = {"mean": round(mean, 6), "ratings": len(rated), "krippendorff_alpha": alpha}
        if aspects:
            means = {name: _mean(values) for name, values in aspects.items()}
            answer["aspects"] = {name: round_half_up(value) for name, value in means.items()}
            details["aspect_means"] = {name: round(value, 6) for name, value in means.items()}
        return Aggregate(answer=answer, method=METHOD, support=len(rated), details=details)
