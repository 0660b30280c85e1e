"""Concept pairs: defined one by one (concepts found by name and part of speech, new ones need synonyms), the
seed's 24 loaded once, imported from JSON all or nothing (errors name the entry), deleted; and the command."""
from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from annotation.compositional.models import ConceptPair, LexicalConcept
from annotation.compositional.services.concept_pairs import (
    ConceptPairError,
    delete_pair,
    import_pairs,
    load_seed_pairs,
    save_pair,
)

pytestmark = pytest.mark.django_db


def _state() -> tuple[list[tuple[str, str, list[str]]], list[tuple[str, str, str, str]]]:
    concepts = [(c.name, c.part_of_speech, c.synonyms) for c in LexicalConcept.objects.order_by("pk")]
    pairs = [(p.name, p.kind, p.modifier.name, p.noun.name) for p in ConceptPair.objects.select_related(
        "modifier", "noun").order_by("pk")]
    return concepts, pairs


def test_a_new_pair_defines_its_concepts_with_the_name_first_lowercased_once():
    pair = save_pair(name="Furry_Dog", kind="adjective_noun", modifier="Furry", noun="dog",
                     modifier_synonyms=["fluffy", "FURRY", " hairy  "], noun_synonyms=["dogs", "puppy", "dog"],
                     category="texture", heldout_group="g1")
    assert pair.name == "furry_dog"
    assert (pair.modifier.name, pair.modifier.part_of_speech) == ("furry", "adjective")
    assert pair.modifier.synonyms == ["furry", "fluffy", "hairy"]
    assert (pair.noun.name, pair.noun.part_of_speech, pair.noun.synonyms) == ("dog", "noun", ["dog", "dogs", "puppy"])
    assert (pair.category, pair.heldout_group, pair.source) == ("texture", "g1", "researcher")


def test_a_noun_verb_pair_takes_a_verb_and_an_existing_concept_needs_no_synonyms():
    save_pair(name="eat_man", kind="noun_verb", modifier="eat", noun="man", modifier_synonyms=["eats", "eating"],
              noun_synonyms=["men"])
    pair = save_pair(name="eat_woman", kind="noun_verb", modifier="eat", noun="woman", noun_synonyms=["women"])
    assert (pair.modifier.part_of_speech, pair.modifier.synonyms) == ("verb", ["eat", "eats", "eating"])
    assert LexicalConcept.objects.filter(name="eat").count() == 1
    # "eat" is a verb, not an adjective: an adjective_noun pair does not find it.
    with pytest.raises(ConceptPairError) as refused:
        save_pair(name="eat_dog", kind="adjective_noun", modifier="eat", noun="man")
    assert str(refused.value) == ("modifier: 'eat' is not a defined adjective; give modifier_synonyms to define it "
                                  "(its synonyms, e.g. eat)")
    assert refused.value.field == "modifier"


def test_refusals_name_the_field_and_change_nothing():
    save_pair(name="black_cat", kind="adjective_noun", modifier="black", noun="cat", modifier_synonyms=[],
              noun_synonyms=["cats"])
    before = _state()
    cases = [
        (dict(name="x", kind="noun_adjective", modifier="black", noun="cat"),
         "kind: one of adjective_noun, noun_verb, not 'noun_adjective'"),
        (dict(name=" ", kind="adjective_noun", modifier="black", noun="cat"), "name: a non-empty text is required"),
        (dict(name="black/cat", kind="adjective_noun", modifier="black", noun="cat"),
         "name: letters, digits, _ and - only (as in black_cat), not 'black/cat'"),
        (dict(name="black_kat", kind="adjective_noun", modifier="black", noun="kat"),
         "noun: 'kat' is not a defined noun; give noun_synonyms to define it (its synonyms, e.g. kat)"),
        (dict(name="x", kind="adjective_noun", modifier="black", noun="cat", category="c" * 41),
         "category: at most 40 characters"),
        # The modifier is new and valid, the noun refused: the modifier is not kept either.
        (dict(name="white_kat", kind="adjective_noun", modifier="white", noun="kat", modifier_synonyms=["pale"]),
         "noun: 'kat' is not a defined noun; give noun_synonyms to define it (its synonyms, e.g. kat)"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ConceptPairError) as refused:
            save_pair(**kwargs)  # type: ignore[arg-type]
        assert str(refused.value) == message
        assert refused.value.field == message.split(":")[0]
    assert _state() == before


def test_saving_a_pair_by_its_name_again_updates_it():
    save_pair(name="black_cat", kind="adjective_noun", modifier="black", noun="cat", modifier_synonyms=[],
              noun_synonyms=[])
    pair = save_pair(name="black_cat", kind="adjective_noun", modifier="black", noun="cat",
                     noun_synonyms=["cats", "kitten"], category="colour", heldout_group="1")
    assert ConceptPair.objects.count() == 1
    pair.refresh_from_db()
    assert (pair.category, pair.heldout_group, pair.noun.synonyms) == ("colour", "1", ["cat", "cats", "kitten"])


def test_load_seed_pairs_once():
    assert load_seed_pairs() == 24
    assert load_seed_pairs() == 0
    assert ConceptPair.objects.count() == 24
    assert set(ConceptPair.objects.values_list("source", flat=True)) == {"seed"}
    black_cat = ConceptPair.objects.select_related("modifier", "noun").get(name="black_cat")
    assert (black_cat.kind, black_cat.category, black_cat.heldout_group) == ("adjective_noun", "colour", "1")
    assert black_cat.modifier.synonyms == ["black"]
    assert black_cat.noun.synonyms == ["cat", "feline", "kitten", "tabby"]  # cat.json: the name, then the others sorted
    eat_man = ConceptPair.objects.select_related("modifier", "noun").get(name="eat_man")
    assert (eat_man.kind, eat_man.modifier.part_of_speech, eat_man.noun.part_of_speech) == ("noun_verb", "verb", "noun")
    assert sorted(set(ConceptPair.objects.values_list("category", flat=True))) == [
        "colour", "intransitive", "size", "transitive"]
    assert sorted(set(ConceptPair.objects.values_list("heldout_group", flat=True))) == ["1", "2", "3", "4"]


GOOD = {
    "concepts": [
        {"name": "brown", "part_of_speech": "adjective", "synonyms": ["brown", "Brownish"]},
        {"name": "horse", "part_of_speech": "noun", "synonyms": ["horses", "pony"]},
    ],
    "pairs": [
        {"name": "brown_horse", "kind": "adjective_noun", "modifier": "brown", "noun": "horse", "category": "colour",
         "heldout_group": "x"},
    ],
}


def test_import_pairs_from_a_file(tmp_path):
    path = tmp_path / "pairs.json"
    path.write_text(json.dumps(GOOD))
    assert import_pairs(path) == 1
    pair = ConceptPair.objects.select_related("modifier", "noun").get()
    assert (pair.name, pair.category, pair.heldout_group) == ("brown_horse", "colour", "x")
    assert pair.modifier.synonyms == ["brown", "brownish"] and pair.noun.synonyms == ["horse", "horses", "pony"]
    assert import_pairs(json.dumps(GOOD).encode()) == 1  # again: the same state
    assert ConceptPair.objects.count() == 1 and LexicalConcept.objects.count() == 2


def test_an_import_with_a_bad_entry_imports_nothing_and_names_every_bad_entry():
    bad = json.loads(json.dumps(GOOD))
    bad["concepts"].append({"name": "gallop", "part_of_speech": "verbs", "synonyms": []})
    bad["pairs"] += [
        {"name": "red_horse", "kind": "adjective_noun", "modifier": "red", "noun": "horse"},
        {"name": "brown_horse", "kind": "adjective_noun", "modifier": "brown", "noun": "horse"},
        {"name": "run_horse", "kind": "verb_noun", "modifier": "run", "noun": "horse"},
        "oops",
        {"name": "x", "kind": "noun_verb", "modifier": "run", "noun": "horse", "colour": "red"},
    ]
    with pytest.raises(ConceptPairError) as refused:
        import_pairs(json.dumps(bad).encode())
    assert refused.value.errors == [
        "concepts[2] (gallop): part_of_speech: one of adjective, noun, verb, not 'verbs'",
        "pairs[1] (red_horse): modifier: 'red' is not a defined adjective; give modifier_synonyms to define it "
        "(its synonyms, e.g. red)",
        "pairs[2] (brown_horse): the pair brown_horse is defined twice in the file",
        "pairs[3] (run_horse): kind: one of adjective_noun, noun_verb, not 'verb_noun'",
        "pairs[4]: an object {name, kind, modifier, noun, category, heldout_group} is required",
        "pairs[5] (x): unknown field(s) colour",
    ]
    assert not LexicalConcept.objects.exists() and not ConceptPair.objects.exists()


@pytest.mark.parametrize("content, message", [
    (b"{", "the file: malformed JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    (b"[]", 'the file must hold an object {"concepts": [...], "pairs": [...]}'),
    (b'{"pair": []}', 'unknown key(s) pair: the file holds "concepts" and "pairs"'),
    (b'{"pairs": {}}', "pairs: a list is required"),
    (b'{"pairs": [{"name": "black_cat", "kind": "adjective_noun", "kind": "noun_verb"}]}',
     'the file: $.pairs[0]: the key "kind" is given twice'),
])
def test_an_unreadable_file_is_refused(content, message):
    with pytest.raises(ConceptPairError) as refused:
        import_pairs(content)
    assert str(refused.value) == message


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(ConceptPairError, match=r"nothing\.json: cannot be read \(No such file or directory\)"):
        import_pairs(tmp_path / "nothing.json")


def test_delete_pair_keeps_its_concepts():
    pair = save_pair(name="black_cat", kind="adjective_noun", modifier="black", noun="cat", modifier_synonyms=[],
                     noun_synonyms=[])
    delete_pair(pair)
    assert not ConceptPair.objects.exists() and LexicalConcept.objects.count() == 2


def test_command(tmp_path, capsys):
    call_command("manage_concept_pairs", "load-seed")
    assert capsys.readouterr().out == "24 new seed pair(s); 24 pair(s) defined\n"
    call_command("manage_concept_pairs", "add", "furry_cat", "--kind", "adjective_noun", "--modifier", "furry",
                 "--noun", "cat", "--modifier-synonyms", "fluffy, Hairy", "--category", "texture", "--group", "5")
    out = capsys.readouterr().out
    assert out.startswith("pair furry_cat added: furry (furry, fluffy, hairy) + cat (cat, ")
    pair = ConceptPair.objects.get(name="furry_cat")
    assert (pair.category, pair.heldout_group) == ("texture", "5")
    with pytest.raises(CommandError, match="^noun: 'kat' is not a defined noun"):
        call_command("manage_concept_pairs", "add", "furry_kat", "--kind", "adjective_noun", "--modifier", "furry",
                     "--noun", "kat")
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"pairs": [{"name": "a", "kind": "x"}, {"name": "b", "kind": "y"}]}))
    with pytest.raises(CommandError) as refused:
        call_command("manage_concept_pairs", "import", str(path))
    assert str(refused.value).splitlines() == ["pairs[0] (a): kind: one of adjective_noun, noun_verb, not 'x'",
                                               "pairs[1] (b): kind: one of adjective_noun, noun_verb, not 'y'"]
    path.write_text(json.dumps(GOOD))
    call_command("manage_concept_pairs", "import", str(path))
    assert capsys.readouterr().out == f"1 pair(s) imported from {path}\n"
    call_command("manage_concept_pairs", "delete", "furry_cat")
    assert not ConceptPair.objects.filter(name="furry_cat").exists()
    with pytest.raises(CommandError, match="^no concept pair named 'furry_cat'$"):
        call_command("manage_concept_pairs", "delete", "furry_cat")
    assert ConceptPair.objects.count() == 25
