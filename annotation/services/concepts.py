"""Importing a concept vocabulary (the `concepts.tsv` format, documented in docs/formats/imageclef.md).

A tab-separated file with the header `name  synset  synonyms  parent`: the concept's name, its
WordNet synset id (`woman.n.01`), synonyms separated by `;` (may be empty) and the name of its
parent concept (may be empty; the parent may be defined anywhere in the file or already exist).
Every line is checked before anything is written: an error names the line and nothing changes."""
from __future__ import annotations

import re
from dataclasses import dataclass

from django.db import transaction

from config.text_input import column_length, unstorable

from ..models import Concept, Vocabulary

HEADER = ["name", "synset", "synonyms", "parent"]
SYNSET = re.compile(r"\S+\.[nvasr]\.\d{2}")
NAME_LENGTHS = {column: column_length(Concept, field)
                for column, field in (("name", "name"), ("synset", "synset"), ("parent", "name"))}


class ConceptImportError(ValueError):
    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


@dataclass(frozen=True)
class ConceptRow:
    line: int
    name: str
    synset: str
    synonyms: tuple[str, ...]
    parent: str


@dataclass(frozen=True)
class ConceptImport:
    vocabulary: Vocabulary
    created: int
    updated: int


def parse_concepts(text: str, source: str = "concepts.tsv") -> list[ConceptRow]:
    lines = text.splitlines()
    if not lines or lines[0].strip().lower().split("\t") != HEADER:
        raise ConceptImportError([f"{source} line 1: expected the header {' / '.join(HEADER)} (tab-separated)"])
    rows: list[ConceptRow] = []
    errors: list[str] = []
    seen: dict[str, int] = {}  # name -> the line defining it
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if len(cells) != 4:
            errors.append(f"{source} line {number}: expected 4 tab-separated columns, found {len(cells)}")
            continue
        name, synset, synonyms, parent = (cell.strip() for cell in cells)
        if not name:
            errors.append(f"{source} line {number}: the concept name is empty")
            continue
        problems = _cell_problems({"name": name, "synset": synset, "synonyms": synonyms, "parent": parent})
        if problems:
            errors += [f"{source} line {number}: {problem}" for problem in problems]
            continue
        if synset and not SYNSET.fullmatch(synset):
            errors.append(f"{source} line {number}: '{synset}' is not a WordNet synset id like woman.n.01")
        if name in seen:
            errors.append(f"{source} line {number}: concept '{name}' is already defined on line {seen[name]}")
        seen[name] = number
        rows.append(ConceptRow(number, name, synset, tuple(s.strip() for s in synonyms.split(";") if s.strip()),
                               parent))
    if not rows and not errors:
        raise ConceptImportError([f"{source}: no concepts (only the header)"])
    known = set(seen) | set(Concept.objects.filter(name__in={r.parent for r in rows}).values_list("name", flat=True))
    for row in rows:
        if row.parent and row.parent not in known:
            errors.append(f"{source} line {row.line}: unknown parent concept '{row.parent}'")
        if row.parent == row.name:
            errors.append(f"{source} line {row.line}: '{row.name}' cannot be its own parent")
    errors += _cycles(rows, source)
    if errors:
        raise ConceptImportError(errors)
    return rows


def _cell_problems(cells: dict[str, str]) -> list[str]:
    """Cells no column can store: NUL characters, lone surrogates, names longer than their column."""
    problems = []
    for column, value in cells.items():
        unusable = unstorable(value)
        if unusable:
            problems.append(f"the {column} {'hold' if column == 'synonyms' else 'holds'} {unusable}")
        elif column in NAME_LENGTHS and len(value) > NAME_LENGTHS[column]:
            problems.append(f"the {column} is {len(value)} characters long (at most {NAME_LENGTHS[column]})")
    return problems


def _cycles(rows: list[ConceptRow], source: str) -> list[str]:
    """Parent chains that come back to where they started, through the file or the database."""
    parent_of = dict(Concept.objects.filter(parent__isnull=False).values_list("name", "parent__name"))
    parent_of.update({row.name: row.parent for row in rows})
    errors = []
    for row in rows:
        seen, name = {row.name}, parent_of.get(row.name)
        while name and name not in seen:
            seen.add(name)
            name = parent_of.get(name)
        if name == row.name and row.parent != row.name:
            errors.append(f"{source} line {row.line}: the parents of '{row.name}' form a cycle")
    return errors


@transaction.atomic
def import_concepts(text: str, vocabulary: str, source: str = "concepts.tsv") -> ConceptImport:
    """Create or update the concepts of the file and make them the vocabulary's concepts."""
    longest = column_length(Vocabulary, "name")
    unusable = unstorable(vocabulary)
    if unusable or not vocabulary or len(vocabulary) > longest:
        why = f"holds {unusable}" if unusable else f"must have 1 to {longest} characters"
        raise ConceptImportError([f"{source}: the vocabulary name {why}"])
    rows = parse_concepts(text, source)
    existing = {c.name: c for c in Concept.objects.filter(name__in=[r.name for r in rows])}
    created = updated = 0
    concepts: dict[str, Concept] = {}
    for row in rows:
        concept = existing.get(row.name)
        if concept is None:
            concept = Concept.objects.create(name=row.name, synset=row.synset, synonyms=list(row.synonyms))
            created += 1
        elif (concept.synset, concept.synonyms) != (row.synset, list(row.synonyms)):
            concept.synset, concept.synonyms = row.synset, list(row.synonyms)
            concept.save(update_fields=["synset", "synonyms"])
            updated += 1
        concepts[row.name] = concept
    parents = {c.name: c for c in Concept.objects.filter(name__in={r.parent for r in rows if r.parent})}
    for row in rows:
        parent = parents.get(row.parent) if row.parent else None
        concept = concepts[row.name]
        if concept.parent_id != (parent.pk if parent else None):
            concept.parent = parent
            concept.save(update_fields=["parent"])
    vocab, _ = Vocabulary.objects.get_or_create(name=vocabulary)
    vocab.concepts.set(concepts.values())
    return ConceptImport(vocab, created, updated)


def concepts_tsv(concepts: list[Concept]) -> str:
    """The concepts.tsv text of a list of concepts (what exports write and import_concepts reads)."""
    names: dict[int | None, str] = {c.pk: c.name for c in concepts}  # a concept without parent: None
    lines = ["\t".join(HEADER)]
    for c in concepts:
        lines.append("\t".join([c.name, c.synset, ";".join(c.synonyms), names.get(c.parent_id, "")]))
    return "\n".join(lines) + "\n"
