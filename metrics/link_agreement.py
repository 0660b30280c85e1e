"""Agreement between word-to-box link sets of the same description (Flickr30k-Entities style correspondence).

A link set is a set of (word index, box number) pairs: which word names which numbered box of the image.
No library computes this (the boxes are the image's numbered boxes, the same for every worker, so two links
agree when they are equal), hence by hand:

- link F1 of two sets: 2 |A & B| / (|A| + |B|); two empty sets agree fully (1);
- the vote: per word, the box most sets linked it to, where a set that left the word unlinked votes for "no
  link"; the winner needs strictly more votes than any other choice (a tie links nothing) and at least
  quorum x the number of sets."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

Link = tuple[int, int]  # (word index, box number)

# A float comparison margin: a quorum of 0.6 x 5 sets is 3 votes, not 3.0000000000000004.
_EPSILON = 1e-9


@dataclass(frozen=True)
class WordVote:
    word: int
    box: int | None  # the box kept, or None (no link won, a tie, or below the quorum)
    votes: int  # the winner's votes
    box_votes: dict[int | None, int]  # box (None: no link) -> sets voting for it, most voted first


def link_f1(a: Iterable[Link], b: Iterable[Link]) -> float:
    """Link F1 of two link sets (the same as Dice's coefficient); both empty: 1."""
    first, second = set(a), set(b)
    if not first and not second:
        return 1.0
    return 2 * len(first & second) / (len(first) + len(second))


def pairwise_link_f1(sets: Sequence[Iterable[Link]]) -> dict[tuple[int, int], float]:
    """Link F1 of every pair of sets (i < j)."""
    frozen = [set(s) for s in sets]
    return {(i, j): link_f1(frozen[i], frozen[j]) for i, j in combinations(range(len(frozen)), 2)}


def mean_f1_per_set(scores: dict[tuple[int, int], float], count: int) -> list[float | None]:
    """Per set, its mean link F1 against each other set (None with fewer than two sets)."""
    totals = [0.0] * count
    for (i, j), value in scores.items():
        totals[i] += value
        totals[j] += value
    return [total / (count - 1) if count > 1 else None for total in totals]


def vote_links(sets: Sequence[Iterable[Link]], quorum: float = 0.5) -> list[WordVote]:
    """Per word linked by any set (by word index), the vote among the sets (see the module docstring)."""
    by_word: list[dict[int, set[int]]] = []
    for links in sets:
        boxes_of: dict[int, set[int]] = {}
        for word, box in links:
            boxes_of.setdefault(word, set()).add(box)
        by_word.append(boxes_of)
    needed = quorum * len(by_word) - _EPSILON
    result = []
    for word in sorted({word for boxes_of in by_word for word in boxes_of}):
        counts: dict[int | None, int] = {}
        for boxes_of in by_word:
            linked = boxes_of.get(word)
            if linked is None:
                counts[None] = counts.get(None, 0) + 1
                continue
            for box in linked:  # a valid answer links a word to one box at most
                counts[box] = counts.get(box, 0) + 1
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0] is None, kv[0] or 0))
        top_box, top_votes = ranked[0]
        tied = len(ranked) > 1 and ranked[1][1] == top_votes
        kept = None if tied or top_votes < needed else top_box
        result.append(WordVote(word, kept, top_votes, dict(ranked)))
    return result
