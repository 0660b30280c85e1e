"""Statistics of the three language tiers (the VIST paper's Tables 2 and 3).

A tier is a list of texts, one per text-image pair: a DII description, a DIS description, an SIS storylet (one
sentence of a story). Texts are already normalized (lowercased, tokenized): tokens are what `str.split()` gives.

Table 2, the columns that can be computed from the text: number of text-image pairs; vocabulary size counting only
the words seen more than once in the tier (the paper's footnote 7); mean tokens per text.

Table 3, the words most associated with each tier by normalized pointwise mutual information, over token
occurrences across the tiers (N = all tokens of all tiers):

    p(w, t) = count of w in tier t / N,   p(w) = count of w in all tiers / N,   p(t) = tokens of tier t / N
    npmi(w, t) = log(p(w, t) / (p(w) p(t))) / -log p(w, t)

npmi is 1 when w occurs only in t and t holds nothing else, 0 when w is spread over the tiers in proportion to
their sizes, and tends to -1 as w avoids t. (When p(w, t) = 1 the formula is 0 / 0; we define it as 1.) A word is
ranked for tier t only when it occurs at least `min_count` times in t (default 5: rarer words give noisy estimates)
and, by default, only when it holds a letter or a digit (punctuation tokens count in N but are never listed).
Ties are broken by the count in the tier (higher first), then alphabetically.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

TIERS = ("dii", "dis", "sis")
TIER_NAMES = {"dii": "descriptions in isolation (DII)", "dis": "descriptions in sequence (DIS)",
              "sis": "stories in sequence (SIS)"}
MIN_COUNT = 5
TOP_K = 10


@dataclass(frozen=True)
class TierStats:
    tier: str
    pairs: int  # text-image pairs (texts)
    tokens: int
    vocabulary: int  # distinct tokens seen more than once in the tier
    vocabulary_all: int  # distinct tokens, singletons included
    mean_tokens: float | None  # tokens per text; None for an empty tier


@dataclass(frozen=True)
class WordScore:
    word: str
    npmi: float
    count: int  # occurrences in the tier
    total: int  # occurrences in all tiers


def check_tiers(tiers: Mapping[str, Sequence[str]]) -> None:
    unknown = sorted(set(tiers) - set(TIERS))
    if unknown:
        raise ValueError(f"unknown tier {', '.join(map(repr, unknown))}: tiers are {', '.join(TIERS)}")


def ordered(tiers: Mapping[str, Sequence[str]]) -> list[str]:
    """The tier names present, in the order dii, dis, sis."""
    return [tier for tier in TIERS if tier in tiers]


def tier_statistics(tiers: Mapping[str, Sequence[str]]) -> list[TierStats]:
    """Table 2's computable columns, one row per tier present (dii, dis, sis order)."""
    check_tiers(tiers)
    rows = []
    for tier in ordered(tiers):
        texts = tiers[tier]
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(text.split())
        tokens = sum(counts.values())
        rows.append(TierStats(
            tier=tier, pairs=len(texts), tokens=tokens,
            vocabulary=sum(1 for count in counts.values() if count > 1), vocabulary_all=len(counts),
            mean_tokens=tokens / len(texts) if texts else None,
        ))
    return rows


def npmi(joint: int, word_total: int, tier_total: int, total: int) -> float:
    """Normalized PMI from counts: `joint` occurrences of w in t, w's and t's totals, all tokens."""
    if joint <= 0:
        return -1.0
    p_joint = joint / total
    if p_joint == 1.0:
        return 1.0
    pmi = math.log(p_joint / ((word_total / total) * (tier_total / total)))
    return pmi / -math.log(p_joint)


def _is_word(token: str) -> bool:
    return any(character.isalnum() for character in token)


def top_words(tiers: Mapping[str, Sequence[str]], k: int = TOP_K, min_count: int = MIN_COUNT,
              words_only: bool = True) -> dict[str, list[WordScore]]:
    """Table 3: for each tier present, its `k` words of highest npmi among those seen `min_count` times in it."""
    check_tiers(tiers)
    per_tier: dict[str, Counter[str]] = {}
    for tier in ordered(tiers):
        counts: Counter[str] = Counter()
        for text in tiers[tier]:
            counts.update(text.split())
        per_tier[tier] = counts
    word_totals: Counter[str] = Counter()
    for counts in per_tier.values():
        word_totals.update(counts)
    total = sum(word_totals.values())
    result: dict[str, list[WordScore]] = {}
    for tier, counts in per_tier.items():
        tier_total = sum(counts.values())
        scored = [WordScore(word, npmi(count, word_totals[word], tier_total, total), count, word_totals[word])
                  for word, count in counts.items()
                  if count >= min_count and (_is_word(word) or not words_only)]
        scored.sort(key=lambda score: (-score.npmi, -score.count, score.word))
        result[tier] = scored[:k]
    return result
