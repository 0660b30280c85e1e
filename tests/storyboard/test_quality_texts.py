"""Quality of the story kinds: the word rule over the whole story and tell_story's not-storyable gold, agreement on
the whole story (skips agreeing with skips), describe_sequence photo by photo with a medoid per photo, and on a
small tell_story campaign a story copied from another album scoring lowest."""
from __future__ import annotations

import json

import pytest

from mturk.measures import Answer, Unit, get_quality
from mturk.models import Assignment, ItemAggregate
from mturk.quality.services.computation import compute_quality
from mturk.services.campaigns import create_campaign, publish_campaign
from mturk.task_kinds import get_task_kind
from mturk.work.services.assignments import assign_next_hit, new_local_worker, submit_answer
from storyboard.quality import story_text
from storyboard.services.workflow import create_story_workflow
from storyboard.simulation import run_story_workflow
from tests.factories import make_album

B2 = 1.2 ** 2
RULE = {"required_words": ["lake", "fish"], "forbidden_words": ["party"], "min_words": 20}
LAKE = ["We arrived early at the lake.", "The boat was waiting for us.", "Grandpa caught a huge fish.",
        "We cooked it on the fire.", "Everyone slept well that night."]


def tell_answer(texts):
    return {"cards": [{"photo": 100 + i, "text": t} for i, t in enumerate(texts)]}


SKIP = {"skip": True, "reason": "Only pictures of receipts."}


def test_the_story_text_is_the_cards_or_texts_joined_and_a_skip_has_none():
    assert story_text(tell_answer(["One.", "Two."])) == "One. Two."
    assert story_text({"sequence": 4, "texts": ["One.", "Two."]}) == "One. Two."
    assert story_text(SKIP) is None


@pytest.mark.parametrize("kind", ["tell_story", "retell_story", "describe_sequence"])
def test_the_word_rule_scores_the_whole_story(kind):
    quality = get_quality(kind)
    answer = tell_answer(LAKE) if kind == "tell_story" else {"sequence": 1, "texts": LAKE}
    # 4 conditions: lake, fish, no "party", at least 20 words (the story has 27): all met
    assert quality.score_gold({}, {}, quality.clean_gold({}, RULE), answer) == 1.0
    short = tell_answer(LAKE[:2]) if kind == "tell_story" else {"sequence": 1, "texts": LAKE[:2]}
    # lake, no party; no fish, 12 words
    assert quality.score_gold({}, {}, RULE, short) == pytest.approx(2 / 4)
    with pytest.raises(ValueError, match="unknown rule key"):
        quality.clean_gold({}, {"sequence": 3})
    with pytest.raises(ValueError, match="gold by writing its rule"):
        quality.gold_from_answer({}, answer)


def test_tell_story_gold_may_say_the_album_is_not_storyable():
    quality = get_quality("tell_story")
    assert quality.clean_gold({"album": 1}, {"skip": True}) == {"skip": True}
    for bad in ({"skip": False}, {"skip": True, "min_words": 3}, {"skip": "yes"}):
        with pytest.raises(ValueError, match="exactly"):
            quality.clean_gold({"album": 1}, bad)
    assert quality.score_gold({}, {}, {"skip": True}, SKIP) == 1.0
    assert quality.score_gold({}, {}, {"skip": True}, tell_answer(LAKE)) == 0.0
    assert quality.score_gold({}, {}, RULE, SKIP) == 0.0  # a storyable gold album skipped
    # an approved skip makes a not-storyable gold album; an approved story needs a written rule
    assert quality.gold_from_answer({"album": 1}, SKIP) == {"skip": True}
    with pytest.raises(ValueError, match="Mark a story gold"):
        quality.gold_from_answer({"album": 1}, tell_answer(LAKE))


def unit(hit, answers):
    return Unit(hit=hit, items={}, answers=[Answer(assignment=hit * 10 + i, worker=i, answer=a)
                                            for i, a in enumerate(answers)])


def test_skips_agree_with_skips_and_the_medoid_may_be_a_skip():
    measurement = get_quality("tell_story").measure({}, [unit(1, [SKIP, tell_answer(LAKE), SKIP]),
                                                         unit(2, [tell_answer(LAKE)])])
    assert measurement.answer_agreement == {10: 0.5, 11: 0.0, 12: 0.5}
    assert measurement.item_agreement == {1: pytest.approx(1 / 3), 2: None}
    assert measurement.aggregates[1].answer == SKIP and measurement.aggregates[1].support == 3
    assert measurement.aggregates[1].details["medoid_assignment"] == 10
    assert 2 not in measurement.aggregates  # one answer: nothing to aggregate
    assert measurement.overall == {"mean_item_agreement": pytest.approx(1 / 3)}


def test_retell_story_compares_the_whole_story_by_hand():
    answers = [{"sequence": 1, "texts": ["A dog runs.", "It is happy."]},
               {"sequence": 2, "texts": ["A brown dog runs on grass.", "It is happy."]}]
    measurement = get_quality("retell_story").measure({}, [unit(1, answers)])
    # content words "dog run happy" and "brown dog run grass happy"; LCS = 3
    assert measurement.answer_agreement[10] == pytest.approx(2.44 * 3 / (3 + B2 * 5))
    assert measurement.answer_agreement[11] == pytest.approx(2.44 * 3 / (5 + B2 * 3))
    assert measurement.aggregates[1].answer == answers[1]  # the longer story scores higher (recall weighs more)


def test_describe_sequence_is_compared_photo_by_photo_with_a_medoid_per_photo():
    answers = [{"texts": ["A dog runs.", "a cat sleeps"]},
               {"texts": ["A brown dog runs on grass.", "A cat sleeps."]},
               {"texts": ["a brown dog on grass", "a dog barks"]}]
    measurement = get_quality("describe_sequence").measure({}, [unit(1, answers)])
    # photo 1 by hand (tests/metrics/test_text_agreement.py): 0.5074711, 0.7945551, 0.6252912
    # photo 2: "cat sleep" twice (F = 1), "dog bark" (F = 0)
    assert [measurement.answer_agreement[pk] for pk in (10, 11, 12)] == pytest.approx(
        [(0.5074711 + 1 / 2) / 2, (0.7945551 + 1 / 2) / 2, 0.6252912 / 2])
    aggregate = measurement.aggregates[1]
    assert aggregate.answer == {"texts": ["A brown dog runs on grass.", "a cat sleeps"]}
    assert aggregate.details["source_assignments"] == [11, 10]
    assert aggregate.method == "medoid by ROUGE-L, photo by photo"
    assert "photo by photo" in measurement.measure


STORIES = {
    0: [LAKE,
        ["We drove to the lake in the morning.", "Our boat was ready at the dock.", "Grandpa caught a big fish.",
         "We cooked the fish on a fire.", "Everyone was tired that night."],
        ["The family went to the lake.", "They took the boat out.", "Grandpa caught a fish.",
         "They cooked it over the fire.", "Then everyone went to sleep."]],
    1: [["Today is my sister's birthday.", "Friends came to the party.", "Mom baked a chocolate cake.",
         "She blew out the candles.", "We opened presents together."],
        ["It was my sister's birthday party.", "All her friends came over.", "Mom made a big chocolate cake.",
         "My sister blew out the candles.", "Then she opened her presents."]],
}


@pytest.mark.django_db
def test_a_story_copied_from_another_album_gets_the_lowest_agreement():
    albums = [make_album(6), make_album(6)]
    campaign = create_campaign(name="tell", task_kind="tell_story", assignments_per_hit=3,
                               items=[{"album": album.pk} for album in albums])
    publish_campaign(campaign)
    campaign.refresh_from_db()
    hits = list(campaign.hits.order_by("position"))
    photos = {hit.pk: list(albums[i].photos.order_by("datetaken").values_list("pk", flat=True)[:5])
              for i, hit in enumerate(hits)}
    done: dict[int, int] = {hit.pk: 0 for hit in hits}
    for _ in range(6):
        worker = new_local_worker()
        assignment = assign_next_hit(campaign, worker)
        index = [hit.pk for hit in hits].index(assignment.hit_id)
        texts = LAKE if index == 1 and done[assignment.hit_id] == 2 else STORIES[index][done[assignment.hit_id]]
        done[assignment.hit_id] += 1
        answer = {"cards": [{"photo": p, "text": t} for p, t in zip(photos[assignment.hit_id], texts, strict=True)]}
        submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id, answer=answer)
    copied = Assignment.objects.get(hit=hits[1], answer__cards__0__text=LAKE[0])
    units = [Unit(hit=hit.pk, items=hit.items,
                  answers=[Answer(a.pk, a.worker_id, a.answer) for a in hit.assignments.order_by("pk")])
             for hit in hits]
    measurement = get_quality("tell_story").measure(campaign.options, units)
    lowest = min(measurement.answer_agreement, key=measurement.answer_agreement.__getitem__)
    assert lowest == copied.pk and measurement.answer_agreement[copied.pk] < 0.15
    assert measurement.aggregates[hits[1].pk].details["medoid_assignment"] != copied.pk
    # stored by the campaign's quality computation
    compute_quality(campaign)
    copied.refresh_from_db()
    assert copied.agreement == pytest.approx(measurement.answer_agreement[copied.pk])
    aggregate = ItemAggregate.objects.get(hit=hits[0])
    assert json.dumps(aggregate.answer) == json.dumps(measurement.aggregates[hits[0].pk].answer)
    assert aggregate.method == "medoid by ROUGE-L" and aggregate.support == 3


@pytest.mark.django_db
def test_every_stage_of_a_simulated_story_workflow_is_measured_and_aggregated_in_its_answer_shape():
    campaigns = create_story_workflow("Quality", [make_album(6)], publish=True,
                                      is_simulated=True)
    run_story_workflow(campaigns, seed=5)
    for stage, kind in (("tell", "tell_story"), ("retell", "retell_story"), ("dii", "describe_image"),
                        ("dis", "describe_sequence")):
        campaign = campaigns[stage]
        computed = compute_quality(campaign)
        assert computed.aggregated > 0, stage
        task_kind = get_task_kind(kind)
        for aggregate in ItemAggregate.objects.filter(hit__campaign=campaign):
            assert aggregate.support >= 2
            assert task_kind.summary(aggregate.answer), stage  # readable as the kind's answer
            assert 0.0 <= aggregate.agreement <= 1.0
        agreements = list(Assignment.objects.filter(hit__campaign=campaign).values_list("agreement", flat=True))
        assert agreements and all(value is not None and 0.0 <= value <= 1.0 for value in agreements), stage
