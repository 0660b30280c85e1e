"""rate_story quality: gold ratings with a tolerance, and on hand-made campaigns Krippendorff's alpha (ordinal),
each rating's agreement (a constant rater low), and the mean rating per story; stored by compute_quality."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mturk.measures import Answer, Unit, get_quality
from mturk.models import Assignment, CampaignQuality, ItemAggregate
from mturk.quality.services.computation import compute_quality
from mturk.services.campaigns import create_campaign, publish_campaign
from mturk.work.services.assignments import assign_next_hit, new_local_worker, submit_answer
from storyboard.models import Setting, Story
from storyboard.quality_ratings import METHOD, RateStoryQuality, round_half_up
from tests.factories import make_album

QUALITY = get_quality("rate_story")


def test_the_kind_is_registered_when_django_starts():
    """In a fresh interpreter (this module imports storyboard.quality_ratings itself): the app registry's loading
    registers it."""
    assert isinstance(QUALITY, RateStoryQuality)
    code = ("import django; django.setup(); from mturk.measures import get_quality; "
            "print(type(get_quality('rate_story')).__name__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"})
    assert done.stdout.strip() == "RateStoryQuality", done.stderr[-2000:]


@pytest.mark.parametrize("gold, rating, score", [
    ({"rating": 4}, 4, 1.0), ({"rating": 4}, 5, 1.0), ({"rating": 4}, 3, 1.0), ({"rating": 4}, 2, 0.0),
    ({"rating": 4, "tolerance": 0}, 5, 0.0), ({"rating": 4, "tolerance": 0}, 4, 1.0),
    ({"rating": 1, "tolerance": 2}, 3, 1.0), ({"rating": 1, "tolerance": 2}, 4, 0.0),
    ({"rating": 5, "tolerance": 4}, 1, 1.0),
])
def test_gold_rating_within_the_tolerance_scores_1(gold, rating, score):
    cleaned = QUALITY.clean_gold({"story": 1}, gold)
    assert cleaned["tolerance"] == gold.get("tolerance", 1)
    assert QUALITY.score_gold({}, {"story": 1}, cleaned, {"rating": rating}) == score


@pytest.mark.parametrize("gold, message", [
    (4, "expected {\"rating\": 1-5"),
    ({"tolerance": 1}, "expected {\"rating\": 1-5"),
    ({"rating": 6}, "rating must be a whole number from 1 to 5, got 6"),
    ({"rating": True}, "rating must be a whole number from 1 to 5"),
    ({"rating": 3.0}, "rating must be a whole number from 1 to 5"),
    ({"rating": 3, "tolerance": 5}, "tolerance must be a whole number from 0 to 4, got 5"),
    ({"rating": 3, "tolerance": -1}, "tolerance must be a whole number from 0 to 4"),
    ({"rating": 3, "aspects": {}}, "unknown key(s) aspects"),
])
def test_a_bad_known_rating_is_refused_saying_why(gold, message):
    with pytest.raises(ValueError) as error:
        QUALITY.clean_gold({"story": 1}, gold)
    assert message in str(error.value)


def test_an_approved_answer_becomes_gold_with_the_default_tolerance():
    answer = {"rating": 2, "aspects": {"focused": 3}}
    assert QUALITY.gold_from_answer({"story": 1}, answer) == {"rating": 2, "tolerance": 1}


def test_rounding_is_half_up():
    assert [round_half_up(x) for x in (1.5, 2.5, 4.333, 4.5, 1.0)] == [2, 3, 4, 5, 1]


def units(ratings: dict[int, list[int]]) -> list[Unit]:
    """One HIT per story (HIT id = story id * 10); worker n gives the n-th rating; assignment = HIT + n."""
    return [Unit(story * 10, {"story": story},
                 [Answer(story * 10 + n, n, {"rating": r}) for n, r in enumerate(given, start=1)])
            for story, given in ratings.items()]


def test_a_constant_rater_agrees_little_and_alpha_is_ordinal_by_hand():
    """Two raters tell stories apart (1, 1 then 5, 5); a third says 3 to everything. Values n1 = n3 = n5 = 4,
    n = 12. Ordinal distances: d(1,3) = (8 - 4)^2 = 16 = d(3,5), d(1,5) = (12 - 4)^2 = 64. Each story has the
    coincidences o_ab = o_ba = 1 between its pair value and the 3: Do = 8 * 16 / 12; De = 2 * (16*16 + 16*16 +
    16*64) / (12 * 11); alpha = 1 - (128/12) / (3072/132) = 13/24. Agreement: see metrics/test_rating_agreement."""
    measurement = QUALITY.measure({"aspects": False}, units({1: [1, 1, 3], 2: [5, 5, 3], 3: [1, 1, 3], 4: [5, 5, 3]}))
    assert measurement.overall["krippendorff_alpha"] == pytest.approx(13 / 24)
    assert measurement.overall["rated_stories"] == 4 and measurement.overall["mean_rating"] == 3.0
    assert measurement.answer_agreement[11] == 0.484375 and measurement.answer_agreement[13] == 0.0
    assert measurement.item_agreement[10] == pytest.approx((0.484375 * 2) / 3)
    first, second = measurement.aggregates[10], measurement.aggregates[20]
    assert first.answer == {"rating": 2} and first.details["mean"] == pytest.approx(5 / 3, abs=1e-6)  # 1, 1, 3
    assert second.answer == {"rating": 4} and second.details["mean"] == pytest.approx(13 / 3, abs=1e-6)
    assert first.method == METHOD and first.support == 3
    assert first.details["krippendorff_alpha"] == pytest.approx(13 / 24) and first.details["ratings"] == 3


def test_a_story_rated_in_two_hits_is_one_unit_and_aspects_are_averaged():
    aspects = [{"focused": 4, "detail": 2}, {"focused": 5, "detail": 2}, {"focused": 5, "detail": 1}]
    hits = [Unit(1, {"story": 7}, [Answer(1, 1, {"rating": 4, "aspects": aspects[0]}),
                                   Answer(2, 2, {"rating": 5, "aspects": aspects[1]})]),
            Unit(2, {"story": 7}, [Answer(3, 3, {"rating": 5, "aspects": aspects[2]})]),
            Unit(3, {"story": 8}, [Answer(4, 1, {"rating": 2, "aspects": aspects[0]})])]
    measurement = QUALITY.measure({"aspects": True}, hits)
    story = measurement.aggregates[1]
    assert story == measurement.aggregates[2]
    assert story.answer == {"rating": 5, "aspects": {"focused": 5, "detail": 2}}  # means 14/3, 14/3 and 5/3
    assert story.details["aspect_means"] == {"focused": pytest.approx(14 / 3, abs=1e-6),
                                             "detail": pytest.approx(5 / 3, abs=1e-6)}
    assert story.support == 3
    assert measurement.item_agreement[3] is None and 4 not in measurement.answer_agreement  # rated once
    assert set(measurement.answer_agreement) == {1, 2, 3}
    assert "krippendorff_alpha_focused" in measurement.overall
    assert "krippendorff_alpha_coherent" not in measurement.overall


def test_nothing_to_compare():
    measurement = QUALITY.measure({}, units({1: [4]}))
    assert measurement.overall["krippendorff_alpha"] is None
    assert measurement.answer_agreement == {} and measurement.item_agreement == {10: None}
    assert measurement.aggregates[10].answer == {"rating": 4}
    assert QUALITY.measure({}, []).overall["mean_rating"] is None


@pytest.mark.django_db
def test_compute_quality_stores_means_agreement_and_alpha():
    album = make_album(5)
    stories = [Story.objects.create(album=album, setting=Setting.TELL).pk for _ in range(2)]
    campaign = create_campaign(name="rated", task_kind="rate_story", assignments_per_hit=3,
                               items=[{"story": story} for story in stories])
    publish_campaign(campaign)
    campaign.refresh_from_db()
    given = {stories[0]: [1, 1, 3], stories[1]: [5, 5, 3]}
    for number in range(3):
        worker = new_local_worker()
        for _ in stories:
            assignment = assign_next_hit(campaign, worker)
            rating = given[assignment.hit.items["story"]][number]
            submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                          answer={"rating": rating})
    compute_quality(campaign)
    means = dict(ItemAggregate.objects.values_list("hit__items__story", "answer__rating"))
    assert means == {stories[0]: 2, stories[1]: 4}
    # chance distance: 2 * (2*2*2 + 2*2*2 + 2*2*4) / (6 * 5) = 64/30; the constant rater is 2 from both others:
    # 1 - 2 * 30/64 = 1/16; the others are 0 and 2 from theirs: 1 - 1 * 30/64 = 34/64
    agreement = Assignment.objects.filter(hit__campaign=campaign).values_list("answer__rating", "agreement")
    assert sorted(agreement) == [(1, 34 / 64)] * 2 + [(3, 1 / 16)] * 2 + [(5, 34 / 64)] * 2
    # values 1 x2, 3 x2, 5 x2: ordinal d(1,3) = (4-2)^2 = 4 = d(3,5), d(1,5) = (6-2)^2 = 16; Do = 4 * 4 / 6;
    # De = 2 * (2*2*4 + 2*2*4 + 2*2*16) / 30 = 32/5; alpha = 1 - (8/3) / (32/5) = 7/12
    assert CampaignQuality.objects.get(campaign=campaign).overall["krippendorff_alpha"] == pytest.approx(7 / 12)
