"""link_words quality: the quorum option, gold links (format and scoring), and the measure on a small campaign
worked through the real submission path (pairwise link F1, the vote per word)."""
from __future__ import annotations

import pytest

from annotation.models import Box, Concept, Description
from metrics.link_agreement import link_f1
from metrics.text.markup import tokenize
from mturk.measures import Answer, Unit, get_quality
from mturk.models import Assignment, Campaign, ItemAggregate
from mturk.quality.services.computation import compute_quality
from mturk.services.campaigns import CampaignError, create_campaign, publish_campaign
from mturk.services.gold import create_gold_item
from mturk.work.services.assignments import assign_next_hit, new_local_worker, submit_answer
from tests.factories import label_vocabulary, make_image

pytestmark = pytest.mark.django_db

QUALITY = get_quality("link_words")
TEXT = "A woman walks her dog on the beach ."  # 9 tokens: woman = 1, dog = 4, beach = 7


@pytest.fixture
def description() -> Description:
    image = make_image("beach.png", size=(200, 100))
    for number, name in enumerate(["woman", "dog", "beach"]):
        concept, _ = Concept.objects.get_or_create(vocabulary=label_vocabulary(), name=name)
        Box.objects.create(image=image, number=number, concept=concept, x=number * 50, y=10, width=40, height=40)
    return Description.objects.create(image=image, text=TEXT, tokens=tokenize(TEXT))


def links_campaign(description: Description, workers: int = 3, **options: float | str) -> Campaign:
    campaign = create_campaign(name=f"links-{workers}", task_kind="link_words", assignments_per_hit=workers,
                               items=[{"description": description.pk}], options=options)
    publish_campaign(campaign)
    campaign.refresh_from_db()
    return campaign


def work(campaign: Campaign, links: dict[str, int]) -> Assignment:
    worker = new_local_worker()
    assignment = assign_next_hit(campaign, worker)
    return submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                         answer={"links": links}).assignment


# --- options -----------------------------------------------------------------------------------------


def test_quorum_option_default_typed_and_refused(description):
    assert links_campaign(description).options == {"quorum": 0.5}
    typed = create_campaign(name="typed", task_kind="link_words", items=[{"description": description.pk}],
                            options={"quorum": "0.75"})
    assert typed.options == {"quorum": 0.75}
    with pytest.raises(CampaignError) as caught:
        create_campaign(name="bad", task_kind="link_words", items=[{"description": description.pk}],
                        options={"quorum": 0})
    assert str(caught.value) == "option quorum must be a number above 0 and at most 1, not 0"
    assert not Campaign.objects.filter(name="bad").exists()


# --- gold ----------------------------------------------------------------------------------------------


def test_gold_links_are_checked_and_cleaned(description):
    items = {"description": description.pk}
    assert QUALITY.clean_gold(items, {"links": {"7": 2, "1": 0}}) == {"links": {"1": 0, "7": 2}}
    assert QUALITY.clean_gold(items, {"links": {}}) == {"links": {}}  # no word names a box
    stored = create_gold_item(task_kind="link_words", items=items, answer={"links": {"4": 1}})
    assert stored.answer == {"links": {"4": 1}}


@pytest.mark.parametrize(("gold", "message"), [
    ({"links": [[1, 0]]}, 'expected {"links": {"<word index>": <box number>, ...}}'),
    ({"boxes": []}, 'expected {"links": {"<word index>": <box number>, ...}}'),
    ({"links": {"9": 0}}, "word '9': no such word in the description (it has 9)"),
    ({"links": {"one": 0, "4": 7}}, "word 'one': no such word in the description (it has 9); "
                                   "word 4: no box 7 on the image"),
    ({"links": {"4": "1"}}, "word 4: no box '1' on the image"),
])
def test_bad_gold_links_say_what_is_wrong(description, gold, message):
    with pytest.raises(ValueError) as caught:
        QUALITY.clean_gold({"description": description.pk}, gold)
    assert str(caught.value) == message


def test_gold_of_an_unknown_description_is_refused():
    with pytest.raises(ValueError, match="the items name no known description"):
        QUALITY.clean_gold({"description": 987654}, {"links": {}})


def test_gold_score_is_link_f1(description):
    items = {"description": description.pk}
    gold = {"links": {"1": 0, "4": 1, "7": 2}}
    assert QUALITY.score_gold({}, items, gold, {"links": {"1": 0, "4": 2}}) == pytest.approx(2 * 1 / (3 + 2))
    assert QUALITY.score_gold({}, items, gold, {"links": dict(gold["links"])}) == 1.0
    assert QUALITY.score_gold({}, items, {"links": {}}, {"links": {}}) == 1.0
    assert QUALITY.score_gold({}, items, {"links": {}}, {"links": {"1": 0}}) == 0.0


# --- measure --------------------------------------------------------------------------------------------


def test_measure_on_a_campaign_agreement_and_the_vote_per_word(description):
    truth = {(1, 0), (4, 1), (7, 2)}
    campaign = links_campaign(description, workers=3)
    full = work(campaign, {"1": 0, "4": 1, "7": 2})
    partial = work(campaign, {"1": 0, "4": 1})  # left the beach unlinked
    careless = work(campaign, {"1": 1, "4": 0, "7": 2})  # woman and dog swapped
    compute_quality(campaign)

    # pairwise link F1: full-partial 2*2/5, full-careless 2*1/6, partial-careless 0
    agreement = dict(Assignment.objects.filter(hit__campaign=campaign).values_list("pk", "agreement"))
    assert agreement == {full.pk: pytest.approx((0.8 + 1 / 3) / 2), partial.pk: pytest.approx(0.8 / 2),
                         careless.pk: pytest.approx((1 / 3) / 2)}
    aggregate = ItemAggregate.objects.get(hit__campaign=campaign)
    assert aggregate.agreement == pytest.approx((0.8 + 1 / 3 + 0) / 3)
    assert aggregate.support == 3
    assert aggregate.method.startswith("vote per word")
    # quorum 50% of 3: 2 votes; the beach keeps box 2 (2 votes against 1 for no link)
    assert aggregate.answer == {"links": {"1": 0, "4": 1, "7": 2}}
    assert aggregate.details == {"words": {
        "1": {"votes": 2, "box_votes": {"0": 2, "1": 1}},
        "4": {"votes": 2, "box_votes": {"1": 2, "0": 1}},
        "7": {"votes": 2, "box_votes": {"2": 2, "none": 1}},
    }}
    voted = {(int(word), box) for word, box in aggregate.answer["links"].items()}
    assert link_f1(voted, truth) == 1.0
    swapped = {(int(word), box) for word, box in careless.submitted_answer()["links"].items()}
    assert link_f1(swapped, truth) == pytest.approx(1 / 3)


def test_measure_with_a_higher_quorum_and_a_hit_with_one_answer():
    units = [
        Unit(1, {"description": 1}, [Answer(10, 1, {"links": {"1": 0, "7": 2}}), Answer(11, 2, {"links": {"1": 0}}),
                                     Answer(12, 3, {"links": {"1": 0, "7": 1}})]),
        Unit(2, {"description": 2}, [Answer(13, 1, {"links": {"0": 0}})]),
    ]
    measured = QUALITY.measure({"quorum": 1.0}, units)
    assert measured.aggregates[1].answer == {"links": {"1": 0}}  # every worker linked "woman" to box 0
    assert measured.item_agreement[2] is None and 2 not in measured.aggregates and 13 not in measured.answer_agreement
    # F1: 10-11 2*1/3, 10-12 2*1/4, 11-12 2*1/3
    assert measured.item_agreement[1] == pytest.approx((2 / 3 + 1 / 2 + 2 / 3) / 3)
    assert measured.overall == {"mean_link_f1": pytest.approx((2 / 3 + 1 / 2 + 2 / 3) / 3)}
    assert measured.measure == "pairwise link F1"
