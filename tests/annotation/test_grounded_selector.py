"""grounded_dataset(): scope, links and other_links, records(), and a constant number of queries."""
from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import Box, Concept, Correspondence, Description, Image, WordLink
from annotation.selectors import grounded_dataset
from metrics.grounded import BoxRecord, DescriptionRecord
from mturk.services.campaigns import create_campaign
from tests.factories import label_vocabulary, make_image

pytestmark = pytest.mark.django_db


def image(key: str, **kwargs) -> Image:
    return make_image(f"{key}.png", **kwargs)


def concept(name: str, parent: Concept | None = None) -> Concept:
    return Concept.objects.get_or_create(vocabulary=label_vocabulary(), name=name, defaults={"parent": parent})[0]


def add_box(img: Image, number: int, name: str, x=0, y=0, width=10, height=10) -> Box:
    return Box.objects.create(image=img, number=number, concept=concept(name), x=x, y=y, width=width, height=height)


def describe(img: Image, tokens: list[str], source: str = "crowd") -> Description:
    return Description.objects.create(image=img, text=" ".join(tokens), tokens=tokens, source=source)


def correspond(description: Description, links: dict[int, int]) -> Correspondence:
    correspondence = Correspondence.objects.create(description=description)
    for token, number in links.items():
        WordLink.objects.create(correspondence=correspondence, token_index=token,
                                box=Box.objects.get(image_id=description.image_id, number=number))
    return correspondence


@pytest.fixture
def data() -> dict:
    animal = concept("animal")
    concept("dog", parent=animal)
    street, park, plain = image("street"), image("park", size=(30, 20)), image("plain")
    add_box(street, 1, "dog", 5, 6, 7, 8)
    add_box(street, 0, "woman", 1, 2, 3, 4)
    add_box(park, 0, "dog")
    tokens = ["a", "woman", "and", "her", "dog"]
    linked = describe(street, tokens)
    # Stored out of order on purpose: links come back sorted by token.
    correspond(linked, {4: 1, 1: 0})
    correspond(linked, {1: 0})  # a second worker's links
    empty = describe(street, ["a", "street"])
    correspond(empty, {})  # linked, but no word names a box
    waiting = describe(street, ["nobody", "linked", "this"])
    park_description = describe(park, ["dog"], source="simulated")
    correspond(park_description, {0: 0})
    plain_description = describe(plain, ["plain"])
    return {"street": street, "park": park, "plain": plain, "linked": linked, "empty": empty, "waiting": waiting,
            "park_description": park_description, "plain_description": plain_description}


def test_default_scope_is_every_image_with_boxes_by_key(data):
    dataset = grounded_dataset()
    assert [(i.key, i.pk, i.file_name, i.width, i.height) for i in dataset.images] == [
        ("park", data["park"].pk, "park.png", 30, 20),
        ("street", data["street"].pk, "street.png", 64, 48),
    ]
    assert dataset.images[0].original == data["park"].original.name


def test_boxes_are_by_number_with_concept_names_and_concepts_include_ancestors(data):
    dataset = grounded_dataset()
    street = data["street"].pk
    assert [(b.number, b.concept, b.x, b.y, b.width, b.height) for b in dataset.boxes[street]] == [
        (0, "woman", 1, 2, 3, 4), (1, "dog", 5, 6, 7, 8)]
    assert [c.name for c in dataset.concepts] == ["animal", "dog", "woman"]


def test_first_correspondence_is_links_later_ones_other_links(data):
    rows = {row.pk: row for row in grounded_dataset().descriptions[data["street"].pk]}
    linked = rows[data["linked"].pk]
    assert linked.links == {1: 0, 4: 1}
    assert list(linked.links) == [1, 4]
    assert linked.other_links == [{1: 0}]
    assert (linked.text, linked.tokens, linked.source) == ("a woman and her dog", ["a", "woman", "and", "her", "dog"],
                                                           "crowd")
    assert rows[data["empty"].pk].links == {}  # linked with no word: {} not None
    assert rows[data["empty"].pk].other_links == []
    assert rows[data["waiting"].pk].links is None  # not linked yet
    assert list(rows) == [data["linked"].pk, data["empty"].pk, data["waiting"].pk]  # creation order


def test_records_keep_linked_descriptions_only(data):
    records = grounded_dataset().records()
    assert [r.key for r in records] == ["park", "street"]
    park, street = records
    assert (park.width, park.height) == (30, 20)
    assert park.boxes == [BoxRecord(0, "dog", 0, 0, 10, 10)]
    assert park.descriptions == [DescriptionRecord(data["park_description"].pk, ["dog"], {0: 0})]
    assert [d.id for d in street.descriptions] == [data["linked"].pk, data["empty"].pk]  # not "waiting"
    assert street.descriptions[0].links == {1: 0, 4: 1}
    assert street.descriptions[1].links == {} and street.descriptions[1].boxes == frozenset()


def test_scope_by_campaigns_of_images_and_of_descriptions(data):
    plain = create_campaign(name="describe plain", task_kind="describe_image", items=[{"image": data["plain"].pk}])
    links = create_campaign(name="link park", task_kind="link_words",
                            items=[{"description": data["park_description"].pk}])
    assert [i.key for i in grounded_dataset([plain]).images] == ["plain"]  # even without boxes
    assert grounded_dataset([plain]).boxes == {data["plain"].pk: []}
    assert [i.key for i in grounded_dataset([links]).images] == ["park"]
    assert [i.key for i in grounded_dataset([plain, links]).images] == ["park", "plain"]
    records = grounded_dataset([plain]).records()
    assert [(r.key, r.boxes, r.descriptions) for r in records] == [("plain", [], [])]


def test_a_campaign_without_hits_scopes_to_nothing(data):
    empty = create_campaign(name="empty", task_kind="describe_image")
    dataset = grounded_dataset([empty])
    assert (dataset.images, dataset.boxes, dataset.descriptions, dataset.concepts) == ([], {}, {}, [])


def test_no_images_at_all():
    dataset = grounded_dataset()
    assert (dataset.images, dataset.records()) == ([], [])


def build(count: int) -> None:
    for i in range(count):
        img = image(f"q{count}-{i}")
        for number in range(3):
            add_box(img, number, f"c{number}")
        for _ in range(2):
            description = describe(img, ["w0", "w1", "w2", "w3"])
            correspond(description, {0: 0, 2: 1})
            correspond(description, {0: 2})


def queries_of_dataset() -> tuple[int, int]:
    with CaptureQueriesContext(connection) as ctx:
        dataset = grounded_dataset()
        records = dataset.records()
    return len(ctx.captured_queries), len(records)


def test_query_count_does_not_grow_with_the_images():
    build(2)
    small, images = queries_of_dataset()
    assert images == 2
    build(8)
    large, images = queries_of_dataset()
    assert images == 10
    assert small == large


def test_query_count_with_campaign_scope_does_not_grow():
    build(2)
    first = create_campaign(name="scope", task_kind="link_words",
                            items=[{"description": d} for d in Description.objects.values_list("pk", flat=True)])
    with CaptureQueriesContext(connection) as small:
        assert len(grounded_dataset([first]).records()) == 2
    build(8)
    second = create_campaign(name="scope 2", task_kind="link_words",
                             items=[{"description": d} for d in Description.objects.values_list("pk", flat=True)])
    with CaptureQueriesContext(connection) as large:
        assert len(grounded_dataset([second]).records()) == 10
    assert len(small.captured_queries) == len(large.captured_queries)
