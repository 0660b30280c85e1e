"""The seed's concepts and pairs, shipped as data with attribution."""
from __future__ import annotations

import hashlib
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
    assert index["verb", "eat"].synonyms == {"eat", "chew", "bite", "graze"}
    assert index["noun", "cat"].synonyms == {"cat", "kitten", "feline", "tabby"}
    assert {"brother", "groom", "male", "policeman", "serviceman"} <= index["noun", "man"].synonyms
    assert {"bride", "female", "sister"} <= index["noun", "woman"].synonyms
    assert "air plane" in index["noun", "plane"].synonyms
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


# The git blob ids of data/synonyms/<path> in github.com/mitjanikolaus/compositional-image-captioning at commit
# 6b7314076ef36b36368bbc33a5a1bc00f0fc413e ("Update dataset splits", the commit of the released
# dataset_splits_1..4.json): `git ls-tree -r 6b7314076ef36b36368bbc33a5a1bc00f0fc413e data/synonyms`.
AUTHORS_BLOBS = {
    "adjectives/big.json": "85fa074a25d0424344843f8a26a83724ef704080",
    "adjectives/black.json": "c5cd22c6d21e2d647f40557b51783bd1765b27d1",
    "adjectives/blue.json": "56fc7d3daa28c072562904d071d8d956d0b48af5",
    "adjectives/brown.json": "0f09133c5cdc9d9a1333485bf85e022dd727f6d1",
    "adjectives/fluffy.json": "a97a84c877975e6a80e6d851929f190de097e41d",
    "adjectives/green.json": "d95dcd2fbbfa1691feed7c6d72377587cc2cdc35",
    "adjectives/old.json": "5eea89bf0bea1ea7dcffbcd2c2b696a1934202cd",
    "adjectives/orange.json": "65fb56a59131055f7b885f62a15f2938940c1fb2",
    "adjectives/red.json": "d3d6ab43a13f2068907748ed4a779d3ef0eb8844",
    "adjectives/small.json": "f6575327d9f50cf69adf8907c4e61bcbdba637e7",
    "adjectives/white.json": "1b7216a854b4092310cee940442d0d503ac186dd",
    "adjectives/wooden.json": "4a65b2a437eafcba1c9a6aa4f4467db6ece313a7",
    "adjectives/young.json": "7c2cf2322992dc81b7be7cd382bd68fd203e223f",
    "nouns/backpack.json": "fa6214686b845886908d0a88acff8099f9fe14a2",
    "nouns/bench.json": "537eedc30c5546b86fa500e2b3c5d4c0a4239010",
    "nouns/bird.json": "aa0c036ad557dbcd415d6c61e900a961fe098668",
    "nouns/boat.json": "741686c282bea52dc567fef75f76035a77de3154",
    "nouns/bus.json": "443e07c682ef7198fcf5c88e8af214a8cef02b23",
    "nouns/car.json": "4eabc4a66c03ff969e2ce9c828ad9d8543ee2d55",
    "nouns/cat.json": "c7c1cc3834792ed83cccfbf064c82223e240bdb3",
    "nouns/chair.json": "f7e179b05cbe01336ac7aa0d99120461d853e84d",
    "nouns/child.json": "013e8558e3eca10e03612502a727da2aeb2fb8f7",
    "nouns/couch.json": "2595a3adf59df62567315178af04c9e0aec804b5",
    "nouns/dog.json": "d6505261b3bda1d8f1a1ad5249205019c4c597e4",
    "nouns/horse.json": "c344a5ec80b6774c19bf586611cc9fbd847a6adf",
    "nouns/man.json": "c297993ca310f02e6a7ad8049fe0df2b108b5293",
    "nouns/plane.json": "fc75eb480f58a258550141771f3692cecb59203a",
    "nouns/suitcase.json": "d30fbb4e7bd52493da35d4e826232f62e992a34a",
    "nouns/table.json": "0c0eef3e737f611d1f50effcae0cd2944fd09727",
    "nouns/truck.json": "bcd8e1b73b8b9bfeb578decc26cb899329b53835",
    "nouns/woman.json": "05e6e9d8008ac21fdcd7dbd8fac54266655b4e2d",
    "verbs/eat.json": "b304170d365e411051bc5b5578330bcbfd454aee",
    "verbs/fly.json": "96b300dd663f35df03eb0050b0003fd116f88de2",
    "verbs/hold.json": "b7b2d2267cd3b16e622d29aa9718bf42e4c235ab",
    "verbs/jump.json": "814cdc9383f90630e2dc26823957d8a72b4e2a06",
    "verbs/lie.json": "260ac44b5ee8a305670b7eedef0188b540eaf2e7",
    "verbs/ride.json": "f38bb3e10e045726aed9de35e0b9c3e266f8d774",
    "verbs/sit.json": "e4e82ff897d1e77e73ab77adc9a945122a73db31",
    "verbs/sleep.json": "8ca3e715e9135a2deeac1a64f030de4ae2447339",
    "verbs/smile.json": "dbd27a6664329d53aee4e1d501dba2e3defe8560",
    "verbs/stand.json": "542406f1c5f24db6502106c782f5571095bd0ea2",
    "verbs/surf.json": "0d177caf23c610fcaf70d93919aa26aed837f3fa",
    "verbs/walk.json": "03d19e1693913683e14e5a1de0c4e729f6d020c7",
    "verbs/wear.json": "072a7b08f634eab3f8ce97de913796474f05cac7",
}


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def test_the_git_blob_id_is_computed_as_git_does():
    # `printf 'hello\n' | git hash-object --stdin`
    assert git_blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"


def test_every_synonym_file_is_the_authors_file_at_the_splits_commit():
    shipped = {path.relative_to(seed.SYNONYMS_DIR).as_posix(): git_blob_id(path.read_bytes())
               for path in seed.SYNONYMS_DIR.glob("*/*.json")}
    assert shipped == AUTHORS_BLOBS
