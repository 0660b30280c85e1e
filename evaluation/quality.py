"""Quality of rate_output and compare_outputs (mturk.measures registry): attention checks scored against their
known answers, agreement between judges, and each HIT's answers combined.

Attention checks (gold HITs, made when an evaluation is launched) put a human reference next to a corrupted
output (another item's reference). rate_output's known answer is {"low": [<output>...], "high": [<output>...]}:
the score is the share of (high, low) couples where the high output got a strictly higher rating on the first
aspect (the overall question). compare_outputs' is {"better": <output>}: 1 when the first aspect's choice is that
output, else 0. Both pass at mturk.measures.GOLD_PASS_MARK.

Agreement. Ratings: the units are the outputs (each rated by several judges); Krippendorff's alpha, ordinal, per
aspect (metrics.rating_agreement, the krippendorff package), each rating's chance-corrected closeness to the
output's other ratings, an answer's agreement the mean over its outputs (first aspect). Pairwise: per HIT and
aspect, the share of answers agreeing with the majority choice; alpha, nominal, over (HIT, aspect)."""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any

from metrics.rating_agreement import answer_agreement, unit_alpha
from mturk.measures import Aggregate, KindQuality, Measurement, Unit, register_quality

from .aspects import ASPECTS
from .task_kinds.common import whole_number
from .task_kinds.compare_outputs import TIE, is_choice


def _outputs(items: dict[str, Any]) -> list[Any]:
    outputs = items.get("outputs") if isinstance(items, dict) else None
    return outputs if isinstance(outputs, list) else []


def _ids(value: Any, name: str, outputs: list[Any]) -> list[int]:
    if not isinstance(value, list) or not value or not all(whole_number(pk) for pk in value):
        raise ValueError(f"{name}: expected a list of at least one output id, got {value!r}")
    strangers = [pk for pk in value if pk not in outputs]
    if strangers:
        raise ValueError(f"{name}: output {strangers[0]} is not one of the HIT's outputs {outputs}")
    return list(dict.fromkeys(value))


def _first_aspect(options: dict[str, Any]) -> str | None:
    aspects = options.get("aspects")
    return aspects[0] if isinstance(aspects, list) and aspects else None


def _scale(aspect: str) -> tuple[int, ...]:
    known = ASPECTS.get(aspect)
    return tuple(range(1, len(known.scale) + 1)) if known else ()


def round_half_up(value: float) -> int:
    return math.floor(value + 0.5)


NO_GOLD_FROM_ANSWER = ("an attention check's known answer names the reference and the corrupted output; it is "
                       "made when the evaluation is launched, not from a judge's answer")


@register_quality
class RateOutputQuality(KindQuality):
    task_kind = "rate_output"
    gold_format = ("{\"low\": [<output id>, ...], \"high\": [<output id>, ...]}: outputs of the HIT known to be "
                   "worse (the corrupted one) and better (the reference)")
    gold_scoring = ("the share of (high, low) couples where the high output got a strictly higher rating on the "
                    "first question")

    def clean_gold(self, items: dict[str, Any], gold: Any) -> dict[str, Any]:
        outputs = _outputs(items)
        if not isinstance(gold, dict) or set(gold) != {"low", "high"}:
            raise ValueError(f"expected {{\"low\": [<output id>, ...], \"high\": [<output id>, ...]}}, got {gold!r}")
        low, high = _ids(gold["low"], "low", outputs), _ids(gold["high"], "high", outputs)
        both = sorted(set(low) & set(high))
        if both:
            raise ValueError(f"output {both[0]} is both low and high")
        return {"low": low, "high": high}

    def gold_from_answer(self, items: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        raise ValueError(NO_GOLD_FROM_ANSWER)

    def score_gold(self, options: dict[str, Any], items: dict[str, Any], gold: dict[str, Any],
                   answer: dict[str, Any]) -> float:
        aspect, outputs = _first_aspect(options), _outputs(items)
        ratings = answer.get("ratings") if isinstance(answer, dict) else None
        if aspect is None or not isinstance(ratings, list):
            return 0.0

        def rating(pk: Any) -> Any:
            index = outputs.index(pk) if pk in outputs else len(ratings)
            given = ratings[index] if index < len(ratings) else None
            return given.get(aspect) if isinstance(given, dict) else None

        couples = [(rating(high), rating(low)) for high in gold.get("high", []) for low in gold.get("low", [])]
        if not couples:
            return 0.0
        return sum(1 for h, lo in couples if whole_number(h) and whole_number(lo) and h > lo) / len(couples)

    def measure(self, options: dict[str, Any], units: list[Unit]) -> Measurement:
        aspects = [a for a in options.get("aspects") or [] if a in ASPECTS]
        # per aspect, per output: the (assignment, rating) couples
        rated: dict[str, dict[Any, list[tuple[int, int]]]] = {a: defaultdict(list) for a in aspects}
        for unit in units:
            outputs = _outputs(unit.items)
            for answer in unit.answers:
                ratings = answer.answer.get("ratings")
                for index, output in enumerate(outputs):
                    given = ratings[index] if isinstance(ratings, list) and index < len(ratings) else None
                    for aspect in aspects:
                        value = given.get(aspect) if isinstance(given, dict) else None
                        if whole_number(value) and value in _scale(aspect):
                            rated[aspect][output].append((answer.assignment, value))
        overall: dict[str, float | None] = {}
        for aspect in aspects:
            values = [[v for _, v in couples] for couples in rated[aspect].values()]
            overall[f"krippendorff_alpha_{aspect}"] = unit_alpha(values, _scale(aspect), "ordinal") if values else None
        first = aspects[0] if aspects else None
        overall["krippendorff_alpha"] = overall.get(f"krippendorff_alpha_{first}")
        overall["rated_outputs"] = len(rated[first]) if first else 0
        measurement = Measurement(
            measure=("closeness of each rating of the first question to the output's other ratings, "
                     "chance-corrected; Krippendorff's alpha, ordinal, per question"),
            item_agreement={}, answer_agreement={}, overall=overall)
        if first is None:
            return measurement
        keys = list(rated[first])
        closeness: dict[int, list[float]] = defaultdict(list)  # assignment -> per output rated
        per_output: dict[Any, float | None] = {}
        for key, agreements in zip(keys, answer_agreement([[v for _, v in rated[first][k]] for k in keys]),
                                   strict=True):
            for (assignment, _), value in zip(rated[first][key], agreements, strict=True):
                if value is not None:
                    closeness[assignment].append(value)
            measured = [value for value in agreements if value is not None]
            per_output[key] = sum(measured) / len(measured) if measured else None
        for assignment, own in closeness.items():
            measurement.answer_agreement[assignment] = sum(own) / len(own)
        for unit in units:
            outputs = _outputs(unit.items)
            found = [value for output in outputs if (value := per_output.get(output)) is not None]
            measurement.item_agreement[unit.hit] = sum(found) / len(found) if found else None
            if unit.answers:
                measurement.aggregates[unit.hit] = _mean_ratings(outputs, aspects, rated, len(unit.answers))
        return measurement


def _mean_ratings(outputs: list[Any], aspects: list[str], rated: dict[str, dict[Any, list[tuple[int, int]]]],
                  support: int) -> Aggregate:
    ratings, means = [], []
    for output in outputs:
        mean = {a: sum(v for _, v in rated[a][output]) / len(rated[a][output]) for a in aspects if rated[a][output]}
        ratings.append({a: round_half_up(value) for a, value in mean.items()})
        means.append({a: round(value, 6) for a, value in mean.items()})
    return Aggregate(answer={"ratings": ratings}, method="mean rating of each output on each question, rounded half "
                     "up (exact means in details)", support=support, details={"means": means})


@register_quality
class CompareOutputsQuality(KindQuality):
    task_kind = "compare_outputs"
    gold_format = "{\"better\": <output id>}: the output of the HIT known to be better (the reference)"
    gold_scoring = "1 when the first question's choice is the known better output, else 0 (a tie scores 0)"

    def clean_gold(self, items: dict[str, Any], gold: Any) -> dict[str, Any]:
        if not isinstance(gold, dict) or set(gold) != {"better"}:
            raise ValueError(f"expected {{\"better\": <output id>}}, got {gold!r}")
        return {"better": _ids([gold["better"]], "better", _outputs(items))[0]}

    def gold_from_answer(self, items: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        raise ValueError(NO_GOLD_FROM_ANSWER)

    def score_gold(self, options: dict[str, Any], items: dict[str, Any], gold: dict[str, Any],
                   answer: dict[str, Any]) -> float:
        aspect, outputs = _first_aspect(options), _outputs(items)
        preferences = answer.get("preferences") if isinstance(answer, dict) else None
        choice = preferences.get(aspect) if isinstance(preferences, dict) and aspect else None
        if choice not in (0, 1) or not whole_number(choice) or choice >= len(outputs):
            return 0.0
        return 1.0 if outputs[choice] == gold.get("better") else 0.0

    def measure(self, options: dict[str, Any], units: list[Unit]) -> Measurement:
        aspects = [a for a in options.get("aspects") or [] if a in ASPECTS]
        code = {0: 0, 1: 1, TIE: 2}
        votes: list[list[int]] = []
        measurement = Measurement(
            measure="share of a HIT's answers agreeing with its majority choice, per question",
            item_agreement={}, answer_agreement={})
        for unit in units:
            choices = {a: [(answer.assignment, _choice(answer.answer, a)) for answer in unit.answers]
                       for a in aspects}
            majority: dict[str, Any] = {}
            shares: list[float] = []
            agreed: dict[int, int] = Counter()
            for aspect, given in choices.items():
                counts = Counter(choice for _, choice in given if choice is not None)
                votes.append([code[choice] for choice in counts.elements()])
                if not counts:
                    continue
                top = max(counts.values())
                modes = [choice for choice, n in counts.items() if n == top]
                majority[aspect] = modes[0] if len(modes) == 1 else TIE
                shares.append(top / len(given))
                for assignment, choice in given:
                    agreed[assignment] += choice in modes
            answers = len(unit.answers)
            if not majority:
                continue
            for answer in unit.answers:
                measurement.answer_agreement[answer.assignment] = agreed[answer.assignment] / len(majority)
            measurement.item_agreement[unit.hit] = sum(shares) / len(shares) if answers >= 2 else None
            measurement.aggregates[unit.hit] = Aggregate(
                answer={"preferences": majority}, method="majority choice per question (a split vote is a tie)",
                support=answers, details={"votes": {a: {str(k): n for k, n in Counter(
                    c for _, c in choices[a] if c is not None).items()} for a in aspects}})
        measurement.overall = {"krippendorff_alpha": unit_alpha(votes, (0, 1, 2), "nominal") if votes else None,
                               "compared_hits": len(measurement.aggregates)}
        return measurement


def _choice(answer: dict[str, Any], aspect: str) -> Any:
    preferences = answer.get("preferences") if isinstance(answer, dict) else None
    choice = preferences.get(aspect) if isinstance(preferences, dict) else None
    return choice if is_choice(choice) else None
