"""Quality of judge_caption (mturk.measures registry): gold pairs, Dawid-Skene labels per pair, worker skills.

Gold comes two ways. A gold HIT (a GoldItem mixed into the campaign) has a known answer in the answer's shape,
{"judgements": [...]}, one per pair; inline gold pairs ride in a real HIT's items (`"gold"` on the pair, see
annotation.ranking.services.judging_items). Both are scored by the kind's rule (judge_caption.gold_passed): yes/no
exactly, grades at most one apart on the same side of 2/3.

The units compared are the (image, caption) pairs, not the HITs: every non-gold pair a worker judged is a row
(pair, worker, label) for Dawid-Skene (metrics.categorical, crowd-kit), fitted once over the campaign. It gives
each pair its label and posterior, and each worker a skill (estimated accuracy). An answer's agreement is the
share of its pairs that agree with the pairs' labels (by the gold rule); a HIT's agreement is the mean over its
pairs of the share of the HIT's answers that agree. Krippendorff's alpha over the pairs is nominal for yes/no,
ordinal for grades."""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable
from typing import Any, cast

from metrics.categorical import dawid_skene
from metrics.rating_agreement import unit_alpha
from mturk.measures import Aggregate, KindQuality, Measurement, Unit, register_quality

from .judge_caption import gold_passed, is_grade, relevant_grade
from .services.judging_items import GRADES

Pair = tuple[Any, Any]  # image id, description id
JUDGEMENT = "{\"relevant\": true|false} or {\"grade\": 1-4}"


def clean_judgement(value: Any) -> dict[str, Any] | None:
    """A judgement as stored ({"relevant": bool} or {"grade": 1-4}), or None when it is neither."""
    if isinstance(value, dict) and value.keys() == {"relevant"} and isinstance(value["relevant"], bool):
        return {"relevant": value["relevant"]}
    if isinstance(value, dict) and value.keys() == {"grade"} and is_grade(value["grade"]):
        return {"grade": value["grade"]}
    return None


def passed(known: dict[str, Any], given: Any) -> bool:
    """Whether an answer's judgement agrees with a known one (judge_caption.gold_passed); a missing or malformed
    judgement does not."""
    judgement = clean_judgement(given)
    return judgement is not None and gold_passed(known, judgement)


def _judgements(answer: dict[str, Any]) -> list[Any]:
    judgements = answer.get("judgements")
    return judgements if isinstance(judgements, list) else []


def _pairs(items: dict[str, Any]) -> list[dict[str, Any]]:
    """The HIT's pairs in order (answers are by position); a malformed one is set aside like a gold pair without a
    known answer: neither scored nor compared."""
    pairs = items.get("pairs") if isinstance(items, dict) else None
    return [pair if isinstance(pair, dict) else {"gold": None} for pair in pairs] if isinstance(pairs, list) else []


def _given(judgements: list[Any], index: int) -> Any:
    return judgements[index] if index < len(judgements) else None


@register_quality
class JudgementQuality(KindQuality):
    task_kind = "judge_caption"
    gold_format = ("{\"judgements\": [<judgement>, ...]}, one per pair in the pairs' order, each " + JUDGEMENT
                   + " or null for a pair whose answer is not known")
    gold_scoring = ("the share of the known pairs answered right: yes/no exactly; grades at most one apart and on "
                    "the same side of 2/3 (a grade against yes/no: on its side)")

    def clean_gold(self, items: dict[str, Any], gold: Any) -> dict[str, Any]:
        count = len(_pairs(items))
        if not isinstance(gold, dict) or set(gold) != {"judgements"} or not isinstance(gold["judgements"], list):
            raise ValueError(f"expected {{\"judgements\": [...]}} with one judgement per pair ({count}), "
                             f"got {gold!r}")
        given = gold["judgements"]
        if len(given) != count:
            raise ValueError(f"expected {count} judgements (one per pair), got {len(given)}")
        cleaned: list[dict[str, Any] | None] = []
        for number, value in enumerate(given, start=1):
            judgement = clean_judgement(value)
            if value is not None and judgement is None:
                raise ValueError(f"judgement {number}: expected {JUDGEMENT} or null, got {value!r}")
            cleaned.append(judgement)
        if all(judgement is None for judgement in cleaned):
            raise ValueError("no pair has a known answer")
        return {"judgements": cleaned}

    def score_gold(self, options: dict[str, Any], items: dict[str, Any], gold: dict[str, Any],
                   answer: dict[str, Any]) -> float:
        given = _judgements(answer)
        known = [(index, judgement) for index, judgement in enumerate(gold.get("judgements") or [])
                 if isinstance(judgement, dict)]
        if not known:
            return 0.0
        return sum(passed(judgement, _given(given, index)) for index, judgement in known) / len(known)

    def score_inline_gold(self, options: dict[str, Any], items: dict[str, Any],
                          answer: dict[str, Any]) -> float | None:
        """The share of the HIT's gold pairs answered right; None when it has none."""
        given = _judgements(answer)
        known = [(index, pair["gold"]) for index, pair in enumerate(_pairs(items)) if isinstance(pair.get("gold"),
                                                                                                  dict)]
        if not known:
            return None
        return sum(passed(gold, _given(given, index)) for index, gold in known) / len(known)

    def measure(self, options: dict[str, Any], units: list[Unit]) -> Measurement:
        graded = bool(options.get("graded"))
        label = _grade_label if graded else _yes_no_label
        rows: list[tuple[Hashable, Hashable, Hashable]] = []
        votes: dict[Pair, list[Any]] = defaultdict(list)
        given: list[list[list[Any]]] = []  # per unit, per answer, per pair: the answer's label (None: none)
        for unit in units:
            pairs = _pairs(unit.items)
            labelled = []
            for answer in unit.answers:
                judgements = _judgements(answer.answer)
                labels = [None if "gold" in pair else label(_given(judgements, index))
                          for index, pair in enumerate(pairs)]
                labelled.append(labels)
                for pair, value in zip(pairs, labels, strict=True):
                    if value is not None:
                        key = (pair.get("image"), pair.get("description"))
                        # grades go in negated: Dawid-Skene breaks a tie towards the smaller label, here the
                        # better grade (4 describes the image), as before the scale followed the release
                        rows.append((key, answer.worker, -value if graded else value))
                        votes[key].append(value)
            given.append(labelled)
        model = dawid_skene(rows)
        pair_labels: dict[Any, Any] = ({key: -cast(int, label) for key, label in model.labels.items()} if graded
                                       else model.labels)
        measurement = Measurement(
            measure=("agreement with each pair's Dawid-Skene label (crowd-kit): "
                     + ("grades at most one apart on the same side of 2/3" if graded else "yes/no equal")),
            item_agreement={}, answer_agreement={}, worker_skill={cast(int, w): s for w, s in model.skill.items()},
            overall={
                "krippendorff_alpha": _alpha(votes, graded),
                "dawid_skene_mean_posterior": model.mean_posterior(),
                "judged_pairs": len(model.labels),
            },
        )
        for unit, labelled in zip(units, given, strict=True):
            _measure_unit(unit, labelled, pair_labels, model.posterior, votes, graded, measurement)
        return measurement


def _agrees(given: Any, label: Any, graded: bool) -> bool:
    """An answer's label against the aggregated one, by the gold rule (judge_caption.gold_passed)."""
    if given is None:
        return False
    if graded:
        return bool(abs(given - label) <= 1 and relevant_grade(given) == relevant_grade(label))
    return bool(given == label)


def _measure_unit(unit: Unit, labelled: list[list[Any]], labels: dict[Any, Any], posterior: dict[Any, float],
                  votes: dict[Pair, list[Any]], graded: bool, measurement: Measurement) -> None:
    pairs = _pairs(unit.items)
    keys = {index: key for index, pair in enumerate(pairs)
            if "gold" not in pair and (key := (pair.get("image"), pair.get("description"))) in labels}
    if not keys:
        return
    agreeing: dict[int, int] = dict.fromkeys(keys, 0)  # pair index -> answers agreeing with its label
    for answer, given in zip(unit.answers, labelled, strict=True):
        agreed = 0
        for index, key in keys.items():
            if _agrees(given[index], labels[key], graded):
                agreed += 1
                agreeing[index] += 1
        measurement.answer_agreement[answer.assignment] = agreed / len(keys)
    answers = len(unit.answers)
    measurement.item_agreement[unit.hit] = (sum(agreeing.values()) / answers / len(keys) if answers >= 2 else None)
    shape = _judgement_of(graded)
    measurement.aggregates[unit.hit] = Aggregate(
        answer={"judgements": [pair["gold"] if "gold" in pair else shape(labels[keys[index]]) if index in keys
                               else None for index, pair in enumerate(pairs)]},
        method="Dawid-Skene (crowd-kit)",
        support=answers,
        details={
            "posteriors": [round(posterior[keys[i]], 6) if i in keys else None for i in range(len(pairs))],
            "votes": [_votes(votes[keys[i]]) if i in keys else None for i in range(len(pairs))],
            "gold_pairs": [index for index, pair in enumerate(pairs) if "gold" in pair],
            "note": "a pair judged in several HITs of the campaign has one label from all its judgements",
        },
    )


def _yes_no_label(value: Any) -> bool | None:
    judgement = clean_judgement(value)
    return judgement["relevant"] if judgement is not None and "relevant" in judgement else None


def _grade_label(value: Any) -> int | None:
    judgement = clean_judgement(value)
    return judgement["grade"] if judgement is not None and "grade" in judgement else None


def _judgement_of(graded: bool) -> Any:
    return (lambda grade: {"grade": grade}) if graded else (lambda relevant: {"relevant": relevant})


def _votes(values: list[Any]) -> dict[str, int]:
    counts = Counter(values)
    return {("yes" if key is True else "no" if key is False else str(key)): n for key, n in sorted(counts.items())}


def _alpha(votes: dict[Pair, list[Any]], graded: bool) -> float | None:
    """Krippendorff's alpha over the pairs' judgements: ordinal for grades, nominal for yes/no."""
    if graded:
        return unit_alpha(list(votes.values()), value_domain=GRADES, level="ordinal")
    return unit_alpha([[int(v) for v in values] for values in votes.values()], value_domain=(0, 1), level="nominal")
