"""Quality of describe_image captions: a gold rule on the caption's words, agreement by ROUGE-L between the
captions of an image (metrics.text_agreement), and the medoid caption as the aggregated one.

The word rule and the text measurement are shared with the story kinds (storyboard.quality)."""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from metrics.text_agreement import AGGREGATION, METHOD, ItemAgreement, fold, item_agreement, tokens
from mturk.measures import Aggregate, Answer, KindQuality, Measurement, Unit, register_quality

RULE_KEYS = ("required_words", "forbidden_words", "min_words")
MAX_RULE_WORDS = 50
MAX_MIN_WORDS = 1000

RULE_FORMAT = ('{"required_words": ["dog", ...], "forbidden_words": ["cat", ...], "min_words": 8} '
               "(at least one key; single words)")
RULE_SCORING = ("share of the rule's conditions met: each required word present, no forbidden word, at least "
                "min_words words (words compared without case, plurals folded: dogs = dog, men = man)")
REFUSE_FROM_ANSWER = (
    "Mark a {what} gold by writing its rule (required words, forbidden words, a minimum number of words): "
    "the words of one approved {what} would fail good answers worded differently."
)


def rule_word(word: str) -> str:
    """A word as rules compare it: lowercased, without a possessive 's, in the singular (dogs = dog, men = man;
    metrics.text_agreement.fold)."""
    return fold(word.casefold())


def folded_words(text: str) -> set[str]:
    """The text's words folded, with the parts of hyphenated words too (black-and-white: black, and, white)."""
    found = set()
    for word in tokens(text):
        found.add(rule_word(word))
        if "-" in word:
            found.update(rule_word(part) for part in word.split("-") if part)
    return found


def _rule_words(gold: dict[str, Any], key: str) -> list[str]:
    value = gold.get(key, [])
    if isinstance(value, str) or not isinstance(value, list):
        raise ValueError(f"{key} must be a list of words, e.g. [\"dog\", \"beach\"]")
    if len(value) > MAX_RULE_WORDS:
        raise ValueError(f"{key}: at most {MAX_RULE_WORDS} words")
    cleaned: list[str] = []
    for word in value:
        if not isinstance(word, str) or tokens(word) != [word.strip().casefold()]:
            raise ValueError(f"{key}: {word!r} is not a single word")
        if word.strip().casefold() not in cleaned:
            cleaned.append(word.strip().casefold())
    return cleaned


def clean_text_rule(gold: Any) -> dict[str, Any]:
    """A word rule checked and cleaned (words lowercased, repeats dropped); ValueError says what is wrong."""
    if not isinstance(gold, dict):
        raise ValueError(f"the known answer must be a rule: {RULE_FORMAT}")
    unknown = sorted(set(gold) - set(RULE_KEYS))
    if unknown:
        raise ValueError(f"unknown rule key(s) {', '.join(unknown)}; expected {', '.join(RULE_KEYS)}")
    rule: dict[str, Any] = {}
    for key in ("required_words", "forbidden_words"):
        words = _rule_words(gold, key)
        if words:
            rule[key] = words
    if "min_words" in gold:
        least = gold["min_words"]
        if isinstance(least, bool) or not isinstance(least, int) or not 1 <= least <= MAX_MIN_WORDS:
            raise ValueError(f"min_words must be a whole number from 1 to {MAX_MIN_WORDS}")
        rule["min_words"] = least
    if not rule:
        raise ValueError(f"the rule has no condition: give at least one of {', '.join(RULE_KEYS)}")
    both = ({rule_word(w) for w in rule.get("required_words", [])}
            & {rule_word(w) for w in rule.get("forbidden_words", [])})
    if both:
        raise ValueError(f"word(s) both required and forbidden: {', '.join(sorted(both))}")
    return rule


def score_text_rule(rule: dict[str, Any], text: str) -> float:
    """The share of the rule's conditions the text meets: each required word is one condition, "no forbidden
    word" one, "at least min_words words" one."""
    found = folded_words(text)
    required = rule.get("required_words", [])
    met = sum(rule_word(word) in found for word in required)
    conditions = len(required)
    if rule.get("forbidden_words"):
        conditions += 1
        met += not any(rule_word(word) in found for word in rule["forbidden_words"])
    if rule.get("min_words"):
        conditions += 1
        met += len(tokens(text)) >= rule["min_words"]
    return met / conditions if conditions else 0.0


Compare = Callable[[list[dict[str, Any]]], ItemAgreement]
Combine = Callable[[list[Answer], ItemAgreement], tuple[dict[str, Any], dict[str, Any]]]


def medoid_answer(answers: list[Answer], result: ItemAgreement) -> tuple[dict[str, Any], dict[str, Any]]:
    """The medoid's answer as it is, and which assignment it is."""
    assert result.medoid is not None
    chosen = answers[result.medoid]
    return dict(chosen.answer), {"medoid_assignment": chosen.assignment, "medoid_worker": chosen.worker}


def measure_texts(units: Sequence[Unit], compare: Compare, *, measure: str = METHOD,
                  method: str = AGGREGATION, combine: Combine = medoid_answer) -> Measurement:
    """Agreement per answer and item from `compare` (the answers of one HIT -> ItemAgreement) and, for HITs with
    two answers or more, the aggregated answer (`combine`, by default the medoid answer) with every answer's
    agreement in its details."""
    item: dict[int, float | None] = {}
    per_answer: dict[int, float] = {}
    aggregates: dict[int, Aggregate] = {}
    for unit in units:
        result = compare([answer.answer for answer in unit.answers])
        item[unit.hit] = result.agreement
        for answer, score in zip(unit.answers, result.scores, strict=True):
            if score is not None:
                per_answer[answer.assignment] = score
        if len(unit.answers) >= 2 and result.medoid is not None:
            combined, details = combine(list(unit.answers), result)
            details["scores"] = [{"assignment": a.assignment, "worker": a.worker, "agreement": round(score, 4)}
                                 for a, score in zip(unit.answers, result.scores, strict=True) if score is not None]
            aggregates[unit.hit] = Aggregate(answer=combined, method=method, support=len(unit.answers),
                                             details=details)
    values = [value for value in item.values() if value is not None]
    overall: dict[str, float | None] = {"mean_item_agreement": math.fsum(values) / len(values) if values else None}
    return Measurement(measure=measure, item_agreement=item, answer_agreement=per_answer, overall=overall,
                       aggregates=aggregates)


def caption_text(answer: dict[str, Any]) -> str:
    text = answer.get("text")
    return text if isinstance(text, str) else ""


@register_quality
class CaptionQuality(KindQuality):
    task_kind = "describe_image"
    gold_format = RULE_FORMAT
    gold_scoring = RULE_SCORING

    def clean_gold(self, items: dict[str, Any], gold: Any) -> dict[str, Any]:
        return clean_text_rule(gold)

    def gold_from_answer(self, items: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        raise ValueError(REFUSE_FROM_ANSWER.format(what="caption"))

    def score_gold(self, options: dict[str, Any], items: dict[str, Any], gold: dict[str, Any],
                   answer: dict[str, Any]) -> float:
        return score_text_rule(gold, caption_text(answer))

    def measure(self, options: dict[str, Any], units: list[Unit]) -> Measurement:
        return measure_texts(units, lambda answers: item_agreement([caption_text(a) for a in answers]))
