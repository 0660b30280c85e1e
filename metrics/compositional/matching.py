"""Whether a caption contains a concept pair, with the modifier attached to the noun in the dependency parse
(Nikolaus et al.): which dependency relations count is documented in docs/compositional.md.

TO BE IMPLEMENTED (signatures are fixed; see the task description)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .types import ConceptPair, Parse


@dataclass(frozen=True)
class CaptionAnalysis:
    """For one caption, the names of the pairs it contains (attached), and of the pairs whose noun, and whose
    modifier (adjective or verb), it mentions at all."""

    pairs: frozenset[str]
    nouns: frozenset[str]
    modifiers: frozenset[str]


class PairMatcher:
    """Matches many pairs at once (word forms and lemmas looked up in precomputed tables)."""

    def __init__(self, pairs: Sequence[ConceptPair]) -> None:
        self.pairs = list(pairs)

    def analyse(self, parse: Parse) -> CaptionAnalysis:
        raise NotImplementedError

    def matches(self, parse: Parse) -> frozenset[str]:
        return self.analyse(parse).pairs


def contains_pair(parse: Parse, pair: ConceptPair) -> bool:
    return pair.name in PairMatcher([pair]).matches(parse)
