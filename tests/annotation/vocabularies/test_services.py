"""Vocabularies own their labels: creating one from typed lines or a concepts.tsv, importing into one, and what
that leaves of the others."""
from __future__ import annotations

import math

import pytest
from django.db import connection

from annotation.models import Concept, Vocabulary
from annotation.services.concepts import BATCH, ConceptImportError, import_concepts, parse_concepts
from annotation.vocabularies.selectors import offered_labels, vocabulary_choices
from annotation.vocabularies.services import create_vocabulary, parse_typed_labels, unknown_vocabulary_message

pytestmark = pytest.mark.django_db
HEADER = "name\tsynset\tsynonyms\tparent\n"


def labels_of(name: str) -> list[tuple]:
    return list(Concept.objects.filter(vocabulary__name=name).order_by("name")
                .values_list("pk", "name", "synset", "synonyms", "parent__name", "offered"))


def test_typed_lines_give_names_synonyms_synsets_and_parents():
    rows = parse_typed_labels("kitten | kitty, cat | kitten.n.01\n\n  dog  \nanimal||animal.n.01\npuppy | | | dog\n")
    assert [(r.line, r.name, r.synonyms, r.synset, r.parent) for r in rows] == [
        (1, "kitten", ("kitty", "cat"), "kitten.n.01", ""),
        (3, "dog", (), "", ""),
        (4, "animal", (), "animal.n.01", ""),
        (5, "puppy", (), "", "dog"),
    ]


@pytest.mark.parametrize(("text", "error"), [
    ("\n  \n", "give the labels: type them one per line or upload a concepts.tsv file"),
    ("cat\ncat", "labels line 2: the label 'cat' is already on line 1"),
    ("cat | | kitten", "labels line 1: 'kitten' is not a WordNet synset id like kitten.n.01"),
    (" | kitty", "labels line 1: the label is empty"),
    ("a|b|c.n.01|d|e", "labels line 1: at most 4 parts separated by | (name | synonyms | synset | parent), found 5"),
    ("puppy | | | dog", "labels line 1: unknown parent concept 'dog'"),
    ("x" * 101, "labels line 1: the name is 101 characters long (at most 100)"),
])
def test_typed_lines_errors_name_the_line(text, error):
    with pytest.raises(ConceptImportError) as caught:
        create_vocabulary("mine", labels=text)
    assert error in caught.value.errors
    assert not Vocabulary.objects.exists() and not Concept.objects.exists()


def test_typed_lines_with_no_label_at_all_are_refused():
    with pytest.raises(ConceptImportError) as caught:
        parse_typed_labels("\n  \n")
    assert caught.value.errors == ["labels: no labels (type one per line)"]


def test_a_typed_line_and_a_tsv_line_are_checked_alike():
    """The same cells, typed or in a concepts.tsv, get the same problems, in the same order, each naming its line."""
    cells = [("cat", "", "", ""), ("dog\x00", "", "", ""), ("cat", "bad", "", ""), ("", "", "kitty", "")]
    typed = "\n".join(f"{name} | {synonyms} | {synset} | {parent}" for name, synset, synonyms, parent in cells)
    tsv = HEADER + "".join(f"{name}\t{synset}\t{synonyms}\t{parent}\n" for name, synset, synonyms, parent in cells)
    with pytest.raises(ConceptImportError) as from_typed:
        parse_typed_labels(typed, "x")
    with pytest.raises(ConceptImportError) as from_tsv:
        parse_concepts(tsv, "x")
    assert from_typed.value.errors == [
        "x line 2: the name holds a NUL character (\\u0000)",
        "x line 3: 'bad' is not a WordNet synset id like kitten.n.01",
        "x line 3: the label 'cat' is already on line 1",
        "x line 4: the label is empty",
    ]
    assert from_tsv.value.errors == [
        "x line 3: the name holds a NUL character (\\u0000)",
        "x line 4: 'bad' is not a WordNet synset id like woman.n.01",
        "x line 4: concept 'cat' is already defined on line 2",
        "x line 5: the concept name is empty",
    ]


def test_create_from_typed_labels_and_from_a_tsv():
    typed = create_vocabulary("Pets", labels="kitten | kitty | kitten.n.01\ndog\nhamster", description="my pets")
    assert (typed.created, typed.vocabulary.description) == (3, "my pets")
    assert [c.name for c in offered_labels("Pets")] == ["dog", "hamster", "kitten"]
    tsv = create_vocabulary("Street", tsv=HEADER + "person\tperson.n.01\t\t\nwoman\twoman.n.01\tlady\tperson\n")
    assert tsv.created == 2
    assert Concept.objects.get(vocabulary__name="Street", name="woman").parent.name == "person"


@pytest.mark.parametrize("kwargs, error", [
    ({"labels": "a", "tsv": HEADER + "a\t\t\t\n"}, "not both"),
    ({}, "type them one per line"),
    ({"labels": "a", "description": "d" * 301}, "the description"),
])
def test_create_needs_one_source_of_labels(kwargs, error):
    with pytest.raises(ConceptImportError, match=error):
        create_vocabulary("mine", **kwargs)
    assert not Vocabulary.objects.exists()


def test_a_taken_name_is_refused_and_changes_nothing():
    create_vocabulary("Pets", labels="cat\ndog")
    before = labels_of("Pets")
    with pytest.raises(ConceptImportError, match="a vocabulary named 'Pets' already exists"):
        create_vocabulary("Pets", labels="hamster")
    assert labels_of("Pets") == before


def test_the_same_label_in_two_vocabularies_is_two_labels():
    create_vocabulary("demo", labels="person | human | person.n.01\ndog")
    create_vocabulary("mine", labels="person | kid, child | person.n.01")
    assert Concept.objects.filter(name="person").count() == 2
    assert [c.synonyms for c in offered_labels("demo") if c.name == "person"] == [["human"]]
    assert [c.synonyms for c in offered_labels("mine")] == [["kid", "child"]]


def test_an_import_into_one_vocabulary_never_touches_another():
    create_vocabulary("demo", labels="person | human | person.n.01\nwoman | lady | woman.n.01 | person\ndog")
    create_vocabulary("mine", labels="person\nkitten")
    demo = labels_of("demo")
    result = import_concepts(HEADER + "person\tperson.n.02\tgrown-up\t\nwoman\twoman.n.01\t\t\n", "mine")
    assert (result.created, result.updated) == (1, 1)  # woman is new in "mine", person changed there
    assert labels_of("demo") == demo  # labels, synonyms, hierarchy, ids
    assert [c.name for c in offered_labels("mine")] == ["person", "woman"]  # kitten kept, not offered
    assert Concept.objects.get(vocabulary__name="mine", name="kitten").offered is False


def test_labels_of_a_campaign_without_a_vocabulary_are_each_name_once():
    create_vocabulary("one", labels="cat\ndog")
    create_vocabulary("two", labels="dog\nemu")
    labels = offered_labels("")
    assert [c.name for c in labels] == ["cat", "dog", "emu"]
    assert next(c for c in labels if c.name == "dog").vocabulary.name == "one"


def test_choices_put_the_newest_first_and_the_demo_last():
    create_vocabulary("demo", labels="person\ndog")
    create_vocabulary("older", labels="a")
    create_vocabulary("newer", labels="b\nc")
    choices = vocabulary_choices()
    assert [(c.name, c.labels, c.count) for c in choices] == [
        ("newer", ["b", "c"], 2), ("older", ["a"], 1), ("demo", ["dog", "person"], 2)]


def test_an_unknown_vocabulary_names_the_ones_there_are():
    assert "there is no vocabulary yet" in unknown_vocabulary_message("x")
    create_vocabulary("Pets", labels="cat")
    create_vocabulary("Birds", labels="emu")
    assert unknown_vocabulary_message("x") == "unknown vocabulary 'x' (vocabularies: Birds, Pets)"


class _CountedParents(dict):
    """The cycle check's parent map (it builds it with `dict(...)`), counting the parents it looks up."""

    lookups = 0

    def get(self, *args):
        type(self).lookups += 1
        return super().get(*args)


def test_the_cycle_check_looks_each_label_up_once_and_names_every_label_of_a_cycle(monkeypatch):
    from annotation.services import concepts

    monkeypatch.setattr(concepts, "dict", _CountedParents, raising=False)
    _CountedParents.lookups = 0
    chain = 2000  # label 0 the root, each next label the child of the one before
    lines = "\n".join(["l0"] + [f"l{n} | | | l{n - 1}" for n in range(1, chain)])
    assert create_vocabulary("chain", labels=lines).created == chain
    assert _CountedParents.lookups <= 2 * chain  # the walk from every label to the root looked up chain²/2
    cycle = "a | | | c\nb | | | a\nc | | | b\nd | | | c\ne"
    with pytest.raises(ConceptImportError) as caught:
        create_vocabulary("cycle", labels=cycle)
    assert caught.value.errors == [f"labels line {n}: the parents of '{name}' form a cycle"
                                   for n, name in ((1, "a"), (2, "b"), (3, "c"))]


def statements_per_batch_of(labels: int) -> int:
    """The INSERT (or UPDATE) statements a batch write of `labels` labels takes on this database: a batch of
    BATCH rows, split further where the database binds fewer parameters a statement (SQLite: 999, so 166 rows of
    the label's six columns)."""
    columns = [field for field in Concept._meta.concrete_fields if not field.primary_key]
    rows = min(BATCH, connection.ops.bulk_batch_size(columns, [Concept()] * BATCH))
    return math.ceil(labels / rows)


def test_labels_are_written_in_batches_whatever_their_number(django_assert_max_num_queries):
    lines = "\n".join(["l0"] + [f"l{n} | | | l{n - 1}" for n in range(1, 2500)])
    # the inserts, the parents' updates and ten more, not two queries a label (5,000)
    with django_assert_max_num_queries(10 + 2 * statements_per_batch_of(2500)):
        assert create_vocabulary("chain", labels=lines).created == 2500
    assert Concept.objects.get(vocabulary__name="chain", name="l2499").parent.name == "l2498"
    tsv = "\n".join(["l0\t\tzero\t"] + [f"l{n}\t\t\tl{max(n - 2, 0)}" for n in range(1, 2500)])
    with django_assert_max_num_queries(10 + 2 * statements_per_batch_of(2500)):
        assert import_concepts(HEADER + tsv, "chain").updated == 1
    assert Concept.objects.get(vocabulary__name="chain", name="l2499").parent.name == "l2497"
