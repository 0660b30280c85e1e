"""Concept pairs to hold out (Nikolaus et al.): lexical concepts (synonym sets) and the pairs built from them,
defined one by one, loaded from the seed's shipped definitions, or imported from a JSON file (all or nothing).

Import file format:

    {"concepts": [{"name": "furry", "part_of_speech": "adjective", "synonyms": ["furry", "fluffy"]}],
     "pairs": [{"name": "furry_dog", "kind": "adjective_noun", "modifier": "furry", "noun": "dog",
                "category": "texture", "heldout_group": ""}]}

Both lists are optional. A concept already defined is updated (its synonyms replaced); a pair's modifier and noun
name concepts of the file or already defined (the modifier an adjective for adjective_noun, a verb for noun_verb;
the noun a noun); a pair already defined is updated."""
from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from django.db import transaction

from common.json_input import JsonInputError, limits, parse_json
from metrics.compositional import seed
from metrics.compositional.types import ADJECTIVE_NOUN, NOUN_VERB, PAIR_KINDS, PARTS_OF_SPEECH

from ..models import ConceptPair, LexicalConcept

MODIFIER_POS = {ADJECTIVE_NOUN: "adjective", NOUN_VERB: "verb"}
NAME_MAX = 100
LABEL_MAX = 40
SYNONYMS_MAX = 500
IMPORT_MAX_BYTES = 5 * 1024 * 1024


class ConceptPairError(ValueError):
    """A definition refused; the message says what is wrong (and where: the field, or the file's entry).
    `errors` lists every problem found (an import names each bad entry)."""

    def __init__(self, message: str, errors: Sequence[str] | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.errors = list(errors) if errors else [message]
        named = re.match(r"([a-z_]+): ", message)
        # The field the message is about (a form shows it there), when it leads the message.
        self.field = field if field is not None else (named.group(1) if named else None)


def _word(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConceptPairError(f"{field}: a non-empty text is required")
    word = " ".join(value.split()).lower()
    if len(word) > NAME_MAX:
        raise ConceptPairError(f"{field}: at most {NAME_MAX} characters")
    return word


def _label(value: Any, field: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ConceptPairError(f"{field}: a text is required")
    label = value.strip()
    if len(label) > LABEL_MAX:
        raise ConceptPairError(f"{field}: at most {LABEL_MAX} characters")
    return label


def normalise_synonyms(name: str, synonyms: Any, field: str) -> list[str]:
    """The name first, then the synonyms lowercased with single spaces, each once."""
    if not isinstance(synonyms, (list, tuple)) or any(not isinstance(s, str) for s in synonyms):
        raise ConceptPairError(f"{field}: a list of words is required")
    forms = [name] + [" ".join(s.split()).lower() for s in synonyms]
    if len(forms) > SYNONYMS_MAX:
        raise ConceptPairError(f"{field}: at most {SYNONYMS_MAX} synonyms")
    too_long = [f for f in forms if len(f) > NAME_MAX]
    if too_long:
        raise ConceptPairError(f"{field}: '{too_long[0][:40]}...' is longer than {NAME_MAX} characters")
    return list(dict.fromkeys(f for f in forms if f))


def save_concept(*, name: str, part_of_speech: str, synonyms: Sequence[str], source: str = "researcher",
                 field: str = "synonyms") -> LexicalConcept:
    """Create the concept, or replace the synonyms of the one of that name and part of speech."""
    word = _word(name, "name")
    if part_of_speech not in PARTS_OF_SPEECH:
        raise ConceptPairError(f"part_of_speech: one of {', '.join(PARTS_OF_SPEECH)}, not {part_of_speech!r}")
    forms = normalise_synonyms(word, synonyms, field)
    concept, created = LexicalConcept.objects.get_or_create(
        name=word, part_of_speech=part_of_speech, defaults={"synonyms": forms, "source": source})
    if not created and concept.synonyms != forms:
        concept.synonyms = forms
        concept.save(update_fields=["synonyms"])
    return concept


def _concept(name: str, part_of_speech: str, synonyms: Sequence[str] | None, field: str) -> LexicalConcept:
    word = _word(name, field)
    synonyms_field = f"{field}_synonyms"
    if synonyms is not None:
        return save_concept(name=word, part_of_speech=part_of_speech, synonyms=synonyms, field=synonyms_field)
    concept = LexicalConcept.objects.filter(name=word, part_of_speech=part_of_speech).first()
    if concept is None:
        raise ConceptPairError(f"{field}: '{word}' is not a defined {part_of_speech}; give {synonyms_field} to "
                               f"define it (its synonyms, e.g. {word})")
    return concept


@transaction.atomic
def save_pair(*, name: str, kind: str, modifier: str, noun: str, modifier_synonyms: list[str] | None = None,
              noun_synonyms: list[str] | None = None, category: str = "", heldout_group: str = "") -> ConceptPair:
    """Create the pair, or update the one of that name. Its modifier is an adjective (adjective_noun) or a verb
    (noun_verb), its noun a noun, found by name; a concept not yet defined needs its synonyms (then it is created),
    and synonyms given for a defined concept replace its synonyms."""
    pair_name = _word(name, "name").replace(" ", "_")
    if not re.fullmatch(r"[\w-]+", pair_name):
        raise ConceptPairError(f"name: letters, digits, _ and - only (as in black_cat), not {pair_name!r}")
    if kind not in PAIR_KINDS:
        raise ConceptPairError(f"kind: one of {', '.join(PAIR_KINDS)}, not {kind!r}")
    category_label = _label(category, "category")
    group_label = _label(heldout_group, "heldout_group")
    modifier_concept = _concept(modifier, MODIFIER_POS[kind], modifier_synonyms, "modifier")
    noun_concept = _concept(noun, "noun", noun_synonyms, "noun")
    pair, _ = ConceptPair.objects.update_or_create(
        name=pair_name, defaults={"kind": kind, "modifier": modifier_concept, "noun": noun_concept,
                                  "category": category_label, "heldout_group": group_label})
    return pair


def delete_pair(pair: ConceptPair) -> None:
    """Delete the pair (its concepts stay: other pairs may use them)."""
    pair.delete()


@transaction.atomic
def load_seed_pairs() -> int:
    """The seed's concepts (source "seed") and its 24 pairs with their category and held-out group, created where
    missing (run again, it changes nothing); returns how many pairs were new."""
    concepts: dict[tuple[str, str], LexicalConcept] = {}
    for definition in seed.seed_concepts():
        forms = list(dict.fromkeys([definition.name, *sorted(definition.synonyms)]))
        concept, _ = LexicalConcept.objects.get_or_create(
            name=definition.name, part_of_speech=definition.part_of_speech,
            defaults={"synonyms": forms, "source": "seed"})
        concepts[(definition.name, definition.part_of_speech)] = concept
    created = 0
    for pair in seed.seed_pairs():
        stored: list[LexicalConcept] = []
        for definition in (pair.modifier, pair.noun):
            key = (definition.name, definition.part_of_speech)
            if key not in concepts:
                forms = list(dict.fromkeys([definition.name, *sorted(definition.synonyms)]))
                concepts[key], _ = LexicalConcept.objects.get_or_create(
                    name=definition.name, part_of_speech=definition.part_of_speech,
                    defaults={"synonyms": forms, "source": "seed"})
            stored.append(concepts[key])
        _, new = ConceptPair.objects.get_or_create(
            name=pair.name, defaults={"kind": pair.kind, "modifier": stored[0], "noun": stored[1],
                                      "category": pair.category, "heldout_group": pair.heldout_group,
                                      "source": "seed"})
        created += new
    return created


def _read(path_or_bytes: str | Path | bytes) -> Any:
    if isinstance(path_or_bytes, bytes):
        data, where = path_or_bytes, "the file"
    else:
        path = Path(path_or_bytes)
        where = str(path)
        try:
            if path.stat().st_size > IMPORT_MAX_BYTES:
                raise ConceptPairError(f"{where}: larger than {IMPORT_MAX_BYTES} bytes")
            data = path.read_bytes()
        except OSError as exc:
            raise ConceptPairError(f"{where}: cannot be read ({exc.strerror or exc})") from None
    try:
        return parse_json(data, limits(max_bytes=IMPORT_MAX_BYTES))
    except JsonInputError as exc:
        raise ConceptPairError(f"{where}: {exc}") from None


def _entries(document: dict[str, Any], key: str) -> list[Any]:
    entries = document.get(key, [])
    if not isinstance(entries, list):
        raise ConceptPairError(f"{key}: a list is required")
    return entries


def _entry_name(entry: Any) -> str:
    name = entry.get("name", "") if isinstance(entry, dict) else None
    return f" ({name})" if isinstance(name, str) and name else ""


def import_pairs(path_or_bytes: str | Path | bytes) -> int:
    """Import the concepts and pairs of a JSON file (the module's docstring has the format): everything or, when an
    entry is wrong, nothing (ConceptPairError naming every bad entry, e.g. `pairs[3] (brown_horse): kind: ...`).
    Returns how many pairs the file defines."""
    document = _read(path_or_bytes)
    if not isinstance(document, dict):
        raise ConceptPairError('the file must hold an object {"concepts": [...], "pairs": [...]}')
    unknown = sorted(set(document) - {"concepts", "pairs"})
    if unknown:
        raise ConceptPairError(f"unknown key(s) {', '.join(unknown)}: the file holds \"concepts\" and \"pairs\"")
    concept_entries, pair_entries = _entries(document, "concepts"), _entries(document, "pairs")
    errors: list[str] = []
    names: set[str] = set()
    with transaction.atomic():
        for index, entry in enumerate(concept_entries):
            where = f"concepts[{index}]{_entry_name(entry)}"
            try:
                if not isinstance(entry, dict):
                    raise ConceptPairError("an object {name, part_of_speech, synonyms} is required")
                extra = sorted(set(entry) - {"name", "part_of_speech", "synonyms"})
                if extra:
                    raise ConceptPairError(f"unknown field(s) {', '.join(extra)}")
                with transaction.atomic():
                    save_concept(name=entry.get("name", ""), part_of_speech=entry.get("part_of_speech", ""),
                                 synonyms=entry.get("synonyms", []))
            except ConceptPairError as exc:
                errors.append(f"{where}: {exc}")
        for index, entry in enumerate(pair_entries):
            where = f"pairs[{index}]{_entry_name(entry)}"
            try:
                if not isinstance(entry, dict):
                    raise ConceptPairError("an object {name, kind, modifier, noun, category, heldout_group} "
                                           "is required")
                extra = sorted(set(entry) - {"name", "kind", "modifier", "noun", "category", "heldout_group"})
                if extra:
                    raise ConceptPairError(f"unknown field(s) {', '.join(extra)}")
                with transaction.atomic():
                    pair = save_pair(name=entry.get("name", ""), kind=entry.get("kind", ""),
                                     modifier=entry.get("modifier", ""), noun=entry.get("noun", ""),
                                     category=entry.get("category") or "",
                                     heldout_group=entry.get("heldout_group") or "")
                if pair.name in names:
                    raise ConceptPairError(f"the pair {pair.name} is defined twice in the file")
                names.add(pair.name)
            except ConceptPairError as exc:
                errors.append(f"{where}: {exc}")
        if errors:
            raise ConceptPairError(f"{len(errors)} error(s): {errors[0]}", errors)
    return len(names)
