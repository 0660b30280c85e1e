"""A test-only gold scoring for describe_image (required words), put in the quality registry for one test
(whatever the app registers), and builders of gold items and gold campaigns for the gold tests."""
from __future__ import annotations

from typing import Any

import pytest

from mturk.measures import _QUALITY, KindQuality, Measurement, Unit
from mturk.models import Campaign, GoldItem
from mturk.services.gold import create_gold_item
from tests.factories import make_image


class RequiredWords(KindQuality):
    """The known answer is {"words": [...]}; the score is the share of those words in the answer's text."""

    task_kind = "describe_image"
    gold_format = '{"words": ["dog", ...]}'
    gold_scoring = "share of the known words the text contains"

    def clean_gold(self, items: dict[str, Any], gold: Any) -> dict[str, Any]:
        if not isinstance(gold, dict) or set(gold) != {"words"} or not isinstance(gold["words"], list) \
                or not gold["words"] or not all(isinstance(w, str) and w.strip() for w in gold["words"]):
            raise ValueError('expected {"words": ["<word>", ...]}')
        return {"words": [w.strip().lower() for w in gold["words"]]}

    def gold_from_answer(self, items: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        return {"words": answer["text"].lower().rstrip(".").split()[:3]}

    def score_gold(self, options: dict[str, Any], items: dict[str, Any], gold: dict[str, Any],
                   answer: dict[str, Any]) -> float:
        said = set(answer["text"].lower().rstrip(".").split())
        return sum(word in said for word in gold["words"]) / len(gold["words"])

    def measure(self, options: dict[str, Any], units: list[Unit]) -> Measurement:
        return Measurement(measure="none", item_agreement={}, answer_agreement={})


class InlineGold(RequiredWords):
    """As if every real HIT carried a gold part (judge_caption's gold pairs): 0.25 per known word said among
    dog, beach, sun and brown."""

    def score_inline_gold(self, options: dict[str, Any], items: dict[str, Any],
                          answer: dict[str, Any]) -> float | None:
        said = set(answer["text"].lower().rstrip(".").split())
        return sum(word in said for word in ("dog", "beach", "sun", "brown")) / 4


@pytest.fixture
def required_words(monkeypatch) -> RequiredWords:
    quality = RequiredWords()
    monkeypatch.setitem(_QUALITY._items, "describe_image", quality)
    return quality


@pytest.fixture
def no_quality(monkeypatch) -> None:
    """describe_image without gold scoring (as a kind that registers none)."""
    monkeypatch.delitem(_QUALITY._items, "describe_image", raising=False)


def gold_item(words: tuple[str, ...] = ("dog", "beach"), purpose: str = "gold", image: int | None = None,
              note: str = "") -> GoldItem:
    picture = image if image is not None else make_image().pk
    return create_gold_item(task_kind="describe_image", items={"image": picture}, answer={"words": list(words)},
                            purpose=purpose, note=note)


GOOD = "A brown dog runs along the beach in the sun today."  # 10 words, says dog and beach
HALF = "A brown dog runs along the road in the sun today."  # says dog, not beach
BAD = "A red car is parked next to a tall grey house."  # says neither


def campaign_ids(campaign: Campaign) -> list[tuple[int, int, int | None]]:
    """(id, position, gold item id) of the campaign's HITs in position order."""
    return list(campaign.hits.order_by("position").values_list("pk", "position", "gold_item_id"))
