"""Quality of link_words: gold links scored by link F1, agreement as pairwise link F1, answers combined by a
vote per word (metrics.link_agreement).

Option (link_words' TaskDefaults.options): `quorum`, the share of the HIT's answers a word's box needs."""
from __future__ import annotations

from typing import Any

from metrics.link_agreement import Link, link_f1, mean_f1_per_set, pairwise_link_f1, vote_links
from mturk.measures import Aggregate, KindQuality, Measurement, Unit, register_quality

from ..models import Box, Description
from .boxes import DEFAULT_QUORUM, option


def link_set(answer: dict[str, Any]) -> set[Link]:
    """An answer's (or gold) links {"<word index>": box number} as (word, box) pairs."""
    links = answer.get("links") or {}
    return {(int(word), box) for word, box in links.items()}


def method_text(quorum: float) -> str:
    return (f"vote per word (the box most workers linked it to, leaving it unlinked counts as a vote; "
            f"quorum {quorum:.0%}, a tie links nothing)")


@register_quality
class LinkWordsQuality(KindQuality):
    task_kind = "link_words"
    gold_format = ('{"links": {"<word index>": <box number>, ...}} (word indices of the description\'s tokens from '
                   "0, box numbers of its image; words naming no box are left out)")
    gold_scoring = "link F1: 2 x the links in both / (the answer's links + the known links); both empty: 1"

    def clean_gold(self, items: dict[str, Any], gold: Any) -> dict[str, Any]:
        description_id = items.get("description") if isinstance(items, dict) else None
        description = Description.objects.filter(pk=description_id).values("tokens", "image_id").first() if (
            isinstance(description_id, int)) else None
        if description is None:
            raise ValueError(f"the items name no known description: {items!r}")
        if not isinstance(gold, dict) or set(gold) != {"links"} or not isinstance(gold["links"], dict):
            raise ValueError('expected {"links": {"<word index>": <box number>, ...}}')
        tokens = len(description["tokens"])
        numbers = set(Box.objects.filter(image_id=description["image_id"]).values_list("number", flat=True))
        problems, links = [], {}
        for word, box in gold["links"].items():
            if not (isinstance(word, str) and word.isascii() and word.isdigit()) or int(word) >= tokens:
                problems.append(f"word {word!r}: no such word in the description (it has {tokens})")
            elif type(box) is not int or box not in numbers:
                problems.append(f"word {word}: no box {box!r} on the image")
            else:
                links[int(word)] = box
        if problems:
            raise ValueError("; ".join(problems))
        return {"links": {str(word): links[word] for word in sorted(links)}}

    def score_gold(self, options: dict[str, Any], items: dict[str, Any], gold: dict[str, Any],
                   answer: dict[str, Any]) -> float:
        return link_f1(link_set(answer), link_set(gold))

    def measure(self, options: dict[str, Any], units: list[Unit]) -> Measurement:
        """Per HIT: the link F1 of every pair of answers (item agreement: their mean; an answer's agreement: its
        mean F1 against the others) and, with two answers or more, the voted links."""
        quorum = option(options, "quorum", DEFAULT_QUORUM)
        method = method_text(quorum)
        item_agreement: dict[int, float | None] = {}
        answers: dict[int, float] = {}
        aggregates: dict[int, Aggregate] = {}
        for unit in units:
            sets = [link_set(a.answer) for a in unit.answers]
            scores = pairwise_link_f1(sets)
            if not scores:
                item_agreement[unit.hit] = None
                continue
            item_agreement[unit.hit] = sum(scores.values()) / len(scores)
            for answer, value in zip(unit.answers, mean_f1_per_set(scores, len(sets)), strict=True):
                if value is not None:
                    answers[answer.assignment] = value
            votes = vote_links(sets, quorum)
            aggregates[unit.hit] = Aggregate(
                answer={"links": {str(v.word): v.box for v in votes if v.box is not None}},
                method=method, support=len(sets),
                details={"words": {str(v.word): {"votes": v.votes, "box_votes": {
                    "none" if box is None else str(box): count for box, count in v.box_votes.items()}}
                    for v in votes}},
            )
        measured = [value for value in item_agreement.values() if value is not None]
        return Measurement(
            measure="pairwise link F1", item_agreement=item_agreement, answer_agreement=answers,
            aggregates=aggregates, overall={"mean_link_f1": sum(measured) / len(measured) if measured else None},
        )
