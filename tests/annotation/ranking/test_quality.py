"""judge_caption quality: gold scoring (gold HITs and inline gold pairs), the known answer's checks, and on hand-made
campaigns the Dawid-Skene label per pair, answer and item agreement, worker skill and Krippendorff's alpha."""
from __future__ import annotations

import pytest

from annotation.models import Description
from metrics.rating_agreement import unit_alpha
from mturk.measures import Answer, Unit, get_quality
from mturk.models import Assignment, CampaignQuality, ItemAggregate, WorkerScore
from mturk.quality.services.computation import compute_quality
from mturk.services.campaigns import create_campaign, publish_campaign
from mturk.services.gold import GoldError, create_gold_item
from mturk.work.services.assignments import assign_next_hit, new_local_worker, submit_answer
from tests.factories import make_image

QUALITY = get_quality("judge_caption")
YES, NO = {"relevant": True}, {"relevant": False}


def items(*pairs) -> dict:
    """Pairs as (image, description) or (image, description, gold)."""
    return {"pairs": [{"image": p[0], "description": p[1], **({"gold": p[2]} if len(p) > 2 else {})}
                      for p in pairs]}


# --- gold --------------------------------------------------------------------------------------------


def test_gold_of_yes_no_is_the_share_of_known_pairs_answered_exactly():
    three = items((1, 10), (2, 20), (3, 30))
    gold = QUALITY.clean_gold(three, {"judgements": [YES, NO, None]})  # the third pair's answer is not known
    assert gold == {"judgements": [YES, NO, None]}
    assert QUALITY.score_gold({}, three, gold, {"judgements": [YES, NO, NO]}) == 1.0
    assert QUALITY.score_gold({}, three, gold, {"judgements": [YES, YES, YES]}) == 0.5
    assert QUALITY.score_gold({}, three, gold, {"judgements": [NO, YES, YES]}) == 0.0


def test_gold_of_grades_allows_one_grade_on_the_same_side():
    three = items((1, 10), (2, 20), (3, 30))
    gold = QUALITY.clean_gold(three, {"judgements": [{"grade": 4}, {"grade": 2}, {"grade": 1}]})
    # 4 vs 3: one apart, both "describes"; 2 vs 3: one apart but across 2/3; 1 vs 2: one apart, both "not"
    answer = {"judgements": [{"grade": 3}, {"grade": 3}, {"grade": 2}]}
    assert QUALITY.score_gold({"graded": True}, three, gold, answer) == pytest.approx(2 / 3)
    # a grade against a yes/no known answer counts by its side
    assert QUALITY.score_gold({}, items((1, 10)), {"judgements": [YES]}, {"judgements": [{"grade": 3}]}) == 1.0


def test_inline_gold_is_the_share_of_gold_pairs_answered_right():
    hit = items((1, 10), (2, 20, YES), (3, 30, NO), (4, 40, {"grade": 4}))
    assert QUALITY.score_inline_gold({}, hit, {"judgements": [NO, YES, NO, YES]}) == 1.0
    assert QUALITY.score_inline_gold({}, hit, {"judgements": [NO, YES, YES, YES]}) == pytest.approx(2 / 3)
    assert QUALITY.score_inline_gold({}, hit, {"judgements": [YES, NO, YES, NO]}) == 0.0
    assert QUALITY.score_inline_gold({}, hit, {"judgements": [YES]}) == pytest.approx(0.0)  # unanswered pairs fail
    assert QUALITY.score_inline_gold({}, items((1, 10), (2, 20)), {"judgements": [YES, YES]}) is None


@pytest.mark.parametrize("gold, message", [
    ([YES, NO], "expected {\"judgements\": [...]} with one judgement per pair (2)"),
    ({"judgements": [YES]}, "expected 2 judgements (one per pair), got 1"),
    ({"judgements": [YES, {"relevant": "yes"}]}, "judgement 2: expected"),
    ({"judgements": [{"grade": 5}, NO]}, "judgement 1: expected"),
    ({"judgements": [{"grade": True}, NO]}, "judgement 1: expected"),
    ({"judgements": [None, None]}, "no pair has a known answer"),
    ({"judgements": [YES, NO], "note": "x"}, "expected {\"judgements\""),
])
def test_a_bad_known_answer_is_refused_saying_why(gold, message):
    with pytest.raises(ValueError) as error:
        QUALITY.clean_gold(items((1, 10), (2, 20)), gold)
    assert message in str(error.value)


def test_an_answer_becomes_gold_as_it_is():
    assert QUALITY.gold_from_answer(items((1, 10)), {"judgements": [{"grade": 2}]}) == {"judgements": [{"grade": 2}]}


@pytest.mark.django_db
def test_a_gold_item_is_stored_through_the_gold_service_and_refused_when_bad():
    image = make_image("g.png")
    caption = Description.objects.create(image=image, text="A dog.")
    hit_items = items((image.pk, caption.pk))
    gold = create_gold_item(task_kind="judge_caption", items=hit_items, answer={"judgements": [NO]})
    assert gold.answer == {"judgements": [NO]}
    with pytest.raises(GoldError, match="expected 1 judgements"):
        create_gold_item(task_kind="judge_caption", items=hit_items, answer={"judgements": [NO, NO]})


# --- measure -----------------------------------------------------------------------------------------


def crowd_units() -> list[Unit]:
    """HIT 100 shows pairs P1, a gold pair, P2; HIT 101 shows P3. Workers 1 and 2 answer right (yes, -, no; yes),
    worker 3 always the opposite."""
    return [
        Unit(100, items((1, 10), (9, 90, YES), (2, 20)), [
            Answer(1, 1, {"judgements": [YES, YES, NO]}), Answer(2, 2, {"judgements": [YES, YES, NO]}),
            Answer(3, 3, {"judgements": [NO, NO, YES]})]),
        Unit(101, items((3, 30)), [
            Answer(4, 1, {"judgements": [YES]}), Answer(5, 2, {"judgements": [YES]}),
            Answer(6, 3, {"judgements": [NO]})]),
    ]


def test_yes_no_campaign_by_hand():
    measurement = QUALITY.measure({"graded": False}, crowd_units())
    assert measurement.measure.startswith("agreement with each pair's Dawid-Skene label")
    # the labels follow workers 1 and 2: every answer of theirs agrees, none of worker 3's
    assert measurement.answer_agreement == {1: 1.0, 2: 1.0, 3: 0.0, 4: 1.0, 5: 1.0, 6: 0.0}
    # per pair 2 of 3 answers agree; HIT 100 averages its two non-gold pairs
    assert measurement.item_agreement == {100: pytest.approx(2 / 3), 101: pytest.approx(2 / 3)}
    assert measurement.worker_skill[1] == pytest.approx(1.0, abs=1e-6)
    assert measurement.worker_skill[3] == pytest.approx(0.0, abs=1e-6)
    # nominal alpha over P1 (y y n), P2 (n n y), P3 (y y n): 5 yes, 4 no, n = 9; each pair has 4 ordered pairs of
    # different values, of weight 1/(3-1): coincidences o_yn + o_ny = 3 * 4 / 2 = 6, Do = 6/9;
    # De = 2 * 5 * 4 / (9 * 8) = 5/9; alpha = 1 - (6/9)/(5/9) = -0.2
    assert measurement.overall["krippendorff_alpha"] == pytest.approx(-0.2)
    assert measurement.overall["dawid_skene_mean_posterior"] == pytest.approx(1.0)
    assert measurement.overall["judged_pairs"] == 3
    first = measurement.aggregates[100]
    assert first.answer == {"judgements": [YES, YES, NO]}  # the gold pair keeps its known answer
    assert first.method == "Dawid-Skene (crowd-kit)" and first.support == 3
    assert first.details["gold_pairs"] == [1]
    assert first.details["votes"] == [{"no": 1, "yes": 2}, None, {"no": 2, "yes": 1}]
    assert first.details["posteriors"][0] == pytest.approx(1.0) and first.details["posteriors"][1] is None


def test_a_pair_shown_in_two_hits_is_one_unit():
    """P1 is in HIT 1 (workers 1, 2 say yes) and HIT 2 (worker 3 says no): one label, yes, from the three."""
    units = [Unit(1, items((1, 10)), [Answer(1, 1, {"judgements": [YES]}), Answer(2, 2, {"judgements": [YES]})]),
             Unit(2, items((1, 10)), [Answer(3, 3, {"judgements": [NO]})])]
    measurement = QUALITY.measure({}, units)
    assert measurement.aggregates[2].answer == {"judgements": [YES]}
    assert measurement.answer_agreement == {1: 1.0, 2: 1.0, 3: 0.0}
    assert measurement.item_agreement == {1: 1.0, 2: None}  # one answer in HIT 2
    assert measurement.overall["judged_pairs"] == 1


def test_graded_campaign_agreement_uses_the_gold_tolerance_and_alpha_is_ordinal():
    """Six pairs. Workers 1 and 2 give the true grades; worker 3 is one grade off on pairs 0 and 3 (on the same
    side: still agreeing by the gold rule); worker 4 reverses the scale (1 for 4, 2 for 3)."""
    truth = [4, 3, 2, 1, 4, 1]
    grades = {1: truth, 2: truth, 3: [3, 3, 2, 2, 4, 1], 4: [5 - g for g in truth]}
    units = [Unit(7, items(*[(n, 10 + n) for n in range(6)]), [
        Answer(w, w, {"judgements": [{"grade": g} for g in given]}) for w, given in grades.items()])]
    measurement = QUALITY.measure({"graded": True}, units)
    assert measurement.aggregates[7].answer == {"judgements": [{"grade": g} for g in truth]}
    assert measurement.aggregates[7].details["votes"][0] == {"4": 2, "3": 1, "1": 1}
    assert measurement.answer_agreement == {1: 1.0, 2: 1.0, 3: 1.0, 4: 0.0}
    assert measurement.item_agreement[7] == pytest.approx(3 / 4)
    per_pair = [[grades[w][n] for w in grades] for n in range(6)]
    ordinal = unit_alpha(per_pair, value_domain=(1, 2, 3, 4), level="ordinal")
    assert measurement.overall["krippendorff_alpha"] == pytest.approx(ordinal)
    assert ordinal != pytest.approx(unit_alpha(per_pair, value_domain=(1, 2, 3, 4), level="nominal"))
    assert min(measurement.worker_skill, key=measurement.worker_skill.get) == 4


def test_nothing_to_measure():
    only_gold = [Unit(1, items((1, 10, YES)), [Answer(1, 1, {"judgements": [YES]})])]
    measurement = QUALITY.measure({}, only_gold)
    assert (measurement.answer_agreement, measurement.item_agreement, measurement.aggregates) == ({}, {}, {})
    assert measurement.overall["krippendorff_alpha"] is None
    assert QUALITY.measure({}, []).overall["dawid_skene_mean_posterior"] is None


# --- stored by the crowd core ------------------------------------------------------------------------


@pytest.mark.django_db
def test_compute_quality_stores_the_pairs_labels_and_the_contrarian_is_lowest():
    pictures = [make_image(f"j{n}.png") for n in range(3)]
    captions = [Description.objects.create(image=p, text=f"Caption {n}.") for n, p in enumerate(pictures)]
    pairs = [{"image": p.pk, "description": c.pk} for p, c in zip(pictures, captions, strict=True)]
    pairs.insert(1, {"image": pictures[0].pk, "description": captions[1].pk, "gold": NO})
    campaign = create_campaign(name="judged", task_kind="judge_caption", assignments_per_hit=3,
                               items=[{"pairs": pairs}])
    publish_campaign(campaign)
    campaign.refresh_from_db()
    truth = [YES, NO, NO, YES]  # the gold pair (index 1) is "no"
    for contrarian in (False, False, True):
        worker = new_local_worker()
        assignment = assign_next_hit(campaign, worker)
        given = [{"relevant": not j["relevant"]} for j in truth] if contrarian else truth
        submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                      answer={"judgements": given})
    scores = dict(Assignment.objects.values_list("worker_id", "gold_score"))
    assert sorted(scores.values()) == [0.0, 1.0, 1.0]  # one inline gold pair each
    compute_quality(campaign)
    aggregate = ItemAggregate.objects.get(hit__campaign=campaign)
    assert aggregate.answer == {"judgements": truth} and aggregate.method == "Dawid-Skene (crowd-kit)"
    assert aggregate.agreement == pytest.approx(2 / 3)
    agreement = dict(Assignment.objects.values_list("worker_id", "agreement"))
    worst = min(agreement, key=agreement.get)
    assert agreement[worst] == 0.0 and scores[worst] == 0.0
    skills = dict(WorkerScore.objects.values_list("worker_id", "skill"))
    assert min(skills, key=skills.get) == worst
    assert CampaignQuality.objects.get(campaign=campaign).overall["judged_pairs"] == 3


def test_a_malformed_pair_is_set_aside_without_shifting_the_others():
    units = [Unit(1, {"pairs": ["junk", {"image": 1, "description": 10}]}, [
        Answer(1, 1, {"judgements": [YES, NO]}), Answer(2, 2, {"judgements": [YES, NO]})])]
    measurement = QUALITY.measure({}, units)
    assert measurement.aggregates[1].answer == {"judgements": [None, NO]}
    assert measurement.answer_agreement == {1: 1.0, 2: 1.0}
    assert QUALITY.score_inline_gold({}, units[0].items, {"judgements": [YES, NO]}) is None
