"""The link_words task kind (word-to-box correspondence) through the real task page and submission endpoint."""
from __future__ import annotations

import json
import re

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from annotation.models import Box, Concept, Correspondence, Description, Image, WordLink
from metrics.text.markup import tokenize
from mturk.models import Assignment, Campaign
from mturk.services.campaigns import CampaignError, create_campaign, publish_campaign
from mturk.services.review import approve_assignment, reject_assignment
from mturk.states import AssignmentStatus
from mturk.task_kinds import get_task_kind
from tests.factories import label_vocabulary, make_image
from tests.queries import queries_for
from tests.worker_flow import start_task, submit

pytestmark = pytest.mark.django_db

TEXT = "A woman walks her dog on the beach ."  # 9 tokens: woman = 1, dog = 4, beach = 7


def boxed_image(name: str = "beach.png", boxes: int = 2) -> Image:
    image = make_image(name, size=(200, 100))
    woman, _ = Concept.objects.get_or_create(vocabulary=label_vocabulary(), name="woman")
    dog, _ = Concept.objects.get_or_create(vocabulary=label_vocabulary(), name="dog")
    for number in range(boxes):
        Box.objects.create(image=image, number=number, concept=woman if number % 2 == 0 else dog,
                           x=number % 50, y=10, width=40, height=30 + number % 50)
    return image


def describe(image: Image, text: str = TEXT) -> Description:
    return Description.objects.create(image=image, text=text, tokens=tokenize(text))


def links_campaign(descriptions: list[Description], name: str = "links", assignments: int = 1) -> Campaign:
    campaign = create_campaign(name=name, task_kind="link_words", assignments_per_hit=assignments,
                               items=[{"description": d.pk} for d in descriptions])
    publish_campaign(campaign)
    campaign.refresh_from_db()
    return campaign


@pytest.fixture
def description() -> Description:
    return describe(boxed_image())


@pytest.fixture
def campaign(description) -> Campaign:
    return links_campaign([description])


def page_payload(client, token: str) -> dict:
    page = client.get(reverse("task-page") + f"?t={token}").content.decode()
    match = re.search(r'<script id="task-payload" type="application/json">(.*?)</script>', page, re.S)
    assert match, page
    return json.loads(match.group(1))


def the_assignment(campaign: Campaign) -> Assignment:
    return Assignment.objects.get(hit__campaign=campaign)


# --- items -------------------------------------------------------------------------------------------


def test_unknown_description_is_refused_and_nothing_stored(description):
    with pytest.raises(CampaignError) as caught:
        create_campaign(name="bad", task_kind="link_words",
                        items=[{"description": description.pk}, {"description": 987654}, {"description": 987650}])
    assert str(caught.value) == "unknown description id(s): 987650, 987654"
    assert Campaign.objects.count() == 0


def test_description_of_an_image_without_boxes_is_refused(description):
    unboxed = describe(make_image("plain.png"))
    with pytest.raises(CampaignError) as caught:
        create_campaign(name="bad", task_kind="link_words",
                        items=[{"description": description.pk}, {"description": unboxed.pk}])
    assert str(caught.value) == f"description(s) {unboxed.pk}: their image has no boxes yet"
    assert Campaign.objects.count() == 0


@pytest.mark.parametrize("item", [{"image": 1}, {"description": "3"}, {"description": 1, "image": 1}])
def test_badly_shaped_items_are_refused(item):
    with pytest.raises(CampaignError) as caught:
        create_campaign(name="bad", task_kind="link_words", items=[item])
    assert str(caught.value) == f'item 0: expected {{"description": <description id>}}, got {item!r}'
    assert Campaign.objects.count() == 0


# --- task page ---------------------------------------------------------------------------------------


def test_page_payload_has_image_numbered_boxes_and_tokens(client, campaign, description):
    token = start_task(client, campaign)
    payload = page_payload(client, token)
    assert payload["image"]["id"] == description.image_id
    assert (payload["image"]["width"], payload["image"]["height"]) == (200, 100)
    assert payload["boxes"] == [
        {"number": 0, "concept": "woman", "x": 0, "y": 10, "width": 40, "height": 30},
        {"number": 1, "concept": "dog", "x": 1, "y": 10, "width": 40, "height": 31},
    ]
    assert payload["description"] == {"id": description.pk, "tokens": tokenize(TEXT)}
    page = client.get(reverse("task-page") + f"?t={token}").content.decode()
    assert 'data-kind="link_words"' in page
    assert '<p class="lw-sentence" id="lw-sentence">A woman walks her dog on the beach .</p>' in page
    # The worker sees their links as words with box badges (link_words.js), never the stored markup.
    assert 'id="lw-links"' in page and ">Your links</h3>" in page
    assert "Result:" not in page and "lw-markup" not in page


def test_the_page_script_shows_no_markup():
    script = (settings.BASE_DIR / "static" / "js" / "link_words.js").read_text()
    assert '"]^"' not in script and "markup" not in script


def test_task_page_query_count_does_not_grow_with_the_boxes(client):
    counts = []
    for boxes in (2, 20):
        campaign = links_campaign([describe(boxed_image(f"img{boxes}.png", boxes=boxes))], name=f"c{boxes}")
        token = start_task(client, campaign)
        assert len(page_payload(client, token)["boxes"]) == boxes
        counts.append(queries_for(client, reverse("task-page") + f"?t={token}"))
    assert counts[0] == counts[1]


# --- submissions -------------------------------------------------------------------------------------


def test_valid_links_are_stored_in_token_order(client, campaign):
    token = start_task(client, campaign)
    response = submit(client, {"token": token, "answer": {"links": {"4": 1, "01": 0}}})
    assert response.status_code == 201, response.json()
    assignment = the_assignment(campaign)
    assert assignment.status == AssignmentStatus.SUBMITTED
    assert assignment.answer == {"links": {"1": 0, "4": 1}}
    assert list(assignment.answer["links"]) == ["1", "4"]
    assert assignment.check_flags == []
    assert get_task_kind("link_words").summary(assignment.answer) == "2 words linked"
    assert Correspondence.objects.count() == 0  # made on approval only


def test_two_words_may_link_the_same_box(client, campaign):
    token = start_task(client, campaign)
    response = submit(client, {"token": token, "answer": {"links": {"1": 0, "7": 0}}})
    assert response.status_code == 201, response.json()


def test_no_links_is_accepted_but_flagged(client, campaign):
    token = start_task(client, campaign)
    assert submit(client, {"token": token, "answer": {"links": {}}}).status_code == 201
    assignment = the_assignment(campaign)
    assert assignment.check_flags == ["no_links"]
    assert get_task_kind("link_words").summary(assignment.answer) == "0 words linked"


@pytest.mark.parametrize(
    ("links", "messages"),
    [
        ({"9": 0}, ["Word '9': no such word in this description (it has 9)."]),
        ({"x": 0}, ["Word 'x': no such word in this description (it has 9)."]),
        ({"-1": 0}, ["Word '-1': no such word in this description (it has 9)."]),
        ({"1.0": 0}, ["Word '1.0': no such word in this description (it has 9)."]),
        ({"²": 0}, ["Word '²': no such word in this description (it has 9)."]),  # isdigit(), but not a number
        ({"1": 2}, ["Word 1: no box 2 in this image."]),
        ({"1": -1}, ["Word 1: no box -1 in this image."]),
        ({"1": "0"}, ["Word 1: no box '0' in this image."]),
        ({"1": 0.0}, ["Word 1: no box 0.0 in this image."]),
        ({"1": False}, ["Word 1: no box False in this image."]),
        ({"1": None}, {"1": ["This field may not be null."]}),
        ({"1": 0, "4": 5, "20": 1}, ["Word 4: no box 5 in this image.",
                                     "Word '20': no such word in this description (it has 9)."]),
    ],
)
def test_bad_links_are_refused_naming_the_word_and_box(client, campaign, links, messages):
    token = start_task(client, campaign)
    response = submit(client, {"token": token, "answer": {"links": links}})
    assert response.status_code == 400
    assert response.json() == {"error": "The answer is not valid.", "fields": {"links": messages}}
    assignment = the_assignment(campaign)
    assert (assignment.status, assignment.answer) == (AssignmentStatus.ACCEPTED, None)
    assert submit(client, {"token": token, "answer": {"links": {"1": 0}}}).status_code == 201


@pytest.mark.parametrize(
    ("answer", "fields"),
    [
        ({"links": [[1, 0]]}, {"links": ['Expected a dictionary of items but got type "list".']}),
        ({}, {"links": ["This field is required."]}),
        ({"links": {"1": 0}, "boxes": []}, {"boxes": ["Unknown field."]}),
    ],
)
def test_bad_answer_shapes_are_refused(client, campaign, answer, fields):
    token = start_task(client, campaign)
    response = submit(client, {"token": token, "answer": answer})
    assert response.status_code == 400
    assert response.json() == {"error": "The answer is not valid.", "fields": fields}
    assert the_assignment(campaign).answer is None


# --- approval ----------------------------------------------------------------------------------------


def submit_links(client, campaign: Campaign, links: dict) -> Assignment:
    response = submit(client, {"token": start_task(client, campaign), "answer": {"links": links}})
    assert response.status_code == 201, response.json()
    return Assignment.objects.get(pk=response.json()["assignment"])


def test_approval_creates_a_correspondence_with_its_word_links(client, description):
    campaign = links_campaign([description], assignments=2)
    first = submit_links(client, campaign, {"1": 0, "4": 1})
    second = submit_links(Client(), campaign, {"1": 0})
    approve_assignment(first)
    approve_assignment(first)  # idempotent
    correspondence = Correspondence.objects.get()
    assert (correspondence.description_id, correspondence.assignment_id, correspondence.source) == (
        description.pk, first.pk, "crowd")
    boxes = dict(Box.objects.filter(image_id=description.image_id).values_list("pk", "number"))
    assert [(link.token_index, boxes[link.box_id]) for link in WordLink.objects.filter(
        correspondence=correspondence)] == [(1, 0), (4, 1)]
    approve_assignment(second)  # a second worker's links are kept too (agreement)
    assert list(Correspondence.objects.values_list("assignment_id", flat=True)) == [first.pk, second.pk]
    assert WordLink.objects.count() == 3


def test_approving_an_empty_answer_stores_an_empty_correspondence(client, campaign):
    approve_assignment(submit_links(client, campaign, {}))
    assert Correspondence.objects.count() == 1 and WordLink.objects.count() == 0


def test_rejection_stores_no_correspondence(client, campaign):
    reject_assignment(submit_links(client, campaign, {"1": 0}), "The dog is box 1.")
    assert Correspondence.objects.count() == 0 and WordLink.objects.count() == 0
