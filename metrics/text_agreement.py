"""Agreement of texts written for the same item (captions, stories), and the text they agree on most.

Each text is compared with each other text of its item by ROUGE-L, as the COCO caption scorer computes it
(pycocoevalcap.rouge, beta 1.2, one reference), on content words (below): with L the longest common subsequence
of words of a candidate c
and a reference r, P = L/|c|, R = L/|r| and F = (1 + b^2) P R / (R + b^2 P), which is (1 + b^2) L / (|c| + b^2 |r|).

- A text's agreement is the mean of its F against each other text of the item (as candidate, the other as
  reference): 0..1; None when the item has no other text.
- The item's agreement is the mean of its texts' agreements.
- The aggregated text is the medoid: the text with the highest agreement (crowd-kit's ClosestToAverage idea, on
  ROUGE-L instead of embeddings); on a tie, the first. ROVER would merge words into a new sentence; the medoid is
  a sentence a worker wrote.

The mean over the other texts (not pycocoevalcap's multi-reference score, which takes the best precision and
recall over the references) keeps two copies of one text on an item from giving each other full agreement.

Texts are compared on their content words: lowercased letter/digit runs (inner apostrophes and hyphens kept, so
punctuation and case do not count, unlike pycocoevalcap's whitespace split), without the function words of
FUNCTION_WORDS (articles, forms of "be", the commonest prepositions and conjunctions, pronouns), plurals folded
(`fold`: dogs = dog, men = man, dog's = dog). With every word counted, a generic sentence such as "A picture of a
person in a place." shares its "a ... of ... in" with real captions and agreed with them as much as the weakest real
caption did on a hand-written set of 4 images x 5 captions (0.33 against 0.18); on content words it agrees 0 and
the real captions 0.11 to 0.47. The list is written here (not scikit-learn's stop words, which drop words such as
"two", "front", "behind" and "fire" that captions need); texts in other languages keep all their words.

The longest common subsequence is computed bit-parallel (Hyyrö 2004, one big-integer row per word) instead of
pycocoevalcap's Python table (`my_lcs`): on 10k items x 5 texts (2 cores, otherwise idle), 1.7 s for 50-word
stories against about 90 s through pycocoevalcap's scorer in one batch (0.5 s against 6 s for 11-word captions).
METEOR (metrics.meteor) needs a JVM and is too slow for the periodic job.

A missing text (None: the worker declined the item, e.g. a tell_story "not storyable" answer) agrees fully with
another missing text and not at all with a text.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import inflection

BETA = 1.2  # pycocoevalcap's ROUGE-L beta (recall weighs more)
METHOD = "ROUGE-L F (beta 1.2, content words) of each text against each other text of its item, mean"
AGGREGATION = "medoid by ROUGE-L"

_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*", re.UNICODE)


FUNCTION_WORDS = frozenset("""
a an the is are was were be been being am has have had do does did of in on at to for with by from into and or but
as so than then it its this that these those there here i me my we us our you your he him his she her they them their
""".split())


def tokens(text: str) -> list[str]:
    """The text's words, lowercased (punctuation dropped)."""
    return [word.casefold() for word in _WORD.findall(text)]


@lru_cache(maxsize=1 << 16)
def fold(word: str) -> str:
    """A lowercased word without a possessive 's, in the singular (inflection's rules, irregular plurals included).
    Short words ending in s (is, as, his, bus) are kept as they are."""
    word = word.replace("’", "'")
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) <= 3 and word.endswith("s"):
        return word
    return inflection.singularize(word)


def content_words(text: str) -> list[str]:
    """The words compared: the text's words folded, function words left out."""
    kept = []
    for word in tokens(text):
        if word not in FUNCTION_WORDS:
            folded = fold(word)
            if folded not in FUNCTION_WORDS:  # it's, there's
                kept.append(folded)
    return kept


def _masks(words: Sequence[str]) -> dict[str, int]:
    """Per distinct word, the bit set of its positions."""
    masks: dict[str, int] = {}
    for position, word in enumerate(words):
        masks[word] = masks.get(word, 0) | (1 << position)
    return masks


def _lcs(masks: dict[str, int], length: int, other: Sequence[str]) -> int:
    """LCS length of the words behind `masks` (`length` of them) and `other`: Hyyrö's bit-vector recurrence
    V' = (V + (V & M[w])) | (V - (V & M[w])), the LCS is the count of zero bits of V."""
    if not length or not other:
        return 0
    full = (1 << length) - 1
    row = full
    for word in other:
        match = masks.get(word)
        if match:
            common = row & match
            row = ((row + common) | (row - common)) & full
    return length - row.bit_count()


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two word lists."""
    return _lcs(_masks(a), len(a), b)


def rouge_l(candidate: Sequence[str], reference: Sequence[str], beta: float = BETA) -> float:
    """ROUGE-L F of a candidate against one reference (word lists), as pycocoevalcap computes it."""
    common = lcs_length(candidate, reference)
    return _f(common, len(candidate), len(reference), beta)


def _f(common: int, candidate: int, reference: int, beta: float) -> float:
    if not common:
        return 0.0
    return (1 + beta ** 2) * common / (candidate + beta ** 2 * reference)


@dataclass(frozen=True)
class ItemAgreement:
    """One item's texts compared: `scores[i]` is text i's agreement (None when alone), `pairwise[i][j]` the F of
    text i against text j (the diagonal is 1), `medoid` the index of the aggregated text (None: no text);
    `parts`: the aligned comparisons it is the mean of (mean_agreement), if any."""

    scores: list[float | None]
    agreement: float | None
    medoid: int | None
    pairwise: list[list[float]]
    parts: tuple[ItemAgreement, ...] = ()


Words = Callable[[str], list[str]]


def pairwise_rouge_l(texts: Sequence[str | None], beta: float = BETA, words_of: Words = content_words,
                     ) -> list[list[float]]:
    """F of text i (candidate) against text j (reference) for every pair: one LCS per unordered pair."""
    words = [None if text is None else words_of(text) for text in texts]
    masks = [None if w is None else _masks(w) for w in words]
    size = len(texts)
    table = [[1.0] * size for _ in range(size)]
    for i in range(size):
        for j in range(i + 1, size):
            a, b = words[i], words[j]
            if a is None or b is None:
                table[i][j] = table[j][i] = 1.0 if a is None and b is None else 0.0
                continue
            mask = masks[i]
            assert mask is not None
            common = _lcs(mask, len(a), b)
            table[i][j] = _f(common, len(a), len(b), beta)
            table[j][i] = _f(common, len(b), len(a), beta)
    return table


def item_agreement(texts: Sequence[str | None], beta: float = BETA, words_of: Words = content_words,
                   ) -> ItemAgreement:
    """The agreement of each text with the others of its item, the item's agreement and its medoid. `words_of`:
    the words compared (content words; `tokens` for every word, as the COCO scorer)."""
    return _summary(pairwise_rouge_l(texts, beta, words_of))


def agreements(items: Iterable[Sequence[str | None]], beta: float = BETA, words_of: Words = content_words,
               ) -> list[ItemAgreement]:
    """`item_agreement` of many items (the texts of each item together)."""
    return [item_agreement(texts, beta, words_of) for texts in items]


def mean_agreement(parts: Sequence[ItemAgreement]) -> ItemAgreement:
    """Several aligned comparisons of the same answers (e.g. one per photo of a sequence) combined: the pairwise
    F are the means over the parts, and the answers' agreements and the medoid follow from them."""
    if not parts:
        return _summary([])
    size = len(parts[0].pairwise)
    if any(len(part.pairwise) != size for part in parts):
        raise ValueError("every part must compare the same number of answers")
    table = [[math.fsum(part.pairwise[i][j] for part in parts) / len(parts) for j in range(size)]
             for i in range(size)]
    return _summary(table, tuple(parts))


def _summary(table: list[list[float]], parts: tuple[ItemAgreement, ...] = ()) -> ItemAgreement:
    size = len(table)
    if size < 2:
        return ItemAgreement([None] * size, None, 0 if size else None, table, parts)
    values = [math.fsum(table[i][j] for j in range(size) if j != i) / (size - 1) for i in range(size)]
    medoid = max(range(size), key=lambda i: (values[i], -i))
    scores: list[float | None] = list(values)
    return ItemAgreement(scores, math.fsum(values) / size, medoid, table, parts)
