"""A small, test-only KindQuality for describe_image answers (exact text match), and builders of answers and
gold HITs with hand-set figures, for the quality services' tests."""
from __future__ import annotations

from collections import Counter
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone

from mturk.measures import _QUALITY, Aggregate, KindQuality, Measurement, Unit
from mturk.models import HIT, Assignment, Campaign, GoldItem, Worker
from mturk.states import AssignmentStatus, HITStatus
from tests.factories import make_campaign


class ExactTextQuality(KindQuality):
    """Agreement of an answer: the share of the HIT's other answers with the same text; of an item: the share of
    agreeing pairs; aggregate: the most common text; skill: the share of a worker's answers equal to it."""

    task_kind = "describe_image"
    gold_format = '{"text": "..."}'
    gold_scoring = "1 when the text is the known text, else 0"

    def clean_gold(self, items: dict[str, Any], gold: Any) -> dict[str, Any]:
        if not isinstance(gold, dict) or not isinstance(gold.get("text"), str):
            raise ValueError('a known answer is {"text": "..."}')
        return {"text": gold["text"]}

    def score_gold(self, options: dict[str, Any], items: dict[str, Any], gold: dict[str, Any],
                   answer: dict[str, Any]) -> float:
        return 1.0 if answer.get("text") == gold["text"] else 0.0

    def measure(self, options: dict[str, Any], units: list[Unit]) -> Measurement:
        item_agreement: dict[int, float | None] = {}
        answer_agreement: dict[int, float] = {}
        aggregates: dict[int, Aggregate] = {}
        hits: dict[int, list[bool]] = {}
        pairs = agreeing = 0
        for unit in units:
            texts = [a.answer["text"] for a in unit.answers]
            top, votes = Counter(texts).most_common(1)[0]
            aggregates[unit.hit] = Aggregate(answer={"text": top}, method="most common text", support=len(texts),
                                             details={"votes": votes})
            if len(texts) < 2:
                item_agreement[unit.hit] = None
                continue
            same = sum(texts[i] == texts[j] for i in range(len(texts)) for j in range(i + 1, len(texts)))
            n_pairs = len(texts) * (len(texts) - 1) // 2
            pairs, agreeing = pairs + n_pairs, agreeing + same
            item_agreement[unit.hit] = same / n_pairs
            for answer in unit.answers:
                answer_agreement[answer.assignment] = (texts.count(answer.answer["text"]) - 1) / (len(texts) - 1)
                hits.setdefault(answer.worker, []).append(answer.answer["text"] == top)
        skill = {worker: sum(marks) / len(marks) for worker, marks in hits.items()}
        return Measurement(measure="exact text match", item_agreement=item_agreement,
                           answer_agreement=answer_agreement, worker_skill=skill,
                           overall={"pair_agreement": agreeing / pairs if pairs else None}, aggregates=aggregates)


@pytest.fixture
def text_quality(monkeypatch: pytest.MonkeyPatch) -> ExactTextQuality:
    """ExactTextQuality registered for describe_image for one test (whatever is registered there is restored)."""
    quality = ExactTextQuality()
    monkeypatch.setitem(_QUALITY._items, "describe_image", quality)
    return quality


def quality_campaign(images: int = 2, **fields: Any) -> Campaign:
    return make_campaign(images=images, assignments=fields.pop("assignments", 3), **fields)


def real_hits(campaign: Campaign) -> list[HIT]:
    return list(campaign.hits.filter(gold_item__isnull=True, onboarding=False).order_by("position", "pk"))


def gold_hit(campaign: Campaign, text: str = "known", *, onboarding: bool = False) -> HIT:
    items = real_hits(campaign)[0].items
    gold = GoldItem.objects.create(task_kind=campaign.task_kind, items=items, answer={"text": text},
                                   purpose="onboarding" if onboarding else "gold")
    return HIT.objects.create(campaign=campaign, position=1000 + gold.pk, items=items, gold_item=gold,
                              onboarding=onboarding, max_assignments=campaign.assignments_per_hit,
                              status=HITStatus.PUBLISHED)


def worker(name: str, provider: str = "local") -> Worker:
    return Worker.objects.get_or_create(provider=provider, external_id=name)[0]


def answer(hit: HIT, by: Worker, text: str, *, status: str = AssignmentStatus.SUBMITTED, seconds: float | None = 60,
           gold_score: float | None = None, confirmed: bool = True) -> Assignment:
    now = timezone.now()
    return Assignment.objects.create(
        hit=hit, worker=by, status=status, answer={"text": text} if status != AssignmentStatus.ACCEPTED else None,
        gold_score=gold_score, confirmed=confirmed, deadline=now + timedelta(hours=1),
        submitted_at=None if status == AssignmentStatus.ACCEPTED else now,
        time_on_task=None if seconds is None else timedelta(seconds=seconds),
    )


MONEY = Decimal("0.01")


@pytest.fixture
def provider_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """Every marketplace call the local provider receives, as (method, assignment id | bonus id | campaign id)."""
    from mturk.providers.local.provider import LocalProvider

    calls: list[tuple[str, Any]] = []
    for name in ("approve", "reject", "bonus", "decisions_recorded"):
        original = getattr(LocalProvider, name)

        def record(self: Any, target: Any, *args: Any, _name: str = name, _original: Any = original,
                   **kwargs: Any) -> Any:
            calls.append((_name, target.pk))
            return _original(self, target, *args, **kwargs)

        monkeypatch.setattr(LocalProvider, name, record)
    return calls


REJECT_MESSAGE = ("Most of your answers to the check questions, whose answers we know, were wrong, so this work "
                  "cannot be accepted.")


def rule_data(**fields: Any) -> dict[str, Any]:
    """Approve at gold >= 0.8 and agreement >= 0.3, reject below gold 0.5, bonus the top 10% 0.50."""
    return {"approve_min_gold": 0.8, "approve_min_agreement": 0.3, "reject_below_gold": 0.5,
            "reject_message": REJECT_MESSAGE, "reject_category": "", "bonus_top_share": 0.1,
            "bonus_amount": "0.50", "bonus_reason": "Among the most careful workers of this campaign.", **fields}


def rule_crowd() -> tuple[Campaign, dict[str, Worker], dict[str, list[Assignment]]]:
    """HIT 1: good1 cat, good2 cat, bad dog, unsure cat; HIT 2: good1 sun, good2 moon, unsure sun, newbie sun.
    Gold scores: good1 1, good2 1, bad 0, unsure 0.6 (newbie none). All submitted.

    Agreement (exact text): good1 (2/3 + 2/3)/2 = 0.67, good2 (2/3 + 0)/2 = 0.33, bad 0, unsure 0.67, newbie
    0.67. With rule_data: good1 and good2 approved (3 answers each), bad rejected (2), unsure (gold 0.6) and
    newbie (no gold) left (3 + 1); of the 2 approved workers the top 10% rounded up is 1: good1 (agreement)."""
    campaign = quality_campaign(images=2, reward=Decimal("0.10"), assignments=4)
    first, second = real_hits(campaign)
    gold = gold_hit(campaign)
    people = {name: worker(name) for name in ("good1", "good2", "bad", "unsure", "newbie")}
    work: dict[str, list[Assignment]] = {name: [] for name in people}
    for hit, texts in ((first, {"good1": "cat", "good2": "cat", "bad": "dog", "unsure": "cat"}),
                       (second, {"good1": "sun", "good2": "moon", "unsure": "sun", "newbie": "sun"}),
                       (gold, {"good1": "known", "good2": "known", "bad": "no", "unsure": "known?"})):
        for name, text in texts.items():
            score = {"good1": 1.0, "good2": 1.0, "bad": 0.0, "unsure": 0.6}[name] if hit is gold else None
            work[name].append(answer(hit, people[name], text, gold_score=score))
    return campaign, people, work
