"""describe_image quality: the caption word rule (cleaning, refusals, scores by hand), and on a small campaign the
ROUGE-L agreement, the medoid caption and a caption copied from another image scoring lowest."""
from __future__ import annotations

import pytest

from annotation.quality.captions import clean_text_rule, folded_words, rule_word, score_text_rule
from mturk.measures import Answer, Unit, get_quality
from mturk.models import Assignment, ItemAggregate
from mturk.quality.services.computation import compute_quality
from mturk.services.gold import GoldError, create_gold_item, gold_from_assignment
from mturk.services.review import approve_submitted
from mturk.work.services.assignments import assign_next_hit, new_local_worker, submit_answer
from tests.factories import make_campaign, make_image

B2 = 1.2 ** 2


@pytest.mark.parametrize("word, folded", [
    ("dogs", "dog"), ("Dog", "dog"), ("men", "man"), ("children", "child"), ("buses", "bus"),
    ("dog's", "dog"), ("dog’s", "dog"), ("glasses", "glass"), ("is", "is"), ("bus", "bus"), ("his", "his"),
])
def test_plurals_and_case_are_folded(word, folded):
    assert rule_word(word) == folded


def test_hyphenated_words_count_whole_and_by_part():
    assert folded_words("Black-and-white dogs!") == {"black-and-white", "black", "and", "white", "dog"}


def test_a_rule_is_cleaned():
    assert clean_text_rule({"required_words": ["Dog", " beach ", "dog"], "forbidden_words": [], "min_words": 8}) == {
        "required_words": ["dog", "beach"], "min_words": 8}
    assert clean_text_rule({"forbidden_words": ["T-shirt"]}) == {"forbidden_words": ["t-shirt"]}


@pytest.mark.parametrize("gold, message", [
    ("dog", "must be a rule"),
    ({}, "the rule has no condition"),
    ({"required_words": []}, "the rule has no condition"),
    ({"required": ["dog"]}, "unknown rule key(s) required"),
    ({"required_words": "dog"}, "required_words must be a list of words"),
    ({"required_words": ["red dog"]}, "'red dog' is not a single word"),
    ({"forbidden_words": ["dog!"]}, "'dog!' is not a single word"),
    ({"forbidden_words": [3]}, "3 is not a single word"),
    ({"required_words": ["w"] * 51}, "at most 50 words"),
    ({"min_words": 0}, "min_words must be a whole number from 1 to 1000"),
    ({"min_words": True}, "min_words must be a whole number"),
    ({"min_words": "8"}, "min_words must be a whole number"),
    ({"required_words": ["dog"], "forbidden_words": ["Dogs"]}, "both required and forbidden: dog"),
])
def test_a_bad_rule_is_refused_saying_why(gold, message):
    with pytest.raises(ValueError) as error:
        clean_text_rule(gold)
    assert message in str(error.value)


RULE = {"required_words": ["dog", "beach"], "forbidden_words": ["cat"], "min_words": 8}


@pytest.mark.parametrize("text, score", [
    # 4 conditions: dog, beach, no cat, at least 8 words
    ("A woman walks her brown dogs.", 2 / 4),  # dog (plural folded) and no cat; beach missing; 6 words
    ("A woman walks her brown DOG along the Beach.", 4 / 4),
    ("A cat and a dog sleep on the beach together.", 3 / 4),  # a forbidden word
    ("Cats.", 0 / 4),
])
def test_rule_score_is_the_share_of_conditions_met(text, score):
    assert score_text_rule(RULE, text) == pytest.approx(score)
    assert get_quality("describe_image").score_gold({}, {"image": 1}, RULE, {"text": text}) == pytest.approx(score)


def test_only_the_conditions_given_count():
    assert score_text_rule({"forbidden_words": ["photo", "image"]}, "An image of a dog") == 0.0
    assert score_text_rule({"forbidden_words": ["photo", "image"]}, "A dog") == 1.0
    assert score_text_rule({"min_words": 3}, "A dog sleeps") == 1.0
    assert score_text_rule({"required_words": ["man", "child"]}, "Two men and their children") == 1.0


def test_a_caption_is_not_made_gold_from_an_answer():
    quality = get_quality("describe_image")
    assert quality.clean_gold({"image": 1}, {"required_words": ["dog"]}) == {"required_words": ["dog"]}
    with pytest.raises(ValueError, match="Mark a caption gold by writing its rule"):
        quality.gold_from_answer({"image": 1}, {"text": "A dog on a beach."})


CAPTIONS = {
    0: ["A woman walks her dog on the beach.", "A woman and her dog walk along the beach.",
        "A lady walking a brown dog on a sandy beach."],
    1: ["Two children play football in a park.", "Kids playing football in a green park.",
        "Two boys kick a football in the park."],
}
COPIED = CAPTIONS[0][0]  # a careless worker pastes the first image's caption on the second


def answer_campaign():
    """Two images, three captions each; on the second image the third worker copies a caption of the first."""
    campaign = make_campaign(images=2, assignments=3, options={"min_words": 5})
    hits = list(campaign.hits.order_by("position"))
    written: dict[int, list[str]] = {hit.pk: [] for hit in hits}
    for _ in range(6):
        worker = new_local_worker()
        assignment = assign_next_hit(campaign, worker)
        index = [h.pk for h in hits].index(assignment.hit_id)
        done = written[assignment.hit_id]
        text = COPIED if index == 1 and len(done) == 2 else CAPTIONS[index][len(done)]
        done.append(text)
        submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id, answer={"text": text})
    return campaign, hits


def units_of(hits) -> list[Unit]:
    return [Unit(hit=hit.pk, items=hit.items,
                 answers=[Answer(a.pk, a.worker_id, a.answer) for a in hit.assignments.order_by("pk")])
            for hit in hits]


@pytest.mark.django_db
def test_copied_caption_gets_the_lowest_agreement_and_the_medoid_is_a_real_caption():
    campaign, hits = answer_campaign()
    measurement = get_quality("describe_image").measure({"min_words": 8}, units_of(hits))
    copied = Assignment.objects.get(hit=hits[1], answer={"text": COPIED})
    lowest = min(measurement.answer_agreement, key=lambda pk: measurement.answer_agreement[pk])
    assert lowest == copied.pk
    assert measurement.answer_agreement[copied.pk] < 0.2
    # the copied caption shares no content word with the two captions of the second image
    assert measurement.answer_agreement[copied.pk] == 0.0
    assert measurement.measure.startswith("ROUGE-L")
    # the first image: "A woman walks her dog on the beach." agrees most (see the test below)
    first = measurement.aggregates[hits[0].pk]
    assert first.answer == {"text": CAPTIONS[0][0]}
    assert first.method == "medoid by ROUGE-L" and first.support == 3
    assert [row["agreement"] for row in first.details["scores"]] == [
        round(measurement.answer_agreement[a.pk], 4) for a in hits[0].assignments.order_by("pk")]
    # the second image: its two real captions tie ("football park" in common), the first is taken
    assert measurement.aggregates[hits[1].pk].answer == {"text": CAPTIONS[1][0]}
    assert measurement.item_agreement[hits[1].pk] < measurement.item_agreement[hits[0].pk]


@pytest.mark.django_db
def test_the_medoid_of_the_first_image_by_hand():
    campaign, hits = answer_campaign()
    agreement = get_quality("describe_image").measure({}, units_of(hits)).answer_agreement
    a, b, c = (x.pk for x in hits[0].assignments.order_by("pk"))
    # content words: a = "woman walk dog beach" (4), b = "woman dog walk along beach" (5),
    # c = "lady walking brown dog sandy beach" (6); LCS(a, b) = 3 ("woman dog beach"), LCS(a, c) = LCS(b, c) = 2
    f = lambda lcs, cand, ref: 2.44 * lcs / (cand + B2 * ref)  # noqa: E731
    assert agreement[a] == pytest.approx((f(3, 4, 5) + f(2, 4, 6)) / 2)
    assert agreement[b] == pytest.approx((f(3, 5, 4) + f(2, 5, 6)) / 2)
    assert agreement[c] == pytest.approx((f(2, 6, 4) + f(2, 6, 5)) / 2)
    assert (agreement[a], agreement[b], agreement[c]) == pytest.approx((0.519824, 0.519034, 0.392331), abs=1e-6)


@pytest.mark.django_db
def test_compute_quality_stores_the_agreement_and_the_medoid_caption():
    campaign, hits = answer_campaign()
    compute_quality(campaign)
    copied = Assignment.objects.get(hit=hits[1], answer={"text": COPIED})
    others = Assignment.objects.filter(hit__campaign=campaign).exclude(pk=copied.pk)
    assert all(copied.agreement < other.agreement for other in others)
    aggregate = ItemAggregate.objects.get(hit=hits[0])
    assert aggregate.answer == {"text": CAPTIONS[0][0]} and aggregate.method == "medoid by ROUGE-L"


@pytest.mark.django_db
def test_marking_an_approved_caption_gold_is_refused_with_the_reason():
    campaign, hits = answer_campaign()
    approve_submitted(campaign)
    assignment = Assignment.objects.filter(hit=hits[0]).first()
    with pytest.raises(GoldError, match="writing its rule"):
        gold_from_assignment(assignment)


@pytest.mark.django_db
def test_a_gold_caption_hit_is_scored_by_its_rule_when_answered():
    picture = make_image("gold.png")
    with pytest.raises(GoldError, match="answer: required_words: 'red dog' is not a single word"):
        create_gold_item(task_kind="describe_image", items={"image": picture.pk},
                         answer={"required_words": ["red dog"]})
    gold = create_gold_item(task_kind="describe_image", items={"image": picture.pk},
                            answer={"required_words": ["Dog", "beach"], "forbidden_words": ["cat"]})
    assert gold.answer == {"required_words": ["dog", "beach"], "forbidden_words": ["cat"]}
    campaign = make_campaign(images=2, assignments=2, gold_rate=0.5, options={"min_words": 5})
    gold_hits = set(campaign.hits.filter(gold_item=gold).values_list("pk", flat=True))
    assert gold_hits
    scores = {}
    for text in ("Two brown dogs play on the sand.", "A dog runs on the beach at sunset."):
        worker = new_local_worker()
        assignment = assign_next_hit(campaign, worker)
        while assignment.hit_id not in gold_hits:  # answer the real HITs until the gold one comes
            submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                          answer={"text": "A picture of something on a table."})
            assignment = assign_next_hit(campaign, worker)
        done = submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                             answer={"text": text}).assignment
        scores[text] = (done.gold_score, "gold_failed" in done.check_flags)
    # 3 conditions: dog, beach, no cat
    assert scores == {"Two brown dogs play on the sand.": (pytest.approx(2 / 3), False),
                      "A dog runs on the beach at sunset.": (1.0, False)}
