"""Recall@K of held-out pairs (hand-checked figures) and the caption metrics beside it."""
from __future__ import annotations

import shutil

import pytest

from metrics.compositional.recall import caption_metrics, caption_tokens, compositional_recall
from metrics.compositional.types import ADJECTIVE_NOUN, ConceptPair, ImageCaptions, LexicalConcept
from metrics.meteor import Meteor


def concept(name: str, pos: str) -> LexicalConcept:
    return LexicalConcept(name, pos, frozenset({name}))


def pair(modifier: str, noun: str, category: str) -> ConceptPair:
    return ConceptPair(f"{modifier}_{noun}", ADJECTIVE_NOUN, concept(modifier, "adjective"), concept(noun, "noun"),
                       category=category, heldout_group="g")


PAIRS = [pair("black", "cat", "colour"), pair("white", "dog", "colour"), pair("big", "dog", "size")]
NONE: frozenset[str] = frozenset()
BLACK_CAT, WHITE_DOG = frozenset({"black_cat"}), frozenset({"white_dog"})


def references(key: str, name: str, containing: int, captions: int = 5) -> ImageCaptions:
    names = frozenset({name})
    return ImageCaptions(key, "val2014", tuple(names if i < containing else NONE for i in range(captions)))


# a..d hold black_cat in 1, 3, 5 and 2 of their 5 references; e and f hold white_dog in 1 and 4; no image for big_dog
REFERENCES = [references("a", "black_cat", 1), references("b", "black_cat", 3), references("c", "black_cat", 5),
              references("d", "black_cat", 2), references("e", "white_dog", 1), references("f", "white_dog", 4)]
EVAL_BY_PAIR = {"black_cat": ["a", "b", "c", "d"], "white_dog": ["e", "f"], "big_dog": []}
GENERATED = {
    "a": [NONE, BLACK_CAT],        # second caption: recalled at K >= 2
    "b": [NONE, NONE, BLACK_CAT],  # third caption: recalled at K >= 3
    "c": [BLACK_CAT],              # a single caption, recalled
    "d": [WHITE_DOG],              # the other pair: not black_cat
    "e": [WHITE_DOG, NONE],
    "f": [NONE, NONE],
}


def test_recall_per_pair_category_average_and_agreement():
    report = compositional_recall(GENERATED, REFERENCES, PAIRS, EVAL_BY_PAIR, k=2)
    black, white, big = report.pairs
    assert (black.overall.images, black.overall.hits, black.overall.recall) == (4, 2, 0.5)  # a and c
    assert (white.overall.images, white.overall.hits, white.overall.recall) == (2, 1, 0.5)  # e
    assert (big.overall.images, big.overall.recall) == (0, None)  # no image: no recall, not 0
    # black_cat: at least n references hold it: n=1 a,b,c,d; n=2 b,c,d; n=3 b,c; n=4 c; n=5 c (hits: a and c)
    assert [(f.images, f.hits) for f in black.by_agreement] == [(4, 2), (3, 1), (2, 1), (1, 1), (1, 1)]
    assert [f.recall for f in white.by_agreement] == [0.5, 0.0, 0.0, 0.0, None]
    assert report.categories["colour"].recall == 0.5 and report.categories["colour"].pairs == 2
    assert report.categories["size"].recall is None and report.categories["size"].images == 0
    assert (report.average.recall, report.average.pairs, report.average.images) == (0.5, 2, 6)
    assert [m.recall for m in report.by_agreement] == pytest.approx([0.5, (1 / 3 + 0) / 2, 0.25, 0.5, 1.0])
    assert [m.pairs for m in report.by_agreement] == [2, 2, 2, 2, 1]


def test_k_limits_the_captions_read():
    assert compositional_recall(GENERATED, REFERENCES, PAIRS, EVAL_BY_PAIR, k=3).pairs[0].overall.hits == 3  # + b
    assert compositional_recall(GENERATED, REFERENCES, PAIRS, EVAL_BY_PAIR, k=1).pairs[0].overall.hits == 1  # c


def test_json_shape():
    data = compositional_recall(GENERATED, REFERENCES, PAIRS, EVAL_BY_PAIR, k=2).to_json()
    assert data["pairs"][0]["recall"] == 0.5 and data["pairs"][0]["category"] == "colour"
    assert data["pairs"][2]["by_agreement"][0] == {"n": 1, "images": 0, "hits": 0, "recall": None}
    assert data["categories"] == [{"category": "colour", "recall": 0.5, "pairs": 2, "images": 6},
                                  {"category": "size", "recall": None, "pairs": 0, "images": 0}]


def test_missing_generated_or_references_is_an_error():
    with pytest.raises(ValueError, match="evaluation image 'f' has no generated caption"):
        compositional_recall({k: v for k, v in GENERATED.items() if k != "f"}, REFERENCES, PAIRS, EVAL_BY_PAIR)
    with pytest.raises(ValueError, match="evaluation image 'a' has no reference captions"):
        compositional_recall(GENERATED, REFERENCES[1:], PAIRS, EVAL_BY_PAIR)
    with pytest.raises(ValueError, match="K must be at least 1"):
        compositional_recall(GENERATED, REFERENCES, PAIRS, EVAL_BY_PAIR, k=0)


def test_caption_tokens():
    assert caption_tokens("A man's Dog,  eating a hot-dog.") == "a man's dog eating a hot dog"


class FixedMeteor:
    def score_many(self, pairs):
        return [0.25 if hyp.startswith("a black") else 0.75 for hyp, _ in pairs]


def test_caption_metrics_without_and_with_meteor():
    hypotheses = {"a": "A black cat sits on a mat.", "b": "two dogs run in the grass"}
    refs = {"a": ["a black cat sits on a mat", "a cat on a mat"], "b": ["two dogs run in the grass"], "c": ["x"]}
    result = caption_metrics(hypotheses, refs, None, meteor_unavailable="no java")
    assert result["images"] == 2
    assert result["bleu4"] == pytest.approx(1.0)  # each hypothesis equals one of its references once tokenized
    assert result["meteor"] is None and result["meteor_error"] == "no java"
    assert caption_metrics(hypotheses, refs, FixedMeteor())["meteor"] == pytest.approx(0.5)


@pytest.mark.skipif(shutil.which("java") is None, reason="METEOR needs Java")
def test_caption_metrics_with_the_meteor_jar():
    with Meteor() as meteor:
        result = caption_metrics({"a": "A black cat sits on a mat."}, {"a": ["a black cat sits on a mat"]}, meteor)
    assert result["meteor"] == pytest.approx(1.0) and result["meteor_error"] is None


def test_categories_in_the_seeds_order_then_by_name():
    pairs = [pair("furry", "cat", "texture"), pair("big", "dog", "size"), pair("old", "man", ""),
             pair("black", "cat", "colour")]
    report = compositional_recall(GENERATED, REFERENCES, pairs, {p.name: [] for p in pairs}, k=2)
    assert list(report.categories) == ["colour", "size", "texture", "uncategorised"]
    assert [p.name for p in report.pairs] == ["furry_cat", "big_dog", "old_man", "black_cat"]  # as given
