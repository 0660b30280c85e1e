"""Attention checks of rate_output and compare_outputs (known answers, scores, gold items of another evaluation)
and the agreement measures and aggregates of their answers."""
from __future__ import annotations

import pytest

from evaluation.models import EvaluatedSystem
from mturk.measures import Answer, Unit, get_quality
from mturk.models import Assignment
from mturk.services.campaigns import CampaignError
from mturk.services.gold import GoldError, create_gold_item
from tests.worker_flow import start_task, submit

from .kinds_data import campaign, evaluation, item_id, options_of, outputs

pytestmark = pytest.mark.django_db

RATE, COMPARE = get_quality("rate_output"), get_quality("compare_outputs")
ITEMS = {"item": 1, "outputs": [11, 12, 13]}


@pytest.mark.parametrize("gold, message", [
    ({"low": [12]}, 'expected {"low": [<output id>, ...], "high": [<output id>, ...]}'),
    ({"low": [], "high": [11]}, "low: expected a list of at least one output id, got []"),
    ({"low": [99], "high": [11]}, "low: output 99 is not one of the HIT's outputs [11, 12, 13]"),
    ({"low": [12], "high": [12]}, "output 12 is both low and high"),
])
def test_rating_known_answers_are_checked(gold, message):
    with pytest.raises(ValueError) as caught:
        RATE.clean_gold(ITEMS, gold)
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize("ratings, score", [
    ([3, 1, 2], 1.0),  # high 11 above low 12
    ([2, 2, 4], 0.0),  # equal: not strictly higher
    ([1, 4, 4], 0.0),
])
def test_rating_score_is_the_share_of_high_low_couples_in_order(ratings, score):
    gold = RATE.clean_gold(ITEMS, {"low": [12], "high": [11]})
    options = {"aspects": ["describes", "correct"]}
    answer = {"ratings": [{"describes": r, "correct": 5 - r} for r in ratings]}
    assert RATE.score_gold(options, ITEMS, gold, answer) == score


def test_rating_score_with_two_low_outputs_counts_each_couple():
    gold = RATE.clean_gold(ITEMS, {"low": [12, 13], "high": [11]})
    answer = {"ratings": [{"describes": 3}, {"describes": 1}, {"describes": 4}]}
    assert RATE.score_gold({"aspects": ["describes"]}, ITEMS, gold, answer) == 0.5


def test_pairwise_score_reads_the_first_aspect():
    items = {"item": 1, "outputs": [21, 22]}
    gold = COMPARE.clean_gold(items, {"better": 22})
    options = {"aspects": ["correct", "detailed"]}
    assert COMPARE.score_gold(options, items, gold, {"preferences": {"correct": 1, "detailed": 0}}) == 1.0
    assert COMPARE.score_gold(options, items, gold, {"preferences": {"correct": 0, "detailed": 1}}) == 0.0
    assert COMPARE.score_gold(options, items, gold, {"preferences": {"correct": "tie", "detailed": 1}}) == 0.0
    with pytest.raises(ValueError, match="better: output 23 is not one of the HIT's outputs"):
        COMPARE.clean_gold(items, {"better": 23})


def test_an_attention_check_is_scored_when_answered_and_flagged_below_the_pass_mark(client):
    ev = evaluation(items=1)
    reference = outputs(ev, 0, EvaluatedSystem.Role.REFERENCE)[0]
    corrupted = outputs(ev, 0, EvaluatedSystem.Role.ATTENTION)[0]
    system = outputs(ev, 0, EvaluatedSystem.Role.SYSTEM)[0]
    items = {"item": item_id(ev, 0), "outputs": [corrupted, system, reference]}
    create_gold_item(task_kind="rate_output", items=items, answer={"low": [corrupted], "high": [reference]},
                     options=options_of(ev))
    made = campaign(ev, "rate_output", [{"item": item_id(ev, 0), "outputs": outputs(ev, 0)}], gold_rate=0.5,
                    assignments=1)
    gold_hit = made.hits.get(gold_item__isnull=False)
    real_hit = made.hits.get(gold_item__isnull=True)
    answers = {real_hit.pk: [3, 3, 3], gold_hit.pk: [4, 2, 1]}  # the gold HIT: corrupted rated above reference
    for _ in range(2):
        token = start_task(client, made)
        hit = Assignment.objects.order_by("-pk").first().hit
        response = submit(client, {"token": token, "answer": {"ratings": [{"describes": r} for r in answers[hit.pk]]}})
        assert response.status_code == 201, response.json()
    assert Assignment.objects.get(hit=gold_hit).check_flags == ["gold_failed"]
    assert Assignment.objects.get(hit=real_hit).check_flags == []


def test_a_campaign_takes_only_its_own_evaluations_attention_checks():
    ev, other = evaluation(items=1), evaluation(items=1, name="other")
    shown = outputs(other, 0)
    theirs = create_gold_item(task_kind="compare_outputs", items={"item": item_id(other, 0), "outputs": shown[:2]},
                              answer={"better": shown[0]}, options=options_of(other))
    assert theirs.scope == f"human_evaluation:{other.pk}"
    pair = {"item": item_id(ev, 0), "outputs": outputs(ev, 0)[:2]}
    with pytest.raises(CampaignError, match="needs active gold items of compare_outputs; there are none"):
        campaign(ev, "compare_outputs", [pair], gold_rate=0.5)
    ours = create_gold_item(task_kind="compare_outputs", items=pair, answer={"better": pair["outputs"][0]},
                            options=options_of(ev))
    made = campaign(ev, "compare_outputs", [pair], gold_rate=0.5)
    assert set(made.hits.exclude(gold_item=None).values_list("gold_item", flat=True)) == {ours.pk}
    # an item of another evaluation cannot be made gold in this evaluation's scope
    with pytest.raises(GoldError, match=f"its outputs belong to evaluation {other.pk}, not to this campaign's "
                                        f"evaluation {ev.pk}"):
        create_gold_item(task_kind="compare_outputs", items={"item": item_id(other, 0), "outputs": shown[:2]},
                         answer={"better": shown[0]}, options=options_of(ev))
    with pytest.raises(GoldError, match="options: evaluation: expected the id of a human evaluation, got None"):
        create_gold_item(task_kind="compare_outputs", items={"item": item_id(other, 0), "outputs": shown[:2]},
                         answer={"better": shown[0]})


def unit(hit: int, outputs: list[int], *answers: list | dict, first_assignment: int = 1) -> Unit:
    return Unit(hit=hit, items={"item": 1, "outputs": outputs},
                answers=[Answer(assignment=first_assignment + n, worker=100 + n, answer=answer)
                         for n, answer in enumerate(answers)])


def ratings(*values: int) -> dict:
    return {"ratings": [{"describes": v} for v in values]}


def test_rating_measure_gives_alpha_agreement_and_mean_ratings():
    units = [unit(1, [11, 12], ratings(4, 1), ratings(4, 1), ratings(4, 1), ratings(1, 4)),
             unit(2, [13, 14], ratings(3, 2), ratings(3, 2), first_assignment=10)]
    measured = RATE.measure({"aspects": ["describes"]}, units)
    assert measured.overall["krippendorff_alpha"] == measured.overall["krippendorff_alpha_describes"]
    assert measured.overall["krippendorff_alpha"] is not None and measured.overall["krippendorff_alpha"] < 1
    assert measured.overall["rated_outputs"] == 4
    # the judge who reversed the others agrees least; the two who agree agree more
    assert measured.answer_agreement[4] < measured.answer_agreement[1] == measured.answer_agreement[3]
    assert measured.answer_agreement[10] == measured.answer_agreement[11] == 1.0
    assert measured.item_agreement[2] == 1.0 and measured.item_agreement[1] < 1.0
    assert measured.aggregates[1].answer == {"ratings": [{"describes": 3}, {"describes": 2}]}
    assert measured.aggregates[1].details["means"] == [{"describes": 3.25}, {"describes": 1.75}]
    same = RATE.measure({"aspects": ["describes"]}, [
        unit(1, [11, 12], ratings(4, 1), ratings(4, 1)),
        unit(2, [13, 14], ratings(2, 3), ratings(2, 3), first_assignment=5)])
    assert same.overall["krippendorff_alpha"] == 1.0


def prefer(**choices) -> dict:
    return {"preferences": choices}


def test_pairwise_measure_is_the_share_agreeing_with_the_majority():
    units = [unit(1, [11, 12], prefer(correct=0, detailed=1), prefer(correct=0, detailed="tie"),
                  prefer(correct=1, detailed=1)),
             unit(2, [13, 14], prefer(correct="tie", detailed=0), prefer(correct=1, detailed=0), first_assignment=10)]
    measured = COMPARE.measure({"aspects": ["correct", "detailed"]}, units)
    assert measured.item_agreement[1] == pytest.approx((2 / 3 + 2 / 3) / 2)
    assert measured.answer_agreement == {1: 1.0, 2: 0.5, 3: 0.5, 10: 1.0, 11: 1.0}  # a split vote: both agree
    assert measured.aggregates[1].answer == {"preferences": {"correct": 0, "detailed": 1}}
    assert measured.aggregates[2].answer == {"preferences": {"correct": "tie", "detailed": 0}}  # split: a tie
    assert measured.item_agreement[2] == pytest.approx((1 / 2 + 1) / 2)
    assert measured.overall["compared_hits"] == 2
    alpha = measured.overall["krippendorff_alpha"]
    assert alpha is not None and -1 <= alpha < 1
