"""draw_boxes quality: the iou_threshold and quorum options, gold boxes (format and scoring), and the measure on
a small campaign worked through the real submission path (agreement per answer and HIT, the merged boxes)."""
from __future__ import annotations

from typing import Any

import pytest

from annotation.models import Concept, Image, Vocabulary
from metrics.box_consensus import set_f1
from mturk.measures import Answer, Unit, get_quality
from mturk.models import Assignment, Campaign, ItemAggregate, WorkerScore
from mturk.quality.services.computation import compute_quality
from mturk.services.campaigns import CampaignError, create_campaign, publish_campaign
from mturk.services.gold import GoldError, create_gold_item
from mturk.task_kinds import get_task_kind
from mturk.work.services.assignments import assign_next_hit, new_local_worker, submit_answer
from tests.factories import label_vocabulary, make_image

pytestmark = pytest.mark.django_db

QUALITY = get_quality("draw_boxes")


@pytest.fixture
def concepts() -> dict[str, Concept]:
    woman = Concept.objects.create(vocabulary=label_vocabulary(), name="woman", synset="woman.n.01")
    dog = Concept.objects.create(vocabulary=label_vocabulary(), name="dog", synset="dog.n.01")
    Vocabulary.objects.create(name="street").concepts.set([woman, dog])
    return {"woman": woman, "dog": dog}


@pytest.fixture
def image() -> Image:
    return make_image("street.png", size=(800, 600))


def box(concept: Concept | int, x: int, y: int, width: int, height: int) -> dict[str, int]:
    return {"concept": concept.pk if isinstance(concept, Concept) else concept, "x": x, "y": y, "width": width,
            "height": height}


def boxes_campaign(image: Image, workers: int = 4, **options: Any) -> Campaign:
    campaign = create_campaign(name=f"boxes-{workers}", task_kind="draw_boxes", assignments_per_hit=workers,
                               items=[{"image": image.pk}], options={"vocabulary": "street", **options})
    publish_campaign(campaign)
    campaign.refresh_from_db()
    return campaign


def work(campaign: Campaign, boxes: list[dict[str, int]]) -> Assignment:
    """A new worker takes the campaign's HIT and submits these boxes through the real submission path."""
    worker = new_local_worker()
    assignment = assign_next_hit(campaign, worker)
    return submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                         answer={"boxes": boxes}).assignment


# --- options -----------------------------------------------------------------------------------------


def test_campaigns_without_the_quality_options_get_the_defaults(concepts, image):
    campaign = boxes_campaign(image)
    assert (campaign.options["iou_threshold"], campaign.options["quorum"]) == (0.5, 0.5)
    old = Campaign.objects.filter(pk=campaign.pk)
    old.update(options={"vocabulary": "street", "min_boxes": 1, "max_boxes": 50, "min_box_size": 4})  # before them
    options = get_task_kind("draw_boxes").options(old.get())
    assert (options["iou_threshold"], options["quorum"]) == (0.5, 0.5)


def test_quality_options_are_stored_as_numbers(concepts, image):
    campaign = create_campaign(name="strict", task_kind="draw_boxes", items=[{"image": image.pk}],
                               options={"iou_threshold": 0.75, "quorum": 1})
    assert (campaign.options["iou_threshold"], campaign.options["quorum"]) == (0.75, 1.0)
    typed = create_campaign(name="typed", task_kind="draw_boxes", items=[{"image": image.pk}],
                            options={"iou_threshold": " 0.6", "quorum": "0.4"})  # what the wizard sends
    assert (typed.options["iou_threshold"], typed.options["quorum"]) == (0.6, 0.4)


@pytest.mark.parametrize(("options", "message"), [
    ({"iou_threshold": 0}, "option iou_threshold must be a number above 0 and at most 1, not 0"),
    ({"iou_threshold": 1.5}, "option iou_threshold must be a number above 0 and at most 1, not 1.5"),
    ({"quorum": "half"}, "option quorum must be a number above 0 and at most 1, not 'half'"),
    ({"quorum": True}, "option quorum must be a number above 0 and at most 1, not True"),
    ({"quorum": "nan"}, "option quorum must be a number above 0 and at most 1, not 'nan'"),
    ({"quorum": None}, "option quorum must be a number above 0 and at most 1, not None"),
])
def test_bad_quality_options_are_refused_and_nothing_is_stored(concepts, image, options, message):
    with pytest.raises(CampaignError) as caught:
        create_campaign(name="bad", task_kind="draw_boxes", items=[{"image": image.pk}], options=options)
    assert str(caught.value) == message
    assert Campaign.objects.count() == 0


def test_the_wizard_and_the_api_take_the_options(researcher_client, api, concepts, image):
    response = researcher_client.post("/campaigns/new/", {
        "step": "draft", "flow": "campaign", "kind": "draw_boxes", "source": "images",
        "item-images": [str(image.pk)], "provider": "local", "name": "Wizard boxes",
        "opt-draw_boxes-iou_threshold": "0.7", "opt-draw_boxes-quorum": "0.6",
    })
    assert response.status_code == 302
    assert Campaign.objects.get(name="Wizard boxes").options["iou_threshold"] == 0.7
    assert Campaign.objects.get(name="Wizard boxes").options["quorum"] == 0.6
    refused = researcher_client.post("/campaigns/new/", {
        "step": "draft", "flow": "campaign", "kind": "draw_boxes", "source": "images",
        "item-images": [str(image.pk)], "provider": "local", "name": "Wizard bad", "opt-draw_boxes-quorum": "2",
    })
    assert refused.status_code == 400  # the form again, the error at its field
    assert "option quorum must be a number above 0 and at most 1, not 2.0" in refused.content.decode()
    typo = researcher_client.post("/campaigns/new/", {
        "step": "draft", "flow": "campaign", "kind": "draw_boxes", "source": "images",
        "item-images": [str(image.pk)], "provider": "local", "name": "Wizard bad", "opt-draw_boxes-quorum": "half",
    })
    assert typo.status_code == 400 and "quorum: enter a number, e.g. 0.5" in typo.content.decode()
    form = researcher_client.get("/campaigns/new/").content.decode()
    assert 'type="number" step="any" min="0" name="opt-draw_boxes-quorum"' in form
    body = {"name": "API boxes", "task_kind": "draw_boxes", "items": [{"image": image.pk}],
            "options": {"iou_threshold": 0.8}}
    assert api.post("/api/campaigns/", body, format="json").status_code == 201
    assert Campaign.objects.get(name="API boxes").options["iou_threshold"] == 0.8
    bad = api.post("/api/campaigns/", {**body, "name": "API bad", "options": {"quorum": -1}}, format="json")
    assert bad.status_code == 400 and "option quorum must be a number above 0" in bad.content.decode()
    assert not Campaign.objects.filter(name__in=["Wizard bad", "API bad"]).exists()


# --- gold ----------------------------------------------------------------------------------------------


def test_gold_boxes_are_checked_and_cleaned(concepts, image):
    gold = {"boxes": [box(concepts["woman"], 100, 100, 200, 300), box(concepts["dog"], 0, 0, 800, 600)]}
    assert QUALITY.clean_gold({"image": image.pk}, gold) == gold
    assert QUALITY.clean_gold({"image": image.pk}, {"boxes": []}) == {"boxes": []}  # nothing to box
    stored = create_gold_item(task_kind="draw_boxes", items={"image": image.pk}, answer=gold)
    assert stored.answer == gold


@pytest.mark.parametrize(("gold", "message"), [
    ([], 'expected {"boxes": [...]}, a list of boxes'),
    ({"boxes": [], "extra": 1}, 'expected {"boxes": [...]}, a list of boxes'),
    ({"boxes": [{"x": 1}]}, "box 0: expected the fields concept, height, width, x, y"),
    ({"boxes": [{"concept": "woman", "x": 0, "y": 0, "width": 10, "height": 10}]},
     "box 0: concept must be a concept id, got 'woman'"),
    ({"boxes": [{"concept": 987654, "x": 0, "y": 0, "width": 10, "height": 10}]}, "box 0: unknown concept 987654"),
    ({"boxes": [{"concept": 1, "x": 700, "y": 0, "width": 200, "height": 10}]},
     "box 0: (700, 0, 200x10) lies outside the image (800x600 px)"),
    ({"boxes": [{"concept": 1, "x": 0.5, "y": 0, "width": 2, "height": 10}]},
     "box 0: x must be a whole number of pixels, got 0.5"),
])
def test_bad_gold_boxes_say_what_is_wrong(concepts, image, gold, message):
    with pytest.raises(ValueError) as caught:
        QUALITY.clean_gold({"image": image.pk}, gold)
    assert str(caught.value) == message


def test_gold_on_an_unknown_image_is_refused_and_nothing_is_stored(concepts):
    with pytest.raises(ValueError, match="the items name no known image"):
        QUALITY.clean_gold({"image": 987654}, {"boxes": []})
    with pytest.raises(GoldError):
        create_gold_item(task_kind="draw_boxes", items={"image": 987654}, answer={"boxes": []})


def test_gold_score_is_box_f1_at_the_campaign_threshold(concepts, image):
    woman, dog = concepts["woman"].pk, concepts["dog"].pk
    gold = {"boxes": [box(woman, 100, 100, 200, 300), box(dog, 400, 300, 150, 100)]}
    answer = {"boxes": [box(woman, 100, 100, 200, 240),  # IoU 240/300 = 0.8 with the woman
                        box(woman, 400, 300, 150, 100),  # on the dog, called a woman
                        box(dog, 0, 0, 20, 20)]}  # nothing there
    items = {"image": image.pk}
    assert QUALITY.score_gold({"iou_threshold": 0.5}, items, gold, answer) == pytest.approx(2 * 1 / (3 + 2))
    assert QUALITY.score_gold({"iou_threshold": 0.9}, items, gold, answer) == 0.0  # 0.8 is not enough now
    assert QUALITY.score_gold({}, items, gold, gold) == 1.0  # default threshold
    assert QUALITY.score_gold({}, items, {"boxes": []}, {"boxes": []}) == 1.0


# --- measure --------------------------------------------------------------------------------------------


def test_measure_on_a_campaign_agreement_and_merged_boxes_closer_to_the_truth(concepts, image):
    woman, dog = concepts["woman"], concepts["dog"]
    truth = [box(woman, 100, 100, 200, 300), box(dog, 400, 300, 150, 100)]
    campaign = boxes_campaign(image, workers=4)
    careful = work(campaign, [box(woman, 102, 100, 200, 300), box(dog, 400, 302, 150, 100)])
    also = work(campaign, [box(woman, 98, 101, 200, 300), box(dog, 401, 300, 150, 100)])
    mislabels = work(campaign, [box(woman, 100, 100, 200, 300), box(woman, 400, 300, 150, 100)])  # the dog a woman
    noisy = work(campaign, [box(woman, 500, 0, 100, 100), box(dog, 0, 400, 50, 50)])  # where nothing is
    compute_quality(campaign)

    # pairwise F1: careful-also 1; mislabels with either 0.5 (the woman only); noisy with anyone 0
    agreement = dict(Assignment.objects.filter(hit__campaign=campaign).values_list("pk", "agreement"))
    assert agreement == {careful.pk: pytest.approx((1 + 0.5 + 0) / 3), also.pk: pytest.approx((1 + 0.5 + 0) / 3),
                         mislabels.pk: pytest.approx((0.5 + 0.5 + 0) / 3), noisy.pk: 0.0}
    scores = dict(WorkerScore.objects.filter(campaign=campaign).values_list("worker_id", "agreement"))
    assert scores[noisy.worker_id] == 0.0 and scores[careful.worker_id] == pytest.approx(0.5)

    aggregate = ItemAggregate.objects.get(hit__campaign=campaign)
    assert aggregate.agreement == pytest.approx((1 + 0.5 + 0.5 + 0 + 0 + 0) / 6)
    assert aggregate.support == 4
    assert aggregate.method.startswith(
        "IoU clustering (IoU >= 0.5, one box per worker, concept by vote, quorum 50%, votes weighted")
    # each merged box is the member nearest the mean box (the third worker's, both times), labelled by vote
    assert aggregate.answer == {"boxes": truth}
    assert aggregate.details == {
        # weight: the three members' agreements in the campaign, 0.5 + 0.5 + 1/3 (the noisy worker's 0 is no member)
        "boxes": [{"votes": 3, "label_votes": {str(woman.pk): 3}, "weight": 1.333},
                  {"votes": 3, "label_votes": {str(dog.pk): 2, str(woman.pk): 1}, "weight": 1.333}],
        "dropped": 2,  # the noisy worker's two boxes, 1 vote of 4 each
    }

    def with_labels(boxes: list[dict[str, int]]) -> list[dict[str, int]]:
        return [{**b, "label": b["concept"]} for b in boxes]

    merged = set_f1(with_labels(aggregate.answer["boxes"]), with_labels(truth))
    assert (merged.f1, merged.mean_iou) == (1.0, 1.0)
    for worker in (careful, also, mislabels, noisy):
        single = set_f1(with_labels(worker.submitted_answer()["boxes"]), with_labels(truth))
        assert (single.f1, single.mean_iou or 0) < (merged.f1, merged.mean_iou)
    assert set_f1(with_labels(noisy.submitted_answer()["boxes"]), with_labels(truth)).f1 == 0.0


def test_measure_overall_figures_and_a_hit_with_one_answer(concepts):
    woman = concepts["woman"].pk
    units = [
        Unit(1, {"image": 1}, [Answer(10, 1, {"boxes": [box(woman, 0, 0, 10, 10)]}),
                               Answer(11, 2, {"boxes": [box(woman, 1, 0, 10, 10)]})]),  # IoU 90/110
        Unit(2, {"image": 2}, [Answer(12, 1, {"boxes": [box(woman, 0, 0, 10, 10)]})]),
        Unit(3, {"image": 3}, [Answer(13, 1, {"boxes": []}), Answer(14, 2, {"boxes": []})]),  # agree: nothing
    ]
    measured = QUALITY.measure({"iou_threshold": 0.5, "quorum": 0.5}, units)
    assert measured.item_agreement == {1: 1.0, 2: None, 3: 1.0}
    assert measured.answer_agreement == {10: 1.0, 11: 1.0, 13: 1.0, 14: 1.0}
    assert measured.overall == {"mean_f1": 1.0, "mean_matched_iou": pytest.approx(90 / 110)}
    assert sorted(measured.aggregates) == [1, 3]  # one answer: nothing to aggregate
    assert measured.aggregates[3].answer == {"boxes": []}
    assert measured.measure == "box F1 at IoU >= 0.5 (same concept) and mean matched IoU"
    strict = QUALITY.measure({"iou_threshold": 0.9, "quorum": 1.0}, units)
    assert strict.item_agreement[1] == 0.0  # 0.82 < 0.9
    assert strict.aggregates[1].answer == {"boxes": []}  # two clusters of one vote each, quorum 2
    assert strict.aggregates[1].details["dropped"] == 2
