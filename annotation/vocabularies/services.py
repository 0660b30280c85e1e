"""Creating a vocabulary: labels typed one per line, or a concepts.tsv text (services.concepts).

A typed line is `name | synonyms | synset | parent`; every part but the name may be left out, synonyms are
separated by commas: `kitten | kitty, cat | kitten.n.01`. Lines are checked as a concepts.tsv file is (an error
names the line and nothing is created)."""
from __future__ import annotations

from django.db import IntegrityError, transaction

from common.text_input import unstorable

from ..models import Vocabulary
from ..services.concepts import (
    ConceptImport,
    ConceptImportError,
    ConceptRow,
    RowChecker,
    RowWords,
    check_vocabulary_name,
    parse_concepts,
    write_labels,
)

DESCRIPTION_LENGTH = 300
TYPED_WORDS = RowWords(empty="the label is empty", synset_example="kitten.n.01",
                       repeated="the label '{name}' is already on line {line}",
                       nothing="no labels (type one per line)", synonym_separator=",")


def unknown_vocabulary_message(name: str) -> str:
    """What a name that names no vocabulary gets told: the vocabularies there are (or how to make one)."""
    names = sorted(Vocabulary.objects.values_list("name", flat=True), key=lambda n: (n.casefold(), n))
    if not names:
        return (f"unknown vocabulary '{name}': there is no vocabulary yet (create one on the console's "
                "Vocabularies page, with POST /api/vocabularies/ or manage.py import_concepts)")
    return f"unknown vocabulary '{name}' (vocabularies: {', '.join(names)})"


def parse_typed_labels(text: str, source: str = "labels") -> list[ConceptRow]:
    """The rows of labels typed one per line (`name | synonyms | synset | parent`); blank lines are skipped."""
    checker = RowChecker(source, TYPED_WORDS)
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = [part.strip() for part in line.split("|")]
        if len(parts) > 4:
            checker.error(number, f"at most 4 parts separated by | (name | synonyms | synset | parent), found "
                                  f"{len(parts)}")
            continue
        name, synonyms, synset, parent = (parts + ["", "", ""])[:4]
        checker.add(number, name, synset, synonyms, parent)
    return checker.checked(None)


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
