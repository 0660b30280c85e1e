"""The Vocabularies pages: the list and its create form (typed labels or a concepts.tsv), a vocabulary's labels,
the menu entry; constant query counts."""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.models import Concept, Vocabulary
from annotation.vocabularies.services import create_vocabulary
from tests.queries import queries_for

pytestmark = pytest.mark.django_db
URL = "/vocabularies/"


def test_typing_labels_creates_a_vocabulary_and_shows_its_page(researcher_client):
    response = researcher_client.post(URL, {"name": "Pets", "description": "for the pet study",
                                            "labels": "kitten | kitty, cat | kitten.n.01\ndog\n\nhamster"})
    vocabulary = Vocabulary.objects.get(name="Pets")
    assert response.status_code == 302 and response["Location"] == reverse("vocabulary-page", args=[vocabulary.pk])
    page = researcher_client.get(response["Location"]).content.decode()
    assert "Vocabulary “Pets”" in page and "for the pet study" in page
    assert "<th scope=\"row\" data-label=\"Label\">kitten</th>" in page and "kitty, cat" in page
    assert "kitten.n.01" in page and "3 labels offered to workers" in page


def test_a_concepts_tsv_upload_creates_a_vocabulary(researcher_client):
    upload = SimpleUploadedFile("street.tsv", b"name\tsynset\tsynonyms\tparent\nperson\tperson.n.01\t\t\n"
                                              b"woman\twoman.n.01\tlady\tperson\n")
    response = researcher_client.post(URL, {"name": "Street", "file": upload})
    assert response.status_code == 302
    woman = Concept.objects.get(vocabulary__name="Street", name="woman")
    assert (woman.synonyms, woman.parent.name) == (["lady"], "person")


@pytest.mark.parametrize("post, message", [
    ({"name": "Pets", "labels": "cat\ncat"}, "labels line 2: the label &#x27;cat&#x27; is already on line 1"),
    ({"name": "Pets", "labels": ""}, "give the labels"),
    ({"name": "", "labels": "cat"}, "This field is required."),
    ({"name": "demo", "labels": "cat"}, "a vocabulary named &#x27;demo&#x27; already exists"),
])
def test_bad_input_is_shown_and_creates_nothing(researcher_client, post, message):
    create_vocabulary("demo", labels="person")
    response = researcher_client.post(URL, post)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert list(Vocabulary.objects.values_list("name", flat=True)) == ["demo"]
    assert Concept.objects.count() == 1


def test_the_list_names_each_vocabulary_with_its_labels_and_the_menu_links_it(researcher_client):
    create_vocabulary("demo", labels="person\ndog")
    create_vocabulary("Pets", labels="cat")
    page = researcher_client.get(URL).content.decode()
    assert page.index(">Pets</a>") < page.index(">demo</a>")  # the demo's last
    assert '<a href="/vocabularies/">Vocabularies</a>' in researcher_client.get("/").content.decode()


def test_pages_are_for_researchers(client):
    assert client.get(URL).status_code == 302


def test_query_counts_do_not_grow_with_vocabularies_or_labels(researcher_client):
    create_vocabulary("one", labels="a\nb")
    small = (queries_for(researcher_client, URL),
             queries_for(researcher_client, reverse("vocabulary-page", args=[Vocabulary.objects.get().pk])))
    for n in range(5):
        create_vocabulary(f"more {n}", labels="\n".join(f"label {i} | s{i} | | {'label 0' if i else ''}"
                                                          for i in range(20)))
    big = Vocabulary.objects.get(name="more 4")
    assert (queries_for(researcher_client, URL),
            queries_for(researcher_client, reverse("vocabulary-page", args=[big.pk]))) == small
