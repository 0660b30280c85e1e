"""Importing a concept vocabulary (the `concepts.tsv` format, documented in docs/formats/imageclef.md).

A tab-separated file with the header `name  synset  synonyms  parent`: the concept's name, its
WordNet synset id (`woman.n.01`), synonyms separated by `;` (may be empty) and the name of its
parent concept (may be empty; the parent may be defined anywhere in the file or already be a label of the
vocabulary). Every line is checked before anything is written: an error names the line and nothing changes.

A vocabulary owns its labels: an import creates and updates the labels of the vocabulary it names and never
touches another vocabulary's (a label of the same name elsewhere is another row)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from django.db import transaction
from django.db.models import QuerySet

from common.text_input import column_length, unstorable

from ..models import Concept, Vocabulary

BATCH = 1000  # labels a query writes
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
class RowWords:
    """How a reader's messages speak of its rows (a concepts.tsv line, a typed label)."""

    empty: str  # a row without a name
    synset_example: str  # a synset id like the ones the reader's rows hold
    repeated: str  # a name defined twice (formatted with `name` and `line`, the line defining it first)
    nothing: str  # no row at all
    synonym_separator: str


TSV_WORDS = RowWords(empty="the concept name is empty", synset_example="woman.n.01",
                     repeated="concept '{name}' is already defined on line {line}",
                     nothing="no concepts (only the header)", synonym_separator=";")


class RowChecker:
    """The rows of one text, each checked as it is read (a name, storable cells, a synset id, no name twice);
    `checked` then checks them together. Every error is kept, naming its line."""

    def __init__(self, source: str, words: RowWords) -> None:
        self.source, self.words = source, words
        self.rows: list[ConceptRow] = []
        self.errors: list[str] = []
        self.seen: dict[str, int] = {}  # name -> the line defining it

    def error(self, line: int, message: str) -> None:
        self.errors.append(f"{self.source} line {line}: {message}")

    def add(self, line: int, name: str, synset: str, synonyms: str, parent: str) -> None:
        """One row's cells, stripped; kept as a row unless its name is empty or a cell cannot be stored."""
        if not name:
            self.error(line, self.words.empty)
            return
        problems = cell_problems({"name": name, "synset": synset, "synonyms": synonyms, "parent": parent})
        if problems:
            for problem in problems:
                self.error(line, problem)
            return
        if synset and not SYNSET.fullmatch(synset):
            self.error(line, f"'{synset}' is not a WordNet synset id like {self.words.synset_example}")
        if name in self.seen:
            self.error(line, self.words.repeated.format(name=name, line=self.seen[name]))
        self.seen[name] = line
        names = tuple(s.strip() for s in synonyms.split(self.words.synonym_separator) if s.strip())
        self.rows.append(ConceptRow(line, name, synset, names, parent))

    def checked(self, vocabulary: Vocabulary | None) -> list[ConceptRow]:
        """The rows, once the parents are checked too (check_rows); ConceptImportError with every error."""
        if not self.rows and not self.errors:
            raise ConceptImportError([f"{self.source}: {self.words.nothing}"])
        return check_rows(self.rows, self.errors, self.source, vocabulary)


@dataclass(frozen=True)
class ConceptImport:
    vocabulary: Vocabulary
    created: int
    updated: int


def parse_concepts(text: str, source: str = "concepts.tsv", vocabulary: Vocabulary | None = None
                   ) -> list[ConceptRow]:
    """The rows of a concepts.tsv text, checked; a parent may be a label `vocabulary` already has."""
    lines = text.splitlines()
    if not lines or lines[0].strip().lower().split("\t") != HEADER:
        raise ConceptImportError([f"{source} line 1: expected the header {' / '.join(HEADER)} (tab-separated)"])
    checker = RowChecker(source, TSV_WORDS)
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if len(cells) != 4:
            checker.error(number, f"expected 4 tab-separated columns, found {len(cells)}")
            continue
        name, synset, synonyms, parent = (cell.strip() for cell in cells)
        checker.add(number, name, synset, synonyms, parent)
    return checker.checked(vocabulary)


def check_rows(rows: list[ConceptRow], errors: list[str], source: str, vocabulary: Vocabulary | None
               ) -> list[ConceptRow]:
    """Parents known (in the rows or the vocabulary) and without cycles; ConceptImportError with every error."""
    owned = Concept.objects.filter(vocabulary=vocabulary) if vocabulary is not None else Concept.objects.none()
    known = {row.name for row in rows} | set(
        owned.filter(name__in={r.parent for r in rows}).values_list("name", flat=True))
    for row in rows:
        if row.parent and row.parent not in known:
            errors.append(f"{source} line {row.line}: unknown parent concept '{row.parent}'")
        if row.parent == row.name:
            errors.append(f"{source} line {row.line}: '{row.name}' cannot be its own parent")
    errors += _cycles(rows, source, owned)
    if errors:
        raise ConceptImportError(errors)
    return rows


def cell_problems(cells: dict[str, str]) -> list[str]:
    """Cells no column can store: NUL characters, lone surrogates, names longer than their column."""
    problems = []
    for column, value in cells.items():
        unusable = unstorable(value)
        if unusable:
            problems.append(f"the {column} {'hold' if column == 'synonyms' else 'holds'} {unusable}")
        elif column in NAME_LENGTHS and len(value) > NAME_LENGTHS[column]:
            problems.append(f"the {column} is {len(value)} characters long (at most {NAME_LENGTHS[column]})")
    return problems


def _cycles(rows: list[ConceptRow], source: str, owned: QuerySet[Concept]) -> list[str]:
    """Parent chains that come back to where they started, through the file or the vocabulary's labels. Each label
    is walked once (a label already placed on or off a cycle ends the walk), so the time is linear in the labels."""
    parent_of = dict(owned.filter(parent__isnull=False).values_list("name", "parent__name"))
    parent_of.update({row.name: row.parent for row in rows})
    on_cycle: set[str] = set()
    done: set[str] = set()
    for row in rows:
        path: list[str] = []
        where: dict[str, int] = {}  # position of each label of this walk in `path`
        name: str | None = row.name
        while name and name not in done and name not in where:
            where[name] = len(path)
            path.append(name)
            name = parent_of.get(name)
        if name and name in where:  # the walk came back to one of its own labels: those from there on are a cycle
            on_cycle.update(path[where[name]:])
        done.update(path)
    return [f"{source} line {row.line}: the parents of '{row.name}' form a cycle" for row in rows
            if row.name in on_cycle and row.parent != row.name]


def check_vocabulary_name(name: str, source: str) -> None:
    longest = column_length(Vocabulary, "name")
    unusable = unstorable(name)
    if unusable or not name.strip() or len(name) > longest:
        why = f"holds {unusable}" if unusable else f"must have 1 to {longest} characters"
        raise ConceptImportError([f"{source}: the vocabulary name {why}"])


@transaction.atomic
def import_concepts(text: str, vocabulary: str, source: str = "concepts.tsv") -> ConceptImport:
    """Create or update the vocabulary's labels from the file; its labels the file leaves out are no longer
    offered to workers (they stay for the boxes and answers that use them)."""
    check_vocabulary_name(vocabulary, source)
    vocab = Vocabulary.objects.select_for_update().filter(name=vocabulary).first()
    rows = parse_concepts(text, source, vocab)
    if vocab is None:
        vocab = Vocabulary.objects.create(name=vocabulary)
    return write_labels(vocab, rows)


def write_labels(vocab: Vocabulary, rows: list[ConceptRow]) -> ConceptImport:
    """Make `rows` the vocabulary's offered labels (checked rows; the caller holds the transaction). Written in
    batches (new labels, changed labels, then parents), so that the queries do not grow with the labels."""
    existing = {c.name: c for c in Concept.objects.filter(vocabulary=vocab)}
    concepts: dict[str, Concept] = {}
    new: list[Concept] = []
    changed: list[Concept] = []
    for row in rows:
        concept = existing.get(row.name)
        if concept is None:
            concept = Concept(vocabulary=vocab, name=row.name, synset=row.synset, synonyms=list(row.synonyms))
            new.append(concept)
        elif (concept.synset, concept.synonyms, concept.offered) != (row.synset, list(row.synonyms), True):
            concept.synset, concept.synonyms, concept.offered = row.synset, list(row.synonyms), True
            changed.append(concept)
        concepts[row.name] = concept
    Concept.objects.bulk_create(new, batch_size=BATCH)
    Concept.objects.bulk_update(changed, ["synset", "synonyms", "offered"], batch_size=BATCH)
    everything = {**existing, **concepts}
    reparented: list[Concept] = []
    for row in rows:
        parent = everything[row.parent] if row.parent else None
        concept = concepts[row.name]
        if concept.parent_id != (parent.pk if parent else None):
            concept.parent = parent
            reparented.append(concept)
    Concept.objects.bulk_update(reparented, ["parent"], batch_size=BATCH)
    Concept.objects.filter(vocabulary=vocab, offered=True).exclude(name__in=concepts).update(offered=False)
    return ConceptImport(vocab, len(new), len(changed))


def concepts_tsv(concepts: list[Concept]) -> str:
    """The concepts.tsv text of a list of concepts (what exports write and import_concepts reads)."""
    names: dict[int | None, str] = {c.pk: c.name for c in concepts}  # a concept without parent: None
    lines = ["\t".join(HEADER)]
    for c in concepts:
        lines.append("\t".join([c.name, c.synset, ";".join(c.synonyms), names.get(c.parent_id, "")]))
    return "\n".join(lines) + "\n"
