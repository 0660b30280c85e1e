"""/api/vocabularies/: list with labels, read one, create from typed lines, a list of lines or a concepts.tsv text;
a draw_boxes campaign naming no vocabulary that exists is told which exist."""
from __future__ import annotations

import pytest

from annotation.models import Concept, Vocabulary
from annotation.vocabularies.services import create_vocabulary
from tests.factories import make_image

pytestmark = pytest.mark.django_db


def test_create_from_typed_lines_then_list_and_read(api):
    response = api.post("/api/vocabularies/", {"name": "Pets", "labels": "kitten | kitty | kitten.n.01\ndog"},
                        format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["name"], [(x["name"], x["synonyms"], x["synset"], x["parent_name"]) for x in body["labels"]]) == (
        "Pets", [("dog", [], "", None), ("kitten", ["kitty"], "kitten.n.01", None)])
    listed = api.get("/api/vocabularies/").json()
    assert [v["name"] for v in listed["results"]] == ["Pets"]
    assert api.get(f"/api/vocabularies/{body['id']}/").json() == body


def test_create_from_a_list_of_lines_and_from_a_tsv(api):
    assert api.post("/api/vocabularies/", {"name": "A", "labels": ["cat | kitty", "dog"]},
                    format="json").status_code == 201
    assert list(Concept.objects.filter(vocabulary__name="A").values_list("name", "synonyms")) == [
        ("cat", ["kitty"]), ("dog", [])]
    tsv = "name\tsynset\tsynonyms\tparent\nanimal\t\t\t\ndog\tdog.n.01\tpuppy\tanimal\n"
    body = api.post("/api/vocabularies/", {"name": "B", "tsv": tsv}, format="json").json()
    assert [(x["name"], x["parent_name"]) for x in body["labels"]] == [("animal", None), ("dog", "animal")]


@pytest.mark.parametrize("body, detail", [
    ({"name": "Pets", "labels": "cat\ncat"}, "labels line 2: the label 'cat' is already on line 1"),
    ({"name": "demo", "labels": "cat"}, "a vocabulary named 'demo' already exists"),
    ({"name": "Pets"}, "give the labels: type them one per line or upload a concepts.tsv file"),
])
def test_refusals_say_why_and_create_nothing(api, body, detail):
    create_vocabulary("demo", labels="person")
    response = api.post("/api/vocabularies/", body, format="json")
    assert response.status_code == 400 and response.json()["detail"] == detail
    assert Vocabulary.objects.count() == 1 and Concept.objects.count() == 1


def test_unknown_fields_are_refused(api):
    response = api.post("/api/vocabularies/", {"name": "x", "labels": "a", "concepts": []}, format="json")
    assert response.status_code == 400 and "concepts" in response.json()


def test_list_query_count_does_not_grow(api, django_assert_max_num_queries):
    create_vocabulary("one", labels="a")
    for n in range(10):
        create_vocabulary(f"v{n}", labels="\n".join(f"l{i}" for i in range(30)))
    with django_assert_max_num_queries(4):  # session/token user, count, page, labels
        assert len(api.get("/api/vocabularies/").json()["results"]) == 11


def test_a_draw_boxes_campaign_with_an_unknown_vocabulary_names_the_vocabularies(api):
    create_vocabulary("Pets", labels="cat")
    image = make_image()
    response = api.post("/api/campaigns/", {"name": "c", "task_kind": "draw_boxes", "items": [{"image": image.pk}],
                                            "options": {"vocabulary": "pets"}}, format="json")
    assert response.status_code == 400
    assert "unknown vocabulary 'pets' (vocabularies: Pets)" in str(response.json())
    assert "import_concepts" not in str(response.json())
