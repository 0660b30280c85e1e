"""Importing a concept vocabulary: the concepts.tsv format, the service and `manage.py import_concepts`."""
from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Concept, Vocabulary
from annotation.services.concepts import ConceptImportError, concepts_tsv, import_concepts, parse_concepts

pytestmark = pytest.mark.django_db

HEADER = "name\tsynset\tsynonyms\tparent\n"
GOOD = (
    HEADER
    + "# people\n"
    + "woman\twoman.n.01\tlady; female person\tperson\n"
    + "\n"
    + "person\tperson.n.01\t\t\n"
    + "dog\tdog.n.01\tpuppy;;\tanimal\n"
    + "animal\tanimal.n.01\t\t\n"
)


def run(*args) -> str:
    out = StringIO()
    call_command("import_concepts", *map(str, args), stdout=out, stderr=out)
    return out.getvalue()


def state() -> tuple:
    """Everything an import may change."""
    concepts = tuple(Concept.objects.order_by("vocabulary__name", "name")
                     .values_list("name", "synset", "synonyms", "parent__name"))
    vocabularies = tuple((v.name, tuple(v.concepts.filter(offered=True).order_by("name")
                                        .values_list("name", flat=True)))
                         for v in Vocabulary.objects.order_by("name"))
    return concepts, vocabularies


def write(tmp_path, text: str, name: str = "street.tsv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_import_creates_concepts_parents_and_vocabulary_named_after_the_file(tmp_path):
    output = run(write(tmp_path, GOOD))
    assert output.strip() == "Vocabulary 'street': 4 concepts (4 new, 0 updated)"
    assert state() == (
        (("animal", "animal.n.01", [], None),
         ("dog", "dog.n.01", ["puppy"], "animal"),
         ("person", "person.n.01", [], None),
         ("woman", "woman.n.01", ["lady", "female person"], "person")),
        (("street", ("animal", "dog", "person", "woman")),),
    )


def test_vocabulary_option_names_the_vocabulary(tmp_path):
    output = run(write(tmp_path, GOOD), "--vocabulary", "Flickr30k people")
    assert output.startswith("Vocabulary 'Flickr30k people': 4 concepts")
    assert list(Vocabulary.objects.values_list("name", flat=True)) == ["Flickr30k people"]


def test_crlf_header_case_and_spaces_around_cells_are_accepted(tmp_path):
    text = "Name\tSynset\tSynonyms\tParent\r\n woman \twoman.n.01\t lady ;girl \t\r\n"
    run(write(tmp_path, text))
    assert list(Concept.objects.values_list("name", "synset", "synonyms")) == [
        ("woman", "woman.n.01", ["lady", "girl"])]


def test_parent_may_be_a_label_the_vocabulary_already_has(tmp_path):
    run(write(tmp_path, HEADER + "animal\tanimal.n.01\t\t\n"))
    run(write(tmp_path, HEADER + "dog\tdog.n.01\t\tanimal\n"))
    assert Concept.objects.get(name="dog").parent.name == "animal"
    # The parent stays in the vocabulary (for the hierarchy) but is no longer offered to workers.
    assert state()[1] == (("street", ("dog",)),)
    assert Concept.objects.get(name="animal").offered is False


def test_a_parent_of_another_vocabulary_is_unknown(tmp_path):
    run(write(tmp_path, HEADER + "animal\tanimal.n.01\t\t\n"), "--vocabulary", "other")
    with pytest.raises(CommandError, match="unknown parent concept 'animal'"):
        run(write(tmp_path, HEADER + "dog\tdog.n.01\t\tanimal\n"))


def test_reimport_updates_synonyms_parent_and_membership(tmp_path):
    run(write(tmp_path, GOOD))
    woman_pk = Concept.objects.get(name="woman").pk
    changed = (HEADER
               + "woman\twoman.n.01\tlady\t\n"  # fewer synonyms, no parent any more
               + "dog\tdog.n.01\tpuppy\tanimal\n"  # unchanged
               + "animal\tanimal.n.01\t\t\n"  # unchanged
               + "cat\tcat.n.01\tkitty\tanimal\n")  # new
    output = run(write(tmp_path, changed))
    assert output.strip() == "Vocabulary 'street': 4 concepts (1 new, 1 updated)"
    woman = Concept.objects.get(name="woman")
    assert (woman.pk, woman.synonyms, woman.parent) == (woman_pk, ["lady"], None)
    # "person" is no longer offered but is not deleted (boxes may use it).
    assert state()[1] == (("street", ("animal", "cat", "dog", "woman")),)
    assert Concept.objects.get(name="person").offered is False
    run(write(tmp_path, GOOD))
    assert Concept.objects.get(name="person").offered is True


def test_the_same_label_in_two_vocabularies_is_two_labels(tmp_path):
    run(write(tmp_path, GOOD), "--vocabulary", "one")
    one = state()
    output = run(write(tmp_path, HEADER + "dog\tdog.n.02\thound\t\nperson\tperson.n.01\thuman\t\n"),
                 "--vocabulary", "two")
    assert output.strip() == "Vocabulary 'two': 2 concepts (2 new, 0 updated)"
    assert Concept.objects.count() == 6
    assert Concept.objects.filter(vocabulary__name="one").count() == 4
    assert state()[1] == (("one", ("animal", "dog", "person", "woman")), ("two", ("dog", "person")))
    # vocabulary one's labels, synonyms and hierarchy are as they were
    assert [row for row in state()[0] if row in one[0]] == list(one[0])
    assert Concept.objects.get(vocabulary__name="one", name="dog").synset == "dog.n.01"
    assert Concept.objects.get(vocabulary__name="one", name="dog").parent.name == "animal"
    assert Concept.objects.get(vocabulary__name="two", name="dog").parent is None


def test_reimporting_one_vocabulary_leaves_the_other_alone(tmp_path):
    run(write(tmp_path, GOOD), "--vocabulary", "demo")
    run(write(tmp_path, GOOD), "--vocabulary", "mine")
    demo = list(Concept.objects.filter(vocabulary__name="demo").order_by("name")
                .values_list("pk", "name", "synset", "synonyms", "parent__name", "offered"))
    output = run(write(tmp_path, HEADER + "person\tperson.n.01\thuman; kid\t\n"), "--vocabulary", "mine")
    assert output.strip() == "Vocabulary 'mine': 1 concepts (0 new, 1 updated)"
    assert list(Concept.objects.filter(vocabulary__name="demo").order_by("name")
                .values_list("pk", "name", "synset", "synonyms", "parent__name", "offered")) == demo


@pytest.mark.parametrize(
    ("text", "errors"),
    [
        ("name\tsynset\tsynonyms\n", ["street.tsv line 1: expected the header name / synset / synonyms / parent "
                                      "(tab-separated)"]),
        ("name,synset,synonyms,parent\nwoman,woman.n.01,,\n",
         ["street.tsv line 1: expected the header name / synset / synonyms / parent (tab-separated)"]),
        ("", ["street.tsv line 1: expected the header name / synset / synonyms / parent (tab-separated)"]),
        (HEADER + "woman\twoman.n.01\tlady\n", ["street.tsv line 2: expected 4 tab-separated columns, found 3"]),
        (HEADER + "dog\tdog.n.01\t\t\t\n", ["street.tsv line 2: expected 4 tab-separated columns, found 5"]),
        (HEADER + "woman\twoman\t\t\n",
         ["street.tsv line 2: 'woman' is not a WordNet synset id like woman.n.01"]),
        (HEADER + "woman\twoman.x.01\t\t\n",
         ["street.tsv line 2: 'woman.x.01' is not a WordNet synset id like woman.n.01"]),
        (HEADER + "woman\twoman.n.1\t\t\n",
         ["street.tsv line 2: 'woman.n.1' is not a WordNet synset id like woman.n.01"]),
        (HEADER + "woman\twoman.n.01\t\t\n\nwoman\twoman.n.02\t\t\n",
         ["street.tsv line 4: concept 'woman' is already defined on line 2"]),
        (HEADER + "woman\twoman.n.01\t\thuman\n", ["street.tsv line 2: unknown parent concept 'human'"]),
        (HEADER + "woman\twoman.n.01\t\twoman\n", ["street.tsv line 2: 'woman' cannot be its own parent"]),
        (HEADER + "\twoman.n.01\t\t\n", ["street.tsv line 2: the concept name is empty"]),
        (HEADER, ["street.tsv: no concepts (only the header)"]),
        (HEADER + "\n", ["street.tsv: no concepts (only the header)"]),
        (HEADER + "wo\x00man\twoman.n.01\t\t\n", ["street.tsv line 2: the name holds a NUL character (\\u0000)"]),
        (HEADER + "woman\twoman.n.01\tla\x00dy\t\n",
         ["street.tsv line 2: the synonyms hold a NUL character (\\u0000)"]),
        (HEADER + "w" * 101 + "\twoman.n.01\t\t\n",
         ["street.tsv line 2: the name is 101 characters long (at most 100)"]),
        (HEADER + "woman\t" + "w" * 100 + ".n.01\t\t\n",
         ["street.tsv line 2: the synset is 105 characters long (at most 100)"]),
        (HEADER + "woman\twoman\t\t\ndog\tdog.n.01\n" + "cat\tcat.n.01\t\tpet\n",
         ["street.tsv line 2: 'woman' is not a WordNet synset id like woman.n.01",
          "street.tsv line 3: expected 4 tab-separated columns, found 2",
          "street.tsv line 4: unknown parent concept 'pet'"]),
    ],
)
def test_errors_name_the_line_and_change_nothing(tmp_path, text, errors):
    run(write(tmp_path, GOOD))
    before = state()
    with pytest.raises(CommandError) as caught:
        run(write(tmp_path, text))
    assert str(caught.value).splitlines() == errors
    assert state() == before
    with pytest.raises(ConceptImportError) as caught:
        import_concepts(text, "other", source="street.tsv")
    assert caught.value.errors == errors
    assert state() == before


def test_a_lone_surrogate_is_refused_naming_the_line():
    with pytest.raises(ConceptImportError) as caught:
        import_concepts(HEADER + "woman\twoman.n.01\t\tper\udc80son\n", "street", source="street.tsv")
    assert caught.value.errors == ["street.tsv line 2: the parent holds a lone surrogate (\\ud800-\\udfff)"]
    assert state() == ((), ())


@pytest.mark.parametrize("name", ["v" * 101, "voc\x00ab", "voc\udc80ab"])
def test_a_vocabulary_name_that_cannot_be_stored_is_refused(tmp_path, name):
    with pytest.raises(CommandError, match="the vocabulary name"):
        run(write(tmp_path, GOOD), "--vocabulary", name)
    assert state() == ((), ())


def test_a_good_line_before_a_bad_one_is_not_imported(tmp_path):
    with pytest.raises(CommandError, match="line 3"):
        run(write(tmp_path, HEADER + "cat\tcat.n.01\t\t\ndog\tdog.n.01\t\tpet\n"))
    assert state() == ((), ())


def test_unreadable_files_are_refused(tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        run(tmp_path / "missing.tsv")
    bad = tmp_path / "latin1.tsv"
    bad.write_bytes(HEADER.encode() + "caf\xe9\tcafe.n.01\t\t\n".encode("latin-1"))
    with pytest.raises(CommandError, match="cannot read"):
        run(bad)
    assert state() == ((), ())


def test_concepts_tsv_round_trips(tmp_path):
    run(write(tmp_path, GOOD))
    concepts = list(Concept.objects.order_by("name"))
    text = concepts_tsv(concepts)
    assert text.splitlines()[0] == "name\tsynset\tsynonyms\tparent"
    assert "woman\twoman.n.01\tlady;female person\tperson" in text.splitlines()
    rows = parse_concepts(text)
    assert [(r.name, r.synset, r.synonyms, r.parent) for r in rows] == [
        ("animal", "animal.n.01", (), ""),
        ("dog", "dog.n.01", ("puppy",), "animal"),
        ("person", "person.n.01", (), ""),
        ("woman", "woman.n.01", ("lady", "female person"), "person"),
    ]
    before = state()
    result = import_concepts(text, "street")
    assert (result.created, result.updated) == (0, 0)
    assert state() == before


def test_a_parent_cycle_is_refused(tmp_path):
    with pytest.raises(CommandError) as caught:
        run(write(tmp_path, HEADER + "a\t\t\tb\nb\t\t\ta\n"))
    assert "cycle" in str(caught.value) and "line 2" in str(caught.value)
    assert state() == ((), ())
