"""compute_quality: WorkerScore, Assignment.agreement, ItemAggregate and CampaignQuality of a small campaign,
figures worked out by hand (the test-only exact-text measure, tests/mturk/quality/quality_fakes.py)."""
from __future__ import annotations

from decimal import Decimal

import pytest

from mturk.models import Assignment, Bonus, CampaignQuality, ItemAggregate, WorkerScore
from mturk.quality.services.computation import NO_MEASURE, compute_quality
from mturk.states import AssignmentStatus

from . import quality_fakes
from .quality_fakes import answer, gold_hit, quality_campaign, real_hits, worker

text_quality = quality_fakes.text_quality  # fixture

pytestmark = pytest.mark.django_db
measured = pytest.mark.usefixtures("text_quality")
APPROVED, REJECTED, SUBMITTED = AssignmentStatus.APPROVED, AssignmentStatus.REJECTED, AssignmentStatus.SUBMITTED


@pytest.fixture
def crowd():
    """HIT 1: a "cat", b "cat", c "dog"; HIT 2: a "sun", b "sun"; a gold HIT scored a 1, b 0.5, c 0.
    Seconds: a 30, 60, 90; b 10, 20, 40; c 100, 200. a has two approved answers and a 0.25 bonus; c one
    rejected. Plus what never counts: an unconfirmed answer and work not handed in."""
    campaign = quality_campaign(images=3, reward=Decimal("0.10"))
    first, second, third = real_hits(campaign)
    gold = gold_hit(campaign)
    a, b, c, d = worker("a"), worker("b"), worker("c"), worker("d")
    a1 = answer(first, a, "cat", status=APPROVED, seconds=30)
    answer(second, a, "sun", seconds=60)
    answer(gold, a, "known", status=APPROVED, seconds=90, gold_score=1.0)
    answer(first, b, "cat", seconds=10)
    answer(second, b, "sun", seconds=20)
    answer(gold, b, "known?", seconds=40, gold_score=0.5)
    answer(first, c, "dog", status=REJECTED, seconds=100)
    answer(gold, c, "wrong", seconds=200, gold_score=0.0)
    answer(third, d, "moon", confirmed=False)  # a forged visit: counts for nothing
    answer(third, c, "", status=AssignmentStatus.ACCEPTED)  # not handed in
    Bonus.objects.create(assignment=a1, amount=Decimal("0.25"), reason="great", unique_token="t-1")
    return campaign, (first, second, third), (a, b, c, d)


def scores(campaign):
    return {s.worker.external_id: s for s in WorkerScore.objects.filter(campaign=campaign).select_related("worker")}


@measured
def test_worker_scores_are_the_hand_computed_figures(crowd):
    campaign, _, _ = crowd
    result = compute_quality(campaign)
    assert (result.measure, result.answers, result.items, result.workers, result.aggregated) == (
        "exact text match", 8, 2, 3, 2)
    got = scores(campaign)
    assert sorted(got) == ["a", "b", "c"]
    a, b, c = got["a"], got["b"], got["c"]
    assert (a.items, a.compared_items, a.gold_items, a.gold_accuracy) == (2, 2, 1, 1.0)
    assert (b.items, b.compared_items, b.gold_items, b.gold_accuracy) == (2, 2, 1, 0.5)
    assert (c.items, c.compared_items, c.gold_items, c.gold_accuracy) == (1, 1, 1, 0.0)
    # agreement: a and b (1/2 on HIT 1, 1 on HIT 2) -> 0.75; c (0 of 2 on HIT 1) -> 0
    assert (a.agreement, b.agreement, c.agreement) == (0.75, 0.75, 0.0)
    assert (a.skill, b.skill, c.skill) == (1.0, 1.0, 0.0)
    assert (a.median_seconds, b.median_seconds, c.median_seconds) == (60.0, 20.0, 150.0)
    assert [(s.approved, s.rejected) for s in (a, b, c)] == [(2, 0), (0, 0), (0, 1)]
    # a: two approved answers at 0.10 and a 0.25 bonus; the rejected and the undecided pay nothing
    assert (a.pay, b.pay, c.pay) == (Decimal("0.45"), Decimal("0"), Decimal("0"))


@measured
def test_answers_items_and_the_campaign_get_their_agreement(crowd):
    campaign, (first, second, third), _ = crowd
    compute_quality(campaign)
    agreement = {(x.hit_id, x.worker.external_id): x.agreement
                 for x in Assignment.objects.filter(hit__campaign=campaign).select_related("worker")}
    assert agreement[(first.pk, "a")] == 0.5 and agreement[(first.pk, "b")] == 0.5
    assert agreement[(first.pk, "c")] == 0.0 and agreement[(second.pk, "a")] == 1.0
    assert [v for (hit, _), v in agreement.items() if hit not in (first.pk, second.pk)] == [None] * 5
    aggregates = {g.hit_id: g for g in ItemAggregate.objects.filter(hit__campaign=campaign)}
    assert sorted(aggregates) == [first.pk, second.pk]
    # c's rejected "dog" has no say in the aggregate: a and b's "cat", on which they agree
    assert (aggregates[first.pk].answer, aggregates[first.pk].support) == ({"text": "cat"}, 2)
    assert aggregates[first.pk].agreement == 1.0
    assert (aggregates[second.pk].answer, aggregates[second.pk].agreement) == ({"text": "sun"}, 1.0)
    summary = CampaignQuality.objects.get(campaign=campaign)
    assert (summary.measure, summary.answers, summary.overall) == ("exact text match", 8,
                                                                   {"pair_agreement": 0.5})  # 2 of 4 pairs


@measured
def test_running_again_replaces_the_figures_in_place(crowd):
    campaign, (first, second, _), (a, b, c, _) = crowd
    compute_quality(campaign)
    ids = {s.worker_id: s.pk for s in WorkerScore.objects.filter(campaign=campaign)}
    aggregate_ids = set(ItemAggregate.objects.filter(hit__campaign=campaign).values_list("pk", flat=True))
    compute_quality(campaign)
    assert {s.worker_id: s.pk for s in WorkerScore.objects.filter(campaign=campaign)} == ids
    assert set(ItemAggregate.objects.filter(hit__campaign=campaign).values_list("pk", flat=True)) == aggregate_ids
    # b's answer to HIT 2 is returned: HIT 2 has one answer left (no agreement, no longer compared)
    Assignment.objects.filter(hit=second, worker=b).update(status=AssignmentStatus.RETURNED)
    Assignment.objects.filter(hit=first, worker=c).update(answer={"text": "cat"})
    compute_quality(campaign)
    got = scores(campaign)
    assert (got["a"].items, got["a"].compared_items, got["a"].agreement) == (2, 1, 1.0)
    assert (got["b"].items, got["c"].agreement) == (1, 1.0)
    assert Assignment.objects.get(hit=second, worker=a).agreement is None
    assert ItemAggregate.objects.get(hit=second).agreement is None
    assert ItemAggregate.objects.get(hit=first).agreement == 1.0


@measured
def test_a_worker_without_answers_any_more_loses_the_score(crowd):
    campaign, _, (_, _, c, _) = crowd
    compute_quality(campaign)
    Assignment.objects.filter(worker=c).update(status=AssignmentStatus.RETURNED)
    compute_quality(campaign)
    assert sorted(scores(campaign)) == ["a", "b"]


def test_a_kind_without_a_measure_gets_gold_time_and_pay_only(crowd, monkeypatch):
    from mturk.measures import _QUALITY

    monkeypatch.delitem(_QUALITY._items, "describe_image", raising=False)
    campaign, _, _ = crowd
    result = compute_quality(campaign)
    assert result.measure == NO_MEASURE and result.aggregated == 0
    a = scores(campaign)["a"]
    assert (a.gold_accuracy, a.agreement, a.skill, a.median_seconds, a.pay) == (1.0, None, None, 60.0,
                                                                                 Decimal("0.45"))
    assert CampaignQuality.objects.get(campaign=campaign).measure == NO_MEASURE


@measured
def test_the_same_queries_whatever_the_campaign_size(crowd):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    campaign, (first, _, third), _ = crowd
    compute_quality(campaign)
    Assignment.objects.filter(hit=first, answer={"text": "dog"}).update(answer={"text": "cat"})
    with CaptureQueriesContext(connection) as small:
        compute_quality(campaign)
    for n in range(6):
        answer(third, worker(f"more-{n}"), f"text {n % 2}")
    with CaptureQueriesContext(connection) as larger:
        assert compute_quality(campaign).workers == 9
    assert len(larger) == len(small)  # both store changed agreements, aggregates, scores
