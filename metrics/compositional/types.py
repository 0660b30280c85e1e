"""The data the compositional modules share: lexical concepts, concept pairs, a caption's parse, and an image's
captions as the pairs each of them contains."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ADJECTIVE_NOUN = "adjective_noun"
NOUN_VERB = "noun_verb"
PAIR_KINDS = (ADJECTIVE_NOUN, NOUN_VERB)
PARTS_OF_SPEECH = ("adjective", "noun", "verb")


@dataclass(frozen=True)
class LexicalConcept:
    """A concept as a set of word forms (lowercased; a form may have several words, e.g. "hot dog")."""

    name: str
    part_of_speech: str  # one of PARTS_OF_SPEECH
    synonyms: frozenset[str]


@dataclass(frozen=True)
class ConceptPair:
    """An adjective-noun pair ("black_cat") or a noun-verb pair ("eat_man"): `modifier` is the adjective or the
    verb. `category` groups pairs in reports (colour, size, transitive, intransitive, or any label)."""

    name: str
    kind: str  # ADJECTIVE_NOUN or NOUN_VERB
    modifier: LexicalConcept
    noun: LexicalConcept
    category: str = ""
    heldout_group: str = ""


@dataclass(frozen=True)
class Parse:
    """One caption's tokens with their lemma, universal POS tag, fine tag, dependency label and head (the index
    of the head token; a root is its own head). Words keep their case; matching lowercases."""

    words: tuple[str, ...]
    lemmas: tuple[str, ...]
    pos: tuple[str, ...]
    tags: tuple[str, ...]
    deps: tuple[str, ...]
    heads: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"w": list(self.words), "l": list(self.lemmas), "p": list(self.pos), "t": list(self.tags),
                "d": list(self.deps), "h": list(self.heads)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Parse:
        return cls(tuple(data["w"]), tuple(data["l"]), tuple(data["p"]), tuple(data["t"]), tuple(data["d"]),
                   tuple(data["h"]))


@dataclass(frozen=True)
class ImageCaptions:
    """An image of the corpus: its key (the COCO id when it has one), its subset ("train2014", "val2014", or "" when
    the corpus has none), and for each of its captions the names of the concept pairs the caption contains."""

    key: str
    subset: str
    matches: tuple[frozenset[str], ...]

    def count(self, pair: str) -> int:
        """How many of the image's captions contain the pair."""
        return sum(1 for names in self.matches if pair in names)
