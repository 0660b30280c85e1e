"""Creating a vocabulary: labels typed one per line, or a concepts.tsv text (services.concepts).

A typed line is `name | synonyms | synset | parent`; every part but the name may be left out, synonyms are
separated by commas: `kitten | kitty, cat | kitten.n.01`. Lines are checked as a concepts.tsv file is (an error
names the line and nothing is created)."""
from __future__ import annotations

from django.db import IntegrityError, transaction

from common.text_input import unstorable

from ..models import Vocabulary
from ..services.concepts import (
    SYNSET,
    ConceptImport,
    ConceptImportError,
    ConceptRow,
    cell_problems,
    check_rows,
    check_vocabulary_name,
    parse_concepts,
    write_labels,
)

DESCRIPTION_LENGTH = 300


def unknown_vocabulary_message(name: str) -> str:
    """What a name that names no vocabulary gets told: the vocabularies there are (or how to make one)."""
    names = sorted(Vocabulary.objects.values_list("name", flat=True), key=lambda n: (n.casefold(), n))
    if not names:
        return (f"unknown vocabulary '{name}': there is no vocabulary yet (create one on the console's "
                "Vocabularies page, with POST /api/vocabularies/ or manage.py import_concepts)")
    return f"unknown vocabulary '{name}' (vocabularies: {', '.join(names)})"


def parse_typed_labels(text: str, source: str = "labels") -> list[ConceptRow]:
    """The rows of labels typed one per line (`name | synonyms | synset | parent`); blank lines are skipped."""
    rows: list[ConceptRow] = []
    errors: list[str] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = [part.strip() for part in line.split("|")]
        if len(parts) > 4:
            errors.append(f"{source} line {number}: at most 4 parts separated by | (name | synonyms | synset | "
                          f"parent), found {len(parts)}")
            continue
        name, synonyms, synset, parent = (parts + ["", "", ""])[:4]
        if not name:
            errors.append(f"{source} line {number}: the label is empty")
            continue
        problems = cell_problems({"name": name, "synset": synset, "synonyms": synonyms, "parent": parent})
        if problems:
            errors += [f"{source} line {number}: {problem}" for problem in problems]
            continue
        if synset and not SYNSET.fullmatch(synset):
            errors.append(f"{source} line {number}: '{synset}' is not a WordNet synset id like kitten.n.01")
        if name in seen:
            errors.append(f"{source} line {number}: the label '{name}' is already on line {seen[name]}")
        seen[name] = number
        rows.append(ConceptRow(number, name, synset, tuple(s.strip() for s in synonyms.split(",") if s.strip()),
                               parent))
    if not rows and not errors:
        raise ConceptImportError([f"{source}: no labels (type one per line)"])
    return check_rows(rows, errors, source, None)


@transaction.atomic
def create_vocabulary(name: str, *, labels: str = "", tsv: str = "", description: str = "",
                      source: str = "labels") -> ConceptImport:
    """A new vocabulary with the typed labels or the concepts.tsv text (one of them); ConceptImportError names
    every problem (a name already taken among them) and nothing is created."""
    name = name.strip()
    check_vocabulary_name(name, "vocabulary")
    description = description.strip()
    if len(description) > DESCRIPTION_LENGTH or unstorable(description):
        raise ConceptImportError([f"the description must be at most {DESCRIPTION_LENGTH} storable characters"])
    if bool(labels.strip()) == bool(tsv.strip()):
        raise ConceptImportError(["give the labels either typed one per line or as a concepts.tsv file, not both"
                                  if labels.strip() else "give the labels: type them one per line or upload a "
                                                         "concepts.tsv file"])
    rows = parse_typed_labels(labels, source) if labels.strip() else parse_concepts(tsv, source)
    if Vocabulary.objects.filter(name=name).exists():
        raise ConceptImportError([f"a vocabulary named '{name}' already exists"])
    try:
        with transaction.atomic():
            vocabulary = Vocabulary.objects.create(name=name, description=description)
    except IntegrityError:  # created meanwhile by another request
        raise ConceptImportError([f"a vocabulary named '{name}' already exists"]) from None
    return write_labels(vocabulary, rows)
