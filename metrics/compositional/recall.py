"""Recall@K of held-out concept pairs in generated captions (Nikolaus et al., Eqn. 1), and the usual caption metrics
of the same captions beside it.

- Recall@K of a pair: the share of the pair's evaluation images (D_eval images whose reference captions contain
  the pair) for which at least one of the first K generated captions contains the pair, the adjective or verb
  attached to the noun in the dependency parse (`PairMatcher` decides; the caller passes the names of the pairs each
  generated caption contains, in rank order).
- Per category: the mean of the recalls of the category's pairs (the seed's Table 3: "scores are averaged over the
  set of scores for pairs from the respective category"); the average: the mean over all pairs (the seed's
  "average over all recall scores"). A pair without evaluation images has no recall (None) and is left out of
  the means, which say how many pairs they average.
- Agreement breakdown: the recall restricted to the pair's evaluation images where at least n reference captions
  contain the pair, n = 1..5 (n = 1 is the plain recall), per pair, and averaged over the pairs that have such
  images. Every figure carries its image count, so an empty denominator shows as None, never as 0.
- Caption metrics: BLEU-4, METEOR 1.5 and CIDEr of each evaluation image's first generated caption against its
  reference captions (`caption_metrics`).
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from metrics.meteor import METEOR_SETTING, MeteorScorer
from metrics.story_scores import bleu4, cider

from .types import ConceptPair, ImageCaptions

AGREEMENT_LEVELS = 5  # the seed's COCO images have 5 reference captions (a few have 6 or 7)
UNCATEGORISED = "uncategorised"
SEED_CATEGORIES = ("colour", "size", "transitive", "intransitive")  # the order of the seed's Table 3
DEFINITIONS = {
    "match": "A caption contains a pair when a word of the modifier's synonym set (an adjective, or a verb) is "
             "attached to a word of the noun's synonym set in the caption's dependency parse, both found by word "
             "form or lemma: the adjective modifies the noun (attributive, or predicative: \"the cat is black\"); "
             "the noun is the verb's subject, or the verb modifies the noun as a participle or relative clause "
             "(\"a man eating\", \"a man who eats\"). A noun that is only the verb's object does not count.",
    "recall": "Recall@K of a pair: the share of its evaluation images (D_eval images with at least one reference "
              "caption containing the pair) for which at least one of the first K generated captions contains "
              "the pair (Nikolaus et al., Eqn. 1).",
    "category": "The mean of the Recall@K of the category's pairs; the average is the mean over all pairs. Pairs "
                "without evaluation images have no recall and are left out of the means.",
    "agreement": "Recall@K over the evaluation images where at least n of the reference captions contain the "
                 "pair (n = 1 is every evaluation image), per pair and averaged over the pairs with such images.",
}
_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


@dataclass(frozen=True)
class Recall:
    """Recalled images out of `images`; `recall` is None when there is no image."""

    images: int
    hits: int

    @property
    def recall(self) -> float | None:
        return self.hits / self.images if self.images else None

    def to_json(self) -> dict[str, Any]:
        return {"images": self.images, "hits": self.hits, "recall": self.recall}


@dataclass(frozen=True)
class Mean:
    """The mean of the recalls of `pairs` pairs (those that have images; None when none has), over `images`
    evaluation images in all."""

    recall: float | None
    pairs: int
    images: int

    @classmethod
    def of(cls, figures: Sequence[Recall]) -> Mean:
        scored = [figure.recall for figure in figures if figure.recall is not None]
        return cls(math.fsum(scored) / len(scored) if scored else None, len(scored),
                   sum(figure.images for figure in figures))

    def to_json(self) -> dict[str, Any]:
        return {"recall": self.recall, "pairs": self.pairs, "images": self.images}


@dataclass(frozen=True)
class PairRecall:
    name: str
    kind: str
    category: str
    heldout_group: str
    overall: Recall
    by_agreement: tuple[Recall, ...]  # [n - 1]: images where at least n reference captions contain the pair

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "category": self.category,
                "heldout_group": self.heldout_group, **self.overall.to_json(),
                "by_agreement": [{"n": n, **figure.to_json()} for n, figure in enumerate(self.by_agreement, 1)]}


@dataclass(frozen=True)
class RecallReport:
    k: int
    pairs: tuple[PairRecall, ...]
    categories: dict[str, Mean]  # the seed's (colour, size, transitive, intransitive), then the others by name
    average: Mean
    by_agreement: tuple[Mean, ...]  # [n - 1]: mean over pairs of their recall at agreement >= n

    def to_json(self) -> dict[str, Any]:
        return {"k": self.k, "pairs": [pair.to_json() for pair in self.pairs],
                "categories": [{"category": name, **mean.to_json()} for name, mean in self.categories.items()],
                "average": self.average.to_json(),
                "by_agreement": [{"n": n, **mean.to_json()} for n, mean in enumerate(self.by_agreement, 1)]}


def compositional_recall(generated: Mapping[str, Sequence[frozenset[str]]], references: Sequence[ImageCaptions],
                         pairs: Sequence[ConceptPair], eval_by_pair: Mapping[str, Sequence[str]], k: int = 5, *,
                         levels: int = AGREEMENT_LEVELS) -> RecallReport:
    """Recall@K per pair, per category, on average, and by reference agreement.

    `generated`: per evaluation image key, the names of the pairs each generated caption contains, best first
    (captions beyond the K-th are ignored). `references`: the evaluation images' reference captions as matched
    (ImageCaptions.count gives the agreement). `eval_by_pair`: each pair's evaluation image keys. ValueError names
    an evaluation image without generated captions or reference captions, or a pair without evaluation images
    listed in `eval_by_pair`."""
    if k < 1:
        raise ValueError(f"K must be at least 1, got {k}")
    by_key = {image.key: image for image in references}
    rows: list[PairRecall] = []
    for pair in pairs:
        if pair.name not in eval_by_pair:
            raise ValueError(f"pair '{pair.name}' has no list of evaluation images")
        images = list(dict.fromkeys(eval_by_pair[pair.name]))
        totals = [0] * levels
        hits = [0] * levels
        recalled = 0
        for key in images:
            if key not in generated:
                raise ValueError(f"evaluation image '{key}' has no generated caption")
            if key not in by_key:
                raise ValueError(f"evaluation image '{key}' has no reference captions")
            agreement = by_key[key].count(pair.name)
            hit = any(pair.name in names for names in list(generated[key])[:k])
            recalled += hit
            for level in range(min(agreement, levels)):
                totals[level] += 1
                hits[level] += hit
        rows.append(PairRecall(pair.name, pair.kind, pair.category, pair.heldout_group, Recall(len(images), recalled),
                               tuple(Recall(t, h) for t, h in zip(totals, hits, strict=True))))
    categories: dict[str, list[Recall]] = {}
    for row in sorted(rows, key=lambda row: _category_rank(row.category or UNCATEGORISED)):
        categories.setdefault(row.category or UNCATEGORISED, []).append(row.overall)
    return RecallReport(
        k=k, pairs=tuple(rows),
        categories={name: Mean.of(figures) for name, figures in categories.items()},
        average=Mean.of([row.overall for row in rows]),
        by_agreement=tuple(Mean.of([row.by_agreement[level] for row in rows]) for level in range(levels)))


def _category_rank(category: str) -> tuple[int, str]:
    """The seed's categories first, in its order, then the others by name."""
    return (SEED_CATEGORIES.index(category), "") if category in SEED_CATEGORIES else (len(SEED_CATEGORIES), category)


def caption_tokens(text: str) -> str:
    """A caption as the caption metrics read it: lowercased, words (letters and digits, inner apostrophes kept)
    separated by single spaces, punctuation dropped (close to the COCO evaluation's PTB tokenizer, without Java)."""
    return " ".join(_TOKEN.findall(text.lower()))


def caption_metrics(hypotheses: Mapping[str, str], references: Mapping[str, Sequence[str]],
                    meteor: MeteorScorer | None, *, meteor_unavailable: str | None = None) -> dict[str, Any]:
    """BLEU-4, METEOR and CIDEr of each image's hypothesis (its first generated caption) against its reference
    captions, both read through `caption_tokens`. METEOR is None (with `meteor_error`) when `meteor` is None."""
    keys = [key for key in hypotheses if references.get(key)]
    hyps = [caption_tokens(hypotheses[key]) for key in keys]
    refs = [[caption_tokens(text) for text in references[key]] for key in keys]
    bleu, cide = bleu4(hyps, refs), cider(hyps, refs)
    result: dict[str, Any] = {
        "images": len(keys), "bleu4": bleu.corpus, "bleu4_mean": bleu.mean, "cider": cide.mean,
        "meteor": None, "meteor_error": meteor_unavailable,
        "definitions": {
            "bleu4": "BLEU-4 (pycocoevalcap, closest reference length), corpus level over the evaluation images",
            "cider": "CIDEr (pycocoevalcap, n = 4, sigma = 6, x10), mean over the evaluation images, IDF over their "
                     "references",
            "meteor": f"{METEOR_SETTING}; mean over the evaluation images, each against its best reference",
            "tokens": "captions lowercased, punctuation dropped, words separated by spaces",
        },
    }
    if meteor is not None and keys:
        scores = meteor.score_many(list(zip(hyps, refs, strict=True)))
        result["meteor"] = math.fsum(scores) / len(scores)
        result["meteor_error"] = None
    elif meteor is None and meteor_unavailable is None:
        result["meteor_error"] = "METEOR was not computed"
    return result
