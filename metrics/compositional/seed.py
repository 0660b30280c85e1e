"""The seed's concepts and pairs (Nikolaus et al.), shipped as data under data/ with attribution.

TO BE IMPLEMENTED (signatures are fixed; see the task description)."""
from __future__ import annotations

from .types import ConceptPair, LexicalConcept


def seed_concepts() -> list[LexicalConcept]:
    """Every concept of the shipped synonym sets (adjectives, nouns, verbs)."""
    raise NotImplementedError


def seed_pairs() -> list[ConceptPair]:
    """The 24 pairs of the seed's Table 1, each with its category and held-out group."""
    raise NotImplementedError
