"""The held-out split rule (metrics.compositional.splits) and the occurrence table, on hand-made matches."""
from __future__ import annotations

import random

import pytest

from metrics.compositional.occurrence_files import count_occurrences, occurrences_json, occurrences_tsv, sort_key
from metrics.compositional.splits import SEEDED, SUBSETS, split_images
from metrics.compositional.types import ADJECTIVE_NOUN, NOUN_VERB, ConceptPair, ImageCaptions, LexicalConcept

NONE: frozenset[str] = frozenset()


def image(key: str, *captions: set[str], subset: str = "") -> ImageCaptions:
    return ImageCaptions(key, subset, tuple(frozenset(c) for c in captions))


def concept(name: str, pos: str, *synonyms: str) -> LexicalConcept:
    return LexicalConcept(name, pos, frozenset({name, *synonyms}))


BLACK_CAT = ConceptPair("black_cat", ADJECTIVE_NOUN, concept("black", "adjective"), concept("cat", "noun", "kitten"),
                        "colour", "1")
EAT_MAN = ConceptPair("eat_man", NOUN_VERB, concept("eat", "verb"), concept("man", "noun", "men"), "transitive", "1")

CORPUS = [
    image("1", {"black_cat"}, set(), set()),  # one caption of three contains black_cat
    image("2", set(), set()),  # neither pair
    image("3", {"eat_man"}, {"eat_man"}),  # eat_man twice
    image("4", {"black_cat", "eat_man"}, set()),  # both pairs in one caption
    image("5", set(), {"white_dog"}),  # only a pair that is not held out
]


def test_seeded_split_holds_out_every_matching_image_of_a_group():
    split = split_images(CORPUS, ["black_cat", "eat_man"], seed="s")
    assert split.mode == SEEDED
    assert split.train == ["2", "5"]
    assert sorted(split.val + split.eval) == ["1", "3", "4"]
    assert not set(split.val) & set(split.eval)
    assert split.unused == []
    # each pair's images, wherever the seed put them
    assert sorted(split.val_by_pair["black_cat"] + split.eval_by_pair["black_cat"]) == ["1", "4"]
    assert sorted(split.val_by_pair["eat_man"] + split.eval_by_pair["eat_man"]) == ["3", "4"]


def test_one_pair_held_out_leaves_the_other_pairs_images_in_train():
    split = split_images(CORPUS, ["black_cat"])
    assert split.train == ["2", "3", "5"]  # 3 has eat_man only: not held out here
    assert sorted(split.val + split.eval) == ["1", "4"]


def test_invariants_no_train_image_matches_and_every_val_and_eval_image_does():
    rng = random.Random(7)
    names = ["black_cat", "eat_man", "white_dog"]
    corpus = [image(str(n), *({name for name in names if rng.random() < 0.1} for _ in range(5)))
              for n in range(500)]
    for heldout in (["black_cat"], ["black_cat", "eat_man"]):
        split = split_images(corpus, heldout, seed="x")
        by_key = {i.key: i for i in corpus}
        assert all(not any(by_key[k].count(p) for p in heldout) for k in split.train)
        assert all(any(by_key[k].count(p) for p in heldout) for k in split.val + split.eval)
        assert sorted(split.train + split.val + split.eval, key=int) == [i.key for i in corpus]
        assert split.val and split.eval  # about 40 % of 500 images match: both sides get some


def test_coco_subsets_decide_val_and_eval():
    corpus = [
        image("10", {"black_cat"}, subset="val2014"),  # match in val2014 -> D_eval
        image("11", set(), subset="val2014"),  # no match in val2014 -> no split
        image("12", {"black_cat"}, subset="train2014"),  # match in train2014 -> D_val
        image("13", set(), subset="train2014"),  # -> D_train
        image("14", {"eat_man"}, subset="train2014"),  # a pair not held out -> D_train
    ]
    split = split_images(corpus, ["black_cat"], seed="ignored")
    assert split.mode == SUBSETS
    assert (split.train, split.val, split.eval, split.unused) == (["13", "14"], ["12"], ["10"], ["11"])
    assert split.eval_by_pair == {"black_cat": ["10"]} and split.val_by_pair == {"black_cat": ["12"]}
    # the seed does not matter with subsets
    assert split_images(corpus, ["black_cat"], seed="other").eval == ["10"]


def test_same_seed_same_split_whatever_the_order_different_seeds_differ():
    corpus = [image(str(n), {"black_cat"} if n % 2 else set()) for n in range(200)]
    first = split_images(corpus, ["black_cat"], seed="a")
    shuffled = list(corpus)
    random.Random(1).shuffle(shuffled)
    again = split_images(shuffled, ["black_cat"], seed="a")
    assert sorted(first.eval) == sorted(again.eval) and sorted(first.val) == sorted(again.val)
    other = split_images(corpus, ["black_cat"], seed="b")
    assert set(other.eval) != set(first.eval)
    assert other.train == first.train  # the seed only moves matching images between D_val and D_eval


def test_eval_share_moves_images_from_val_to_eval():
    corpus = [image(str(n), {"black_cat"}) for n in range(200)]
    small = split_images(corpus, ["black_cat"], seed="a", eval_share=0.1)
    large = split_images(corpus, ["black_cat"], seed="a", eval_share=0.9)
    # the same hash, a higher threshold: every image in D_eval at 0.1 is in D_eval at 0.9
    assert set(small.eval) < set(large.eval)


@pytest.mark.parametrize("share", [0, 1, 1.5, -0.1])
def test_eval_share_outside_0_1_is_refused(share):
    with pytest.raises(ValueError, match="eval_share"):
        split_images(CORPUS, ["black_cat"], eval_share=share)


def test_no_pair_is_refused():
    with pytest.raises(ValueError, match="no held-out pair"):
        split_images(CORPUS, [])


def test_occurrence_counts_by_pair_and_image():
    split = split_images(CORPUS, ["black_cat", "eat_man"], seed="s")
    mentions = {"1": {"black_cat": (3, 1)}, "2": {"black_cat": (1, 0)}, "4": {"black_cat": (1, 1), "eat_man": (2, 1)}}
    rows = count_occurrences(CORPUS, split, [BLACK_CAT, EAT_MAN], mentions)
    cat, man = rows
    assert cat.captions == 2 and dict(cat.by_count) == {1: 2} and cat.mean_per_image == 1.0
    assert man.captions == 3 and dict(man.by_count) == {2: 1, 1: 1} and man.mean_per_image == 1.5
    assert cat.noun_images == 3 and cat.modifier_images == 2 and man.noun_images == 1 and man.modifier_images == 1
    assert sum(cat.images.values()) == 2 and cat.images["train"] == 0
    assert cat.occurrence_data["1"] == {"pair_occurrences": 1, "adjective_occurrences": 1, "noun_occurrences": 3,
                                        "coco_split": "", "split": split.split_of()["1"]}
    assert cat.occurrence_data["2"]["split"] == "train" and cat.occurrence_data["2"]["pair_occurrences"] == 0
    assert set(cat.occurrence_data) == {"1", "2", "4"}  # image 5 mentions nothing of black_cat
    assert man.occurrence_data["3"] == {"pair_occurrences": 2, "verb_occurrences": 0, "noun_occurrences": 0,
                                        "coco_split": "", "split": split.split_of()["3"]}
    data = occurrences_json(rows, parser="p", split=split)
    assert data["pairs"]["black_cat"]["adjectives"] == ["black"]
    assert data["pairs"]["eat_man"]["verbs"] == ["eat"] and data["pairs"]["eat_man"]["nouns"] == ["man", "men"]
    assert data["pairs"]["eat_man"]["by_count"] == {"1": 1, "2": 1}
    table = occurrences_tsv(rows).splitlines()
    assert table[0].split("\t")[:5] == ["pair", "kind", "category", "heldout_group", "images"]
    assert table[2].split("\t")[8:15] == ["3", "1", "1", "0", "0", "0", "1.5000"]  # captions, images_1..5+, mean


def test_image_keys_sort_coco_ids_numerically_then_text():
    assert sorted(["b", "100", "9", "a"], key=sort_key) == ["9", "100", "a", "b"]
