"""Quality of the story task kinds (mturk.measures registry): tell_story, retell_story, describe_sequence.

Gold is a word rule over the whole story text, as for captions (annotation.quality.captions); tell_story's gold
may also say the album is not storyable. retell_story's chosen sequence is not scored: which sequence to tell is
the worker's preference, and the sequences offered depend on the storytelling stage feeding the campaign.

Agreement is ROUGE-L between the stories of one HIT (metrics.text_agreement): tell_story and retell_story compare
the whole story (the card texts joined), describe_sequence compares the descriptions photo by photo (every answer
describes the same photos in the same order) and averages over the photos. The aggregated answer is the medoid
story; for describe_sequence, the medoid description of each photo."""
from __future__ import annotations

from typing import Any, ClassVar

from annotation.quality.captions import (
    REFUSE_FROM_ANSWER,
    RULE_FORMAT,
    RULE_SCORING,
    clean_text_rule,
    measure_texts,
    medoid_answer,
    score_text_rule,
)
from metrics.text_agreement import METHOD, ItemAgreement, item_agreement, mean_agreement
from mturk.measures import Answer, KindQuality, Measurement, Unit, register_quality


def _texts(answer: dict[str, Any], key: str) -> list[str]:
    texts = answer.get(key)
    return [t for t in texts if isinstance(t, str)] if isinstance(texts, list) else []


def story_texts(answer: dict[str, Any]) -> list[str] | None:
    """The story's texts in order (cards of tell_story, texts of the others); None for a "not storyable" skip."""
    if answer.get("skip"):
        return None
    if isinstance(answer.get("cards"), list):
        cards = answer["cards"]
        return [card["text"] for card in cards if isinstance(card, dict) and isinstance(card.get("text"), str)]
    return _texts(answer, "texts")


def story_text(answer: dict[str, Any]) -> str | None:
    texts = story_texts(answer)
    return None if texts is None else " ".join(texts)


class StoryQuality(KindQuality):
    """A word rule over the whole story; agreement and the medoid over the whole story text."""

    what: ClassVar[str] = "story"
    gold_format = f"a word rule over the whole story text: {RULE_FORMAT}"
    gold_scoring = RULE_SCORING + "; over the story's texts joined"

    def clean_gold(self, items: dict[str, Any], gold: Any) -> dict[str, Any]:
        return clean_text_rule(gold)

    def gold_from_answer(self, items: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        raise ValueError(REFUSE_FROM_ANSWER.format(what=self.what))

    def score_gold(self, options: dict[str, Any], items: dict[str, Any], gold: dict[str, Any],
                   answer: dict[str, Any]) -> float:
        text = story_text(answer)
        return 0.0 if text is None else score_text_rule(gold, text)

    def measure(self, options: dict[str, Any], units: list[Unit]) -> Measurement:
        return measure_texts(units, lambda answers: item_agreement([story_text(a) for a in answers]),
                             measure=f"{METHOD}, on the whole story")


@register_quality
class TellStoryQuality(StoryQuality):
    task_kind = "tell_story"
    gold_format = (f"a word rule over the whole story text: {RULE_FORMAT}; or {{\"skip\": true}}: the album is not "
                   "storyable")
    gold_scoring = (RULE_SCORING + "; over the story's texts joined (a skip scores 0); a not-storyable gold: "
                    "1 for a skip, 0 for a story")

    def clean_gold(self, items: dict[str, Any], gold: Any) -> dict[str, Any]:
        if isinstance(gold, dict) and "skip" in gold:
            if gold != {"skip": True}:
                raise ValueError("a not-storyable known answer is exactly {\"skip\": true}")
            return {"skip": True}
        return clean_text_rule(gold)

    def gold_from_answer(self, items: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """An approved "not storyable" answer makes a not-storyable gold album; a story needs a written rule."""
        if answer.get("skip"):
            return {"skip": True}
        return super().gold_from_answer(items, answer)

    def score_gold(self, options: dict[str, Any], items: dict[str, Any], gold: dict[str, Any],
                   answer: dict[str, Any]) -> float:
        if gold.get("skip"):
            return 1.0 if answer.get("skip") else 0.0
        return super().score_gold(options, items, gold, answer)

    def measure(self, options: dict[str, Any], units: list[Unit]) -> Measurement:
        return measure_texts(units, lambda answers: item_agreement([story_text(a) for a in answers]),
                             measure=f"{METHOD}, on the whole story; two not-storyable answers agree (1), "
                                     "a story and a skip do not (0)")


@register_quality
class RetellStoryQuality(StoryQuality):
    task_kind = "retell_story"


def _per_photo(answers: list[dict[str, Any]]) -> ItemAgreement:
    """Agreement photo by photo, averaged; the whole text when the answers do not have the same photo count."""
    texts = [_texts(answer, "texts") for answer in answers]
    count = len(texts[0]) if texts else 0
    if not count or any(len(t) != count for t in texts):
        return item_agreement([" ".join(t) for t in texts])
    return mean_agreement([item_agreement([t[photo] for t in texts]) for photo in range(count)])


def _medoid_per_photo(answers: list[Answer], result: ItemAgreement) -> tuple[dict[str, Any], dict[str, Any]]:
    """For each photo, the description that agrees most with the others' descriptions of it."""
    if not result.parts:  # compared as whole texts (photo counts differ): the medoid answer
        return medoid_answer(answers, result)
    texts = [_texts(answer.answer, "texts") for answer in answers]
    combined, sources = [], []
    for photo, part in enumerate(result.parts):
        assert part.medoid is not None
        combined.append(texts[part.medoid][photo])
        sources.append(answers[part.medoid].assignment)
    return {"texts": combined}, {"source_assignments": sources}


@register_quality
class DescribeSequenceQuality(StoryQuality):
    task_kind = "describe_sequence"
    what = "sequence description"
    gold_format = f"a word rule over the descriptions of the sequence joined: {RULE_FORMAT}"
    gold_scoring = RULE_SCORING + "; over the descriptions joined"

    def measure(self, options: dict[str, Any], units: list[Unit]) -> Measurement:
        return measure_texts(units, _per_photo, combine=_medoid_per_photo,
                             measure=f"{METHOD}, photo by photo, mean over the photos",
                             method="medoid by ROUGE-L, photo by photo")


from . import quality_ratings  # noqa: E402, F401  (rate_story)
