"""BLEU-4 and CIDEr of hypotheses against references, with pycocoevalcap's scorers.

Inputs are already tokenized and lowercased (the `text` of the VIST files): tokens are what `str.split()` gives, so
pycocoevalcap's PTBTokenizer (a Java subprocess) is not used.

- BLEU-4 (`pycocoevalcap.bleu`, reference length option "closest", no smoothing beyond the scorer's 1e-15 / 1e-9
  guards, so an item without a matching 4-gram scores close to 0). `corpus` is the corpus-level BLEU-4 (n-gram counts
  summed over items, as reported by the COCO evaluation), not the mean of the per-item scores; `mean` is that mean.
  The VIST paper's Table 4 used smoothed BLEU (Lin and Och, 2004), so its BLEU numbers are not comparable.
- CIDEr (`pycocoevalcap.cider`, n = 4, sigma = 6, x10). Its IDF weights come from the references of every item
  scored in the same call, so an item's CIDEr depends on the set it is scored with; with a single item every IDF is 0
  and the score is 0 (also when no reference has a token). `corpus` is the mean of the per-item scores (the
  scorer's own definition).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pycocoevalcap.bleu.bleu import Bleu
from pycocoevalcap.cider.cider import Cider
from pycocoevalcap.rouge.rouge import Rouge


@dataclass(frozen=True)
class ItemScores:
    """Scores of a set of hypotheses: one per item, the set's corpus-level score and the mean per item."""

    per_item: list[float]
    corpus: float | None
    mean: float | None


def _inputs(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> tuple[dict, dict]:
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} reference lists")
    for index, (hypothesis, refs) in enumerate(zip(hypotheses, references, strict=True)):
        if not isinstance(hypothesis, str):
            raise ValueError(f"item {index}: the hypothesis is not a string")
        if isinstance(refs, str) or not refs or not all(isinstance(ref, str) for ref in refs):
            raise ValueError(f"item {index}: references must be a non-empty list of strings")
    # the scorers split on whitespace; collapsing it keeps newlines out of their n-grams
    results = {index: [" ".join(hypothesis.split())] for index, hypothesis in enumerate(hypotheses)}
    gold = {index: [" ".join(ref.split()) for ref in refs] for index, refs in enumerate(references)}
    return gold, results


def _mean(values: list[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def bleu4(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> ItemScores:
    """BLEU-4 of hypothesis i against references[i], per item and corpus-level."""
    gold, results = _inputs(hypotheses, references)
    if not results:
        return ItemScores([], None, None)
    corpus, per_item = Bleu(4).compute_score(gold, results, verbose=0)
    scores = [float(value) for value in per_item[3]]
    return ItemScores(scores, float(corpus[3]), _mean(scores))


def cider(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> ItemScores:
    """CIDEr of hypothesis i against references[i], IDF over the references of all items; per item and mean."""
    gold, results = _inputs(hypotheses, references)
    if not results:
        return ItemScores([], None, None)
    if not any(ref for refs in gold.values() for ref in refs):  # no reference n-gram at all: the scorer would fail
        return ItemScores([0.0] * len(results), 0.0, 0.0)
    corpus, per_item = Cider().compute_score(gold, results)
    scores = [float(value) for value in per_item]
    return ItemScores(scores, float(corpus), _mean(scores))


def rouge_l(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> ItemScores:
    """ROUGE-L (the COCO caption scorer's F-measure, beta 1.2) of hypothesis i against references[i]."""
    gold, results = _inputs(hypotheses, references)
    if not results:
        return ItemScores([], None, None)
    mean, per_item = Rouge().compute_score(gold, results)
    scores = [float(value) for value in per_item]
    return ItemScores(scores, float(mean), _mean(scores))
