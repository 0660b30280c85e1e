"""The seed's concepts and pairs (Nikolaus et al.), shipped as data under data/ with attribution.

data/synonyms/{adjectives,nouns,verbs}/<name>.json are the authors' synonym sets, unmodified (Apache-2.0, see
data/NOTICE.md): each a JSON list of word forms whose first entry is the concept's name. data/pairs.json lists the
24 pairs of the seed's Table 1 with their kind, category and held-out group (the authors' dataset_splits_<group>)."""
from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from .types import ADJECTIVE_NOUN, NOUN_VERB, PAIR_KINDS, ConceptPair, LexicalConcept

DATA_DIR = Path(__file__).resolve().parent / "data"
SYNONYMS_DIR = DATA_DIR / "synonyms"
PAIRS_FILE = DATA_DIR / "pairs.json"

# Folder of the synonym sets -> part of speech of their concepts.
FOLDERS = {"adjectives": "adjective", "nouns": "noun", "verbs": "verb"}
# Which part of speech the modifier of each pair kind has.
MODIFIER_POS = {ADJECTIVE_NOUN: "adjective", NOUN_VERB: "verb"}
CATEGORIES = {ADJECTIVE_NOUN: ("colour", "size"), NOUN_VERB: ("transitive", "intransitive")}


class SeedDataError(ValueError):
    """The shipped data is not as expected (names the file)."""


def load_synonym_file(path: Path, part_of_speech: str) -> LexicalConcept:
    """One synonym set: a JSON list of strings whose first entry is the file's name (the concept)."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SeedDataError(f"{path}: cannot read a JSON list ({exc})") from exc
    if not isinstance(data, list) or not data or not all(isinstance(s, str) and s.strip() for s in data):
        raise SeedDataError(f"{path}: expected a non-empty JSON list of words")
    name = path.stem
    if data[0].strip().lower() != name:
        raise SeedDataError(f"{path}: the first entry {data[0]!r} is not the concept's name {name!r}")
    return LexicalConcept(name=name, part_of_speech=part_of_speech,
                          synonyms=frozenset(s.strip().lower() for s in data))


@functools.cache
def _concepts() -> tuple[LexicalConcept, ...]:
    concepts: list[LexicalConcept] = []
    for folder, part_of_speech in FOLDERS.items():
        files = sorted((SYNONYMS_DIR / folder).glob("*.json"))
        if not files:
            raise SeedDataError(f"{SYNONYMS_DIR / folder}: no synonym file")
        concepts.extend(load_synonym_file(path, part_of_speech) for path in files)
    return tuple(concepts)


def seed_concepts() -> list[LexicalConcept]:
    """Every concept of the shipped synonym sets (adjectives, nouns, verbs)."""
    return list(_concepts())


def concept_index() -> dict[tuple[str, str], LexicalConcept]:
    """The shipped concepts by (part of speech, name)."""
    return {(c.part_of_speech, c.name): c for c in _concepts()}


@functools.cache
def _pairs() -> tuple[ConceptPair, ...]:
    try:
        data: Any = json.loads(PAIRS_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SeedDataError(f"{PAIRS_FILE}: cannot read ({exc})") from exc
    if not isinstance(data, list):
        raise SeedDataError(f"{PAIRS_FILE}: expected a JSON list of pairs")
    concepts = concept_index()
    pairs: list[ConceptPair] = []
    seen: set[str] = set()
    for number, entry in enumerate(data, start=1):
        where = f"{PAIRS_FILE}: pair {number}"
        if not isinstance(entry, dict):
            raise SeedDataError(f"{where}: expected an object")
        name, kind = entry.get("name"), entry.get("kind")
        if kind not in PAIR_KINDS:
            raise SeedDataError(f"{where} ({name}): unknown kind {kind!r}")
        modifier = concepts.get((MODIFIER_POS[kind], entry.get("modifier", "")))
        noun = concepts.get(("noun", entry.get("noun", "")))
        if modifier is None or noun is None:
            raise SeedDataError(f"{where} ({name}): no shipped synonym set for {entry.get('modifier')!r} "
                                f"or {entry.get('noun')!r}")
        if name != f"{modifier.name}_{noun.name}" or name in seen:
            raise SeedDataError(f"{where}: the name {name!r} is not '<modifier>_<noun>' or is repeated")
        if entry.get("category") not in CATEGORIES[kind]:
            raise SeedDataError(f"{where} ({name}): category {entry.get('category')!r} is not one of "
                                f"{', '.join(CATEGORIES[kind])}")
        seen.add(name)
        pairs.append(ConceptPair(name=name, kind=kind, modifier=modifier, noun=noun, category=entry["category"],
                                 heldout_group=str(entry.get("heldout_group", ""))))
    return tuple(pairs)


def seed_pairs() -> list[ConceptPair]:
    """The 24 pairs of the seed's Table 1, each with its category and held-out group."""
    return list(_pairs())


def heldout_groups() -> dict[str, list[str]]:
    """The seed's held-out groups (the authors' dataset_splits_1..4): group -> the names of its 6 pairs."""
    groups: dict[str, list[str]] = {}
    for pair in _pairs():
        groups.setdefault(pair.heldout_group, []).append(pair.name)
    return groups
