"""The draw_boxes task kind through the real task page and submission endpoint."""
from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from annotation.models import Box, Concept, Vocabulary
from mturk.models import Assignment, Campaign
from mturk.services.campaigns import CampaignError, create_campaign, publish_campaign
from mturk.services.review import approve_assignment, reject_assignment
from mturk.states import AssignmentStatus
from mturk.task_kinds import get_task_kind
from tests.factories import label_vocabulary, make_image
from tests.queries import queries_for
from tests.worker_flow import start_task, submit

pytestmark = pytest.mark.django_db

WIDTH, HEIGHT = 800, 600


@pytest.fixture
def concepts() -> dict[str, Concept]:
    woman = Concept.objects.create(vocabulary=label_vocabulary(),
                                   name="woman", synset="woman.n.01", synonyms=["lady", "female person"])
    dog = Concept.objects.create(vocabulary=label_vocabulary(), name="dog", synset="dog.n.01", synonyms=["puppy"])
    tree = Concept.objects.create(vocabulary=label_vocabulary(),
                                  name="tree", synset="tree.n.01")  # not in the vocabulary
    vocabulary = Vocabulary.objects.create(name="street")
    vocabulary.concepts.set([woman, dog])
    return {"woman": woman, "dog": dog, "tree": tree}


def boxes_campaign(name: str = "boxes", images: int = 1, *, vocabulary: str = "street", assignments: int = 1,
                   **options) -> Campaign:
    pictures = [make_image(f"{name}-{i}.png", size=(WIDTH, HEIGHT)) for i in range(images)]
    campaign = create_campaign(name=name, task_kind="draw_boxes", assignments_per_hit=assignments,
                               items=[{"image": p.pk} for p in pictures],
                               options={"vocabulary": vocabulary, **options})
    publish_campaign(campaign)
    campaign.refresh_from_db()
    return campaign


@pytest.fixture
def campaign(concepts) -> Campaign:
    return boxes_campaign()


def page_payload(client, token: str) -> dict:
    page = client.get(reverse("task-page") + f"?t={token}").content.decode()
    match = re.search(r'<script id="task-payload" type="application/json">(.*?)</script>', page, re.S)
    assert match, page
    return json.loads(match.group(1))


def box(concept, x=10, y=20, width=100, height=50) -> dict:
    return {"concept": concept.pk if isinstance(concept, Concept) else concept, "x": x, "y": y, "width": width,
            "height": height}


def assignment_of(campaign: Campaign) -> Assignment:
    return Assignment.objects.get(hit__campaign=campaign)


# --- options and campaign creation -------------------------------------------------------------------


def test_unknown_vocabulary_is_refused_at_creation_and_nothing_is_stored(concepts):
    image = make_image("a.png")
    with pytest.raises(CampaignError) as caught:
        create_campaign(name="bad", task_kind="draw_boxes", items=[{"image": image.pk}],
                        options={"vocabulary": "no such vocabulary"})
    assert str(caught.value) == "unknown vocabulary 'no such vocabulary' (vocabularies: street, test labels)"
    assert Campaign.objects.count() == 0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"min_boxes": -1}, "option min_boxes must be a whole number >= 0"),
        ({"max_boxes": "5"}, "option max_boxes must be a whole number >= 0"),
        ({"min_box_size": 2.5}, "option min_box_size must be a whole number >= 0"),
        ({"min_boxes": True, "max_boxes": True}, "option min_boxes must be a whole number >= 0"),
        ({"min_boxes": 6, "max_boxes": 5}, "min_boxes is larger than max_boxes"),
        ({"colour": "red"}, "unknown option(s) for draw_boxes: colour"),
    ],
)
def test_bad_options_are_refused_at_creation(concepts, options, message):
    with pytest.raises(CampaignError) as caught:
        create_campaign(name="bad", task_kind="draw_boxes", options={"vocabulary": "street", **options})
    assert str(caught.value) == message
    assert Campaign.objects.count() == 0


def test_unknown_image_item_is_refused(concepts):
    with pytest.raises(CampaignError, match=r"unknown image id\(s\): 987654"):
        create_campaign(name="bad", task_kind="draw_boxes", items=[{"image": 987654}])
    with pytest.raises(CampaignError, match=r"item 0: expected \{\"image\": <image id>\}"):
        create_campaign(name="bad", task_kind="draw_boxes", items=[{"image": "1"}])
    assert Campaign.objects.count() == 0


def test_defaults_are_stored_with_the_campaign(campaign):
    assert campaign.options == {"vocabulary": "street", "min_boxes": 1, "max_boxes": 50, "min_box_size": 4,
                                "iou_threshold": 0.5, "quorum": 0.5}
    assert campaign.assignments_per_hit == 1


# --- task page ---------------------------------------------------------------------------------------


def test_page_payload_has_image_and_only_the_vocabulary_concepts(client, campaign, concepts):
    token = start_task(client, campaign)
    payload = page_payload(client, token)
    image_id = campaign.hits.get().items["image"]
    assert payload["image"]["id"] == image_id
    assert (payload["image"]["width"], payload["image"]["height"]) == (WIDTH, HEIGHT)
    assert payload["concepts"] == [  # by name; "tree" is not in the vocabulary
        {"id": concepts["dog"].pk, "name": "dog", "synonyms": ["puppy"]},
        {"id": concepts["woman"].pk, "name": "woman", "synonyms": ["lady", "female person"]},
    ]
    page = client.get(reverse("task-page") + f"?t={token}").content.decode()
    assert 'data-kind="draw_boxes"' in page and "Between 1 and 50 boxes, at least 4 px" in page


def test_no_vocabulary_offers_every_concept(client, concepts):
    campaign = boxes_campaign("all concepts", vocabulary="")
    payload = page_payload(client, start_task(client, campaign))
    assert [c["name"] for c in payload["concepts"]] == ["dog", "tree", "woman"]


def test_task_page_query_count_does_not_grow_with_the_vocabulary(client):
    counts = []
    for size in (3, 30):
        vocabulary = Vocabulary.objects.create(name=f"v{size}")
        Concept.objects.bulk_create(
            [Concept(vocabulary=vocabulary, name=f"c{size}-{i}", synonyms=[f"s{i}", f"t{i}"]) for i in range(size)]
        )
        campaign = boxes_campaign(f"campaign {size}", vocabulary=vocabulary.name)
        token = start_task(client, campaign)
        assert len(page_payload(client, token)["concepts"]) == size
        counts.append(queries_for(client, reverse("task-page") + f"?t={token}"))
    assert counts[0] == counts[1]


# --- submissions -------------------------------------------------------------------------------------


def test_valid_boxes_are_stored(client, campaign, concepts):
    token = start_task(client, campaign)
    boxes = [box(concepts["woman"], 0, 0, WIDTH, HEIGHT), box(concepts["dog"], 700, 500, 100, 100)]
    response = submit(client, {"token": token, "answer": {"boxes": boxes}})
    assert response.status_code == 201, response.json()
    assignment = assignment_of(campaign)
    assert assignment.status == AssignmentStatus.SUBMITTED
    assert assignment.answer == {"boxes": boxes}
    assert assignment.check_flags == []
    assert get_task_kind("draw_boxes").summary(assignment.answer) == "2 boxes"
    assert Box.objects.count() == 0  # boxes are made on approval only


def test_boxes_of_the_minimum_size_touching_the_edges_are_accepted(client, campaign, concepts):
    token = start_task(client, campaign)
    edge = box(concepts["dog"], WIDTH - 4, HEIGHT - 4, 4, 4)
    response = submit(client, {"token": token, "answer": {"boxes": [edge]}})
    assert response.status_code == 201, response.json()
    assert assignment_of(campaign).answer == {"boxes": [edge]}


# Placeholders for concept ids (resolved in the test): the woman of the vocabulary, and an id nobody has (999).
WOMAN, UNKNOWN = "woman", "unknown"


@pytest.mark.parametrize(
    ("boxes", "messages"),
    [
        ([box(WOMAN, 700, 0, 200, 100)], ["Box 1: (700, 0, 200x100) lies outside the image (800x600 px)."]),
        ([box(WOMAN), box(WOMAN, 0, 550, 10, 51)], ["Box 2: (0, 550, 10x51) lies outside the image (800x600 px)."]),
        ([box(WOMAN, -1, 0, 10, 10)], ["Box 1: (-1, 0, 10x10) lies outside the image (800x600 px)."]),
        ([box(UNKNOWN)], ["Box 1: unknown concept 999 (not in this task's vocabulary)."]),
        ([box("tree")], ["Box 1: unknown concept {tree} (not in this task's vocabulary)."]),
        ([box("woman-name")], ["Box 1: unknown concept 'woman' (not in this task's vocabulary)."]),
        ([box(WOMAN, width=3)], ["Box 1: size 3x50 is below the minimum of 4 px."]),
        ([box(WOMAN, x=1.5)], ["Box 1: x must be a whole number of pixels, got 1.5."]),
        ([box(WOMAN, height="50")], ["Box 1: height must be a whole number of pixels, got '50'."]),
        ([box(WOMAN, y=True)], ["Box 1: y must be a whole number of pixels, got True."]),
        ([{"concept": WOMAN, "x": 1, "y": 1, "width": 10}],
         ["Box 1: expected the fields concept, height, width, x, y."]),
        ([{**box(WOMAN), "label": "lady"}], ["Box 1: expected the fields concept, height, width, x, y."]),
        ([box(WOMAN), [1, 2, 3, 4]], ["Box 2: expected the fields concept, height, width, x, y."]),
        ([box(UNKNOWN), box(WOMAN), box(WOMAN, 799, 0, 4, 4)],
         ["Box 1: unknown concept 999 (not in this task's vocabulary).",
          "Box 3: (799, 0, 4x4) lies outside the image (800x600 px)."]),
        ([], ["Draw between 1 and 50 boxes (you drew 0)."]),
        ("woman", ['Expected a list of items but got type "str".']),
    ],
)
def test_bad_boxes_are_refused_with_a_message_naming_the_box(client, campaign, concepts, boxes, messages):
    def resolve(value):
        if isinstance(value, dict) and "concept" in value:
            names = {WOMAN: concepts["woman"].pk, UNKNOWN: 999, "tree": concepts["tree"].pk, "woman-name": "woman"}
            return {**value, "concept": names.get(value["concept"], value["concept"])}
        return value

    answer_boxes = [resolve(b) for b in boxes] if isinstance(boxes, list) else boxes
    token = start_task(client, campaign)
    response = submit(client, {"token": token, "answer": {"boxes": answer_boxes}})
    assert response.status_code == 400
    expected = [m.replace("{tree}", str(concepts["tree"].pk)) for m in messages]
    assert response.json() == {"error": "The answer is not valid.", "fields": {"boxes": expected}}
    assignment = assignment_of(campaign)
    assert (assignment.status, assignment.answer, assignment.check_flags) == (AssignmentStatus.ACCEPTED, None, [])
    assert Box.objects.count() == 0
    # The refusal spoiled nothing: a corrected answer is then accepted.
    fixed = submit(client, {"token": token, "answer": {"boxes": [box(concepts["woman"])]}})
    assert fixed.status_code == 201, fixed.json()


@pytest.mark.parametrize(
    ("answer", "fields"),
    [
        ({"boxes": [{"concept": "woman", "x": 1, "y": 1, "width": 10, "height": 10}], "note": "hi"},
         {"note": ["Unknown field."]}),
        ({}, {"boxes": ["This field is required."]}),
        ([], {"answer": "Expected a JSON object."}),
    ],
)
def test_bad_answer_shapes_are_refused(client, campaign, concepts, answer, fields):
    if isinstance(answer, dict) and answer.get("boxes"):
        answer["boxes"][0]["concept"] = concepts["woman"].pk
    token = start_task(client, campaign)
    response = submit(client, {"token": token, "answer": answer})
    assert response.status_code == 400
    assert response.json() == {"error": "The answer is not valid.", "fields": fields}
    assert assignment_of(campaign).answer is None


def test_a_concept_given_as_a_float_is_refused(client, campaign, concepts):
    """1.0 == 1 in Python, so a float id used to pass the vocabulary check and be stored as 1.0."""
    token = start_task(client, campaign)
    pk = concepts["woman"].pk
    response = submit(client, {"token": token, "answer": {"boxes": [box(float(pk))]}})
    assert response.status_code == 400
    assert response.json()["fields"]["boxes"] == [
        f"Box 1: unknown concept {float(pk)!r} (not in this task's vocabulary)."]
    assert assignment_of(campaign).answer is None


def test_box_count_limits_follow_the_options(client, concepts):
    campaign = boxes_campaign("limits", min_boxes=2, max_boxes=3, min_box_size=10)
    token = start_task(client, campaign)
    woman = concepts["woman"]
    for boxes, message in (
        ([box(woman)], "Draw between 2 and 3 boxes (you drew 1)."),
        ([box(woman)] * 4, "Draw between 2 and 3 boxes (you drew 4)."),
        ([box(woman), box(woman, width=9)], "Box 2: size 9x50 is below the minimum of 10 px."),
    ):
        response = submit(client, {"token": token, "answer": {"boxes": boxes}})
        assert response.status_code == 400
        assert response.json()["fields"]["boxes"] == [message]
    assert assignment_of(campaign).answer is None
    assert submit(client, {"token": token, "answer": {"boxes": [box(woman), box(woman, x=300)]}}).status_code == 201


def test_zero_boxes_allowed_when_min_boxes_is_zero(client, concepts):
    campaign = boxes_campaign("none needed", min_boxes=0)
    token = start_task(client, campaign)
    response = submit(client, {"token": token, "answer": {"boxes": []}})
    assert response.status_code == 201, response.json()
    assert assignment_of(campaign).answer == {"boxes": []}
    assert get_task_kind("draw_boxes").summary(assignment_of(campaign).answer) == "0 boxes"


@pytest.mark.parametrize(
    ("second", "same_concept", "flags"),
    [
        ({"x": 11, "y": 21, "width": 100, "height": 50}, True, ["duplicate_boxes"]),  # IoU ~0.95
        ({"x": 11, "y": 21, "width": 100, "height": 50}, False, []),  # different concepts
        ({"x": 30, "y": 20, "width": 100, "height": 50}, True, []),  # IoU 80/120 = 0.67
    ],
)
def test_duplicate_boxes_are_flagged(client, campaign, concepts, second, same_concept, flags):
    token = start_task(client, campaign)
    other = concepts["woman"] if same_concept else concepts["dog"]
    boxes = [box(concepts["woman"]), box(other, **second)]
    assert submit(client, {"token": token, "answer": {"boxes": boxes}}).status_code == 201
    assert assignment_of(campaign).check_flags == flags


# --- approval ----------------------------------------------------------------------------------------


def submit_boxes(client, campaign: Campaign, boxes: list[dict]) -> Assignment:
    token = start_task(client, campaign)
    response = submit(client, {"token": token, "answer": {"boxes": boxes}})
    assert response.status_code == 201, response.json()
    return Assignment.objects.get(pk=response.json()["assignment"])


def test_first_approved_box_set_becomes_the_image_boxes(client, concepts):
    from django.test import Client

    campaign = boxes_campaign("two workers", assignments=2)
    woman, dog = concepts["woman"], concepts["dog"]
    first = submit_boxes(client, campaign, [box(woman, 1, 2, 30, 40), box(dog, 100, 200, 50, 60)])
    second = submit_boxes(Client(), campaign, [box(dog, 5, 5, 10, 10)])
    approve_assignment(first)
    image_id = campaign.hits.get().items["image"]
    rows = list(Box.objects.filter(image_id=image_id).values_list(
        "number", "concept_id", "x", "y", "width", "height", "source", "assignment_id"))
    assert rows == [(0, woman.pk, 1, 2, 30, 40, "crowd", first.pk), (1, dog.pk, 100, 200, 50, 60, "crowd", first.pk)]
    approve_assignment(first)  # idempotent
    approve_assignment(second)  # a later approved box set adds nothing
    assert Box.objects.count() == 2
    assert Assignment.objects.get(pk=second.pk).status == AssignmentStatus.APPROVED


def test_rejected_boxes_make_no_box(client, campaign, concepts):
    assignment = submit_boxes(client, campaign, [box(concepts["woman"])])
    reject_assignment(assignment, "The box is not around the woman.")
    assert Box.objects.count() == 0


def test_approval_keeps_existing_gold_boxes(client, campaign, concepts):
    image_id = campaign.hits.get().items["image"]
    Box.objects.create(image_id=image_id, number=0, concept=concepts["tree"], x=0, y=0, width=5, height=5)
    assignment = submit_boxes(client, campaign, [box(concepts["woman"])])
    approve_assignment(assignment)
    assert list(Box.objects.values_list("number", "source", "assignment_id")) == [(0, "gold", None)]


def test_add_boxes_numbers_after_the_existing_boxes(concepts):
    """The service draw_boxes approval uses: new boxes continue the image's numbering (0, then 1, 2...)."""
    from annotation.services.boxes import BoxSpec, add_boxes

    image = make_image("numbered.png", size=(WIDTH, HEIGHT))
    woman = concepts["woman"].pk
    add_boxes(image, [BoxSpec(woman, 0, 0, 5, 5)], source="gold")
    add_boxes(image, [BoxSpec(woman, 1, 1, 5, 5), BoxSpec(woman, 2, 2, 5, 5)], source="gold")
    assert list(image.boxes.values_list("number", "x")) == [(0, 0), (1, 1), (2, 2)]
