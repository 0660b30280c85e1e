"""The seed's concepts and pairs, shipped as data with attribution."""
from __future__ import annotations

import json
from collections import Counter

from metrics.compositional import seed
from metrics.compositional.seed import concept_index, heldout_groups, seed_concepts, seed_pairs
from metrics.compositional.types import ADJECTIVE_NOUN, NOUN_VERB


def test_the_24_pairs_of_table_1_in_4_groups_of_6():
    pairs = seed_pairs()
    assert len(pairs) == 24 and len({p.name for p in pairs}) == 24
    assert heldout_groups() == {
        "1": ["black_cat", "big_bird", "red_bus", "small_plane", "eat_man", "lie_woman"],
        "2": ["brown_dog", "small_cat", "white_truck", "big_plane", "ride_woman", "fly_bird"],
        "3": ["white_horse", "big_cat", "blue_bus", "small_table", "hold_child", "stand_bird"],
        "4": ["black_bird", "small_dog", "white_boat", "big_truck", "eat_horse", "stand_child"],
    }


def test_kinds_and_categories():
    by_name = {p.name: p for p in seed_pairs()}
    assert Counter(p.kind for p in by_name.values()) == {ADJECTIVE_NOUN: 16, NOUN_VERB: 8}
    assert Counter(p.category for p in by_name.values()) == {"colour": 8, "size": 8, "transitive": 4,
                                                              "intransitive": 4}
    black_cat, eat_man = by_name["black_cat"], by_name["eat_man"]
    assert (black_cat.kind, black_cat.modifier.name, black_cat.noun.name) == (ADJECTIVE_NOUN, "black", "cat")
    assert (eat_man.kind, eat_man.modifier.name, eat_man.noun.name) == (NOUN_VERB, "eat", "man")
    assert eat_man.modifier.part_of_speech == "verb" and eat_man.noun.part_of_speech == "noun"
    assert {p.modifier.name for p in by_name.values() if p.category == "transitive"} == {"eat", "ride", "hold"}
    assert {p.modifier.name for p in by_name.values() if p.category == "intransitive"} == {"lie", "fly", "stand"}


def test_concepts_are_the_shipped_synonym_sets():
    concepts = seed_concepts()
    assert Counter(c.part_of_speech for c in concepts) == {"adjective": 13, "noun": 18, "verb": 13}
    index = concept_index()
    assert index["verb", "eat"].synonyms == {"eat", "chew", "bite"}
    assert "kitten" in index["noun", "cat"].synonyms and "air plane" in index["noun", "plane"].synonyms
    assert index["adjective", "white"].synonyms == {"white"}


def test_every_synonym_file_starts_with_its_concept_name():
    files = sorted(seed.SYNONYMS_DIR.glob("*/*.json"))
    assert len(files) == 44
    for path in files:
        data = json.loads(path.read_text())
        assert data[0] == path.stem, path


def test_attribution_ships_with_the_data():
    license_text = (seed.DATA_DIR / "LICENSE").read_text()
    assert "Copyright 2019 Mitja Nikolaus" in license_text and "Apache License, Version 2.0" in license_text
    notice = (seed.DATA_DIR / "NOTICE.md").read_text()
    assert "mitjanikolaus/compositional-image-captioning" in notice and "unmodified" in notice
    for path in seed.SYNONYMS_DIR.glob("*/*.json"):
        assert f"`synonyms/{path.parent.name}/{path.name}`" in notice, path


def test_a_synonym_file_whose_first_entry_is_not_its_name_is_refused(tmp_path):
    bad = tmp_path / "cat.json"
    bad.write_text('["kitten", "cat"]')
    try:
        seed.load_synonym_file(bad, "noun")
    except seed.SeedDataError as error:
        assert "cat.json" in str(error) and "kitten" in str(error)
    else:
        raise AssertionError("accepted")
